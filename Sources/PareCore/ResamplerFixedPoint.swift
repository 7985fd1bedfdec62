/// The fast sequential path of `Resampler`, for pictures without alpha: integer arithmetic in
/// 16-bit lanes, vertical pass first. `PlainSeparableResampler` does the same sums in Double
/// weights and Float samples and is its oracle (ResamplerTests: within one level at every
/// sample).
///
/// Numbers: samples in Q6 (the 0…255 scale times 64, so 8-bit samples lose nothing and 16-bit
/// ones keep six bits below a level), weights in Q14, quantised by `CumulativeRounding` so that
/// each output's weights sum to exactly 2^14 and a flat picture stays flat. Every product is a
/// 16-bit sample times a 16-bit weight, summed in 32 bits, which is what the vector units
/// multiply fastest (x86 `pmaddwd`, eight products and four sums per instruction; ARM `smlal`).
/// `FixedPointResampler.fits` refuses a geometry whose weights could leave 16 bits; the plain
/// engine takes it.
///
/// Vertical pass: input rows are added four at a time. Once a group has arrived, rows 0 and 1,
/// and rows 2 and 3, are interleaved sample by sample, so that one multiply-add of (row a,
/// row b) by (weight a, weight b) takes two rows at once, and the group goes into an open
/// output row's 32-bit accumulator with one load and one store of it per four rows. The open output rows live in a ring as wide as the input
/// (`OpenOutputRows`, sized by the ratio alone).
///
/// Horizontal pass, on output rows only: a completed accumulator goes back to Q6 in one
/// plane per channel, so that each output sample is a dot product of contiguous samples with
/// its weights, eight taps a step; the taps of every output pixel are padded with zero weights
/// to a multiple of eight (`FixedPointTaps`).
struct FixedPointResampler: SequentialResampling {
    let geometry: ResamplingGeometry
    private var rows: OpenOutputRows
    private let taps: FixedPointTaps
    /// Samples in an input row (inputWidth × channels), and the same rounded up to a whole
    /// number of vector steps.
    private let samples: Int
    private let paddedSamples: Int
    /// The rows of one group as they came (8- or 16-bit samples), row y in lane y − groupStart,
    /// each `laneBytes` long.
    private let laneRows: LedgerBuffer<UInt8>
    private let laneBytes: Int
    /// Lanes 2p and 2p + 1 interleaved, pair p at p × 2·paddedSamples: [2i] from the first,
    /// [2i + 1] from the second.
    private let pairs: LedgerBuffer<Int16>
    /// The ring of open output rows, `paddedSamples` Int32 each: sums in Q6 × Q14.
    private let accumulators: LedgerBuffer<Int32>
    /// Per ring slot, its output row's window and the rounding of its vertical weights.
    private let slotWeights: LedgerBuffer<SlotWeights>
    /// A completed row in Q6, channel c at c × planeStride; each plane is padded with zeros so
    /// that a padded tap group never reads past it.
    private let planes: LedgerBuffer<Int16>
    private let planeStride: Int
    private let outputRow: LedgerBuffer<UInt8>

    private(set) var nextInputRow = 0
    /// The first input row of the group being gathered, and the lane of the row that ended
    /// the group before.
    private var groupStart = 0
    private var previousGroupLastLane = 0
    /// Input rows added into the open rows so far (a group is added when its last row comes).
    private var rowsAdded = 0

    /// One open output row's vertical weights, issued row by row as its input rows arrive.
    private struct SlotWeights {
        var first = 0
        var last = -1
        var rounding = CumulativeRounding(total: 1)
    }

    /// Q6: samples on the 0…255 scale times 2^6.
    static let sampleBits = 6
    /// Q14: weights times 2^14.
    static let weightBits = 14
    /// Input rows added into the accumulators at once, in pairs.
    static let rowsPerGroup = 4

    /// Whether this engine takes `geometry`: no alpha (colour is filtered premultiplied by
    /// alpha, which would need more than 16 bits to keep faint pixels' colour), and weights
    /// whose absolute sum per output stays under 1.95 on both axes, so that a Q6 sample
    /// (at most 255·2^6) times them fits the 16-bit lanes of the intermediate row and the
    /// 32-bit sums. Lanczos3 reaches at most about 1.3, away from degenerate edge windows.
    static func fits(_ geometry: ResamplingGeometry) -> Bool {
        guard !geometry.inputFormat.hasAlpha else { return false }
        let limit = 1.95 * Double(1 << weightBits)
        for axis in [geometry.horizontal, geometry.vertical] {
            for j in 0 ..< axis.outputCount {
                var rounding = CumulativeRounding(total: axis.weightSum(j))
                var magnitude = 0
                let window = axis.window(j)
                for x in window.first ... window.last { magnitude += abs(rounding.next(axis.weight(j, x))) }
                if Double(magnitude) > limit { return false }
            }
        }
        return true
    }

    init(input header: RowStreamHeader, outputWidth: Int, outputHeight: Int, filter: ResamplingFilter,
         ledger: MemoryLedger) throws(CoreError) {
        geometry = ResamplingGeometry(input: header, outputWidth: outputWidth, outputHeight: outputHeight, filter: filter)
        precondition(geometry.channels >= 1 && geometry.channels <= 4)
        rows = OpenOutputRows(vertical: geometry.vertical,
                              limit: geometry.vertical.outputsPerInputBound(rows: Self.rowsPerGroup))
        taps = try FixedPointTaps(geometry.horizontal, ledger: ledger)
        samples = try checkedProduct(geometry.inputWidth, geometry.channels)
        paddedSamples = (samples + 7) & ~7
        laneBytes = try checkedProduct(paddedSamples, header.format.bytesPerSample)
        laneRows = try ledger.allocate(UInt8.self, count: try checkedProduct(laneBytes, Self.rowsPerGroup),
                                       initialValue: 0)
        pairs = try ledger.allocate(Int16.self, count: try checkedProduct(paddedSamples, Self.rowsPerGroup),
                                    initialValue: 0)
        accumulators = try ledger.allocate(Int32.self, count: try checkedProduct(paddedSamples, rows.limit), initialValue: 0)
        slotWeights = try ledger.allocate(SlotWeights.self, count: rows.limit, initialValue: SlotWeights())
        planeStride = geometry.inputWidth + taps.stride
        planes = try ledger.allocate(Int16.self, count: try checkedProduct(planeStride, geometry.channels), initialValue: 0)
        outputRow = try ledger.allocate(UInt8.self, count: try checkedProduct(outputWidth, geometry.channels),
                                        initialValue: 0)
    }

    mutating func take(_ row: UnsafePointer<UInt8>) {
        // SAFETY: nextInputRow − groupStart < rowsPerGroup (`rowArrived` adds a group once it
        // holds that many rows), and a lane's laneBytes ≥ samples · bytesPerSample.
        (laneRows.baseAddress + (nextInputRow - groupStart) * laneBytes)
            .update(from: row, count: samples * geometry.inputFormat.bytesPerSample)
        rowArrived()
    }

    mutating func nextReadyRow() -> (Int, UnsafeBufferPointer<UInt8>)? {
        guard let y = rows.nextComplete(rowsIn: rowsAdded) else { return nil }
        // SAFETY: slot(y) = y mod rows.limit, and the accumulators hold rows.limit rows.
        toPlanes(accumulators.baseAddress + rows.slot(y) * paddedSamples)
        if geometry.channels == 1 { filterHorizontally(channels: 1) } else { filterHorizontally(channels: 3) }
        return (y, UnsafeBufferPointer(start: outputRow.baseAddress, count: outputRow.count))
    }

    /// The lanes start as zeros, so before the first row nothing needs copying.
    mutating func repeatPreviousRow() {
        if nextInputRow > 0 {
            // The row before is in the lane before, or, at a group's start, in the lane the
            // last group ended with (lanes keep their rows until overwritten).
            let lane = nextInputRow - groupStart
            let previous = lane > 0 ? lane - 1 : previousGroupLastLane
            if previous != lane {
                // SAFETY: lane and previous are both < rowsPerGroup, the lanes laneRows holds.
                (laneRows.baseAddress + lane * laneBytes)
                    .update(from: laneRows.baseAddress + previous * laneBytes, count: laneBytes)
            }
        }
        rowArrived()
    }

    /// Input row `nextInputRow` is in its lane. The group is added when it is full, at the
    /// picture's last row, or when the next output row to emit has its last input row, so
    /// that rows stream out as soon as their input is in (lanes past the group's end get
    /// weight zero).
    private mutating func rowArrived() {
        let y = nextInputRow
        let due = rows.nextEmitted < geometry.outputHeight ? geometry.vertical.window(rows.nextEmitted).last : y
        if y - groupStart == Self.rowsPerGroup - 1 || y == geometry.inputHeight - 1 || y >= due {
            addGroup(from: groupStart, through: y)
            previousGroupLastLane = y - groupStart
            groupStart = y + 1
        }
        nextInputRow += 1
    }

    /// Adds input rows `start` ... `last` (at most rowsPerGroup) into every output row they
    /// feed.
    private mutating func addGroup(from start: Int, through last: Int) {
        let vertical = geometry.vertical
        let n = paddedSamples
        let slots = slotWeights, sums = accumulators
        rows.open(through: last) { outputY, slot in
            // SAFETY: slot < rows.limit, the rows of paddedSamples the accumulators hold.
            (sums.baseAddress + slot * n).update(repeating: 0, count: n)
            let window = vertical.window(outputY)
            slots[slot] = SlotWeights(first: window.first, last: window.last,
                                      rounding: CumulativeRounding(total: vertical.weightSum(outputY)))
        }
        interleaveLanes(0)
        if last - start >= 2 { interleaveLanes(1) }
        for outputY in rows.open {
            let slot = rows.slot(outputY)
            var state = slotWeights[slot]
            var w = SIMD4<Int16>.zero
            for r in 0 ..< Self.rowsPerGroup {
                let y = start + r
                if y <= last, y >= state.first, y <= state.last {
                    // `fits` has checked that every weight fits 16 bits.
                    w[r] = Int16(truncatingIfNeeded: state.rounding.next(vertical.weight(outputY, y)))
                }
            }
            slotWeights[slot] = state
            // SAFETY: as above, slot < rows.limit.
            let accumulator = accumulators.baseAddress + slot * n
            // A pair whose weights are both zero (outside the window, or past a short group's
            // end) is left out: half the work where groups end early.
            switch (w[0] != 0 || w[1] != 0, w[2] != 0 || w[3] != 0) {
            case (true, true): addWeighted(into: accumulator, w)
            case (true, false): addWeighted(into: accumulator, pair: 0, w[0], w[1])
            case (false, true): addWeighted(into: accumulator, pair: 1, w[2], w[3])
            case (false, false): continue
            }
        }
        rowsAdded = last + 1
    }

    /// Pair p = (lane 2p [0], lane 2p+1 [0], lane 2p [1], …) in Q6, eight samples of each lane
    /// a step for 8-bit input.
    private func interleaveLanes(_ p: Int) {
        // SAFETY: each lane holds laneBytes = paddedSamples (a multiple of 8) samples of
        // bytesPerSample bytes; each pair holds 2·paddedSamples values.
        let even = laneRows.baseAddress + 2 * p * laneBytes, odd = even + laneBytes
        let target = pairs.baseAddress + 2 * p * paddedSamples
        if geometry.inputFormat.bytesPerSample == 1 {
            var i = 0
            while i < paddedSamples {
                let a = Lanes.load(even + i), b = Lanes.load(odd + i)
                Lanes.store(Lanes.q6(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3]), to: target + 2 * i)
                Lanes.store(Lanes.q6(a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7]), to: target + 2 * i + 8)
                i &+= 8
            }
        } else {
            // 0…65535 to 0…255·64, rounded: (v·16320 + 32767) / 65535 < 2^31.
            func q6(_ p: UnsafePointer<UInt8>) -> Int16 {
                let v = Int32(p[0]) << 8 | Int32(p[1])
                return Int16((v * 16320 + 32767) / 65535)
            }
            for i in 0 ..< samples {
                target[2 * i] = q6(even + 2 * i)
                target[2 * i + 1] = q6(odd + 2 * i)
            }
        }
    }

    /// accumulator[i] += Σ lane r [i]·w[r] over the row, from the interleaved pairs.
    private func addWeighted(into accumulator: UnsafeMutablePointer<Int32>, _ w: SIMD4<Int16>) {
        // SAFETY: each pair holds 2·paddedSamples values and `accumulator` paddedSamples, a
        // multiple of 8; i steps by 8 while i < paddedSamples.
        let first = Lanes.Short(w[0], w[1], w[0], w[1], w[0], w[1], w[0], w[1])
        let second = Lanes.Short(w[2], w[3], w[2], w[3], w[2], w[3], w[2], w[3])
        let source = pairs.baseAddress, other = pairs.baseAddress + 2 * paddedSamples
        var i = 0
        while i < paddedSamples {
            let low = Lanes.multiplyAdd(Lanes.load(source + 2 * i), first)
                &+ Lanes.multiplyAdd(Lanes.load(other + 2 * i), second)
            let high = Lanes.multiplyAdd(Lanes.load(source + 2 * i + 8), first)
                &+ Lanes.multiplyAdd(Lanes.load(other + 2 * i + 8), second)
            Lanes.store(Lanes.load(accumulator + i) &+ low, to: accumulator + i)
            Lanes.store(Lanes.load(accumulator + i + 4) &+ high, to: accumulator + i + 4)
            i &+= 8
        }
    }

    /// accumulator[i] += lane 2p [i]·wa + lane 2p+1 [i]·wb over the row, from pair p.
    private func addWeighted(into accumulator: UnsafeMutablePointer<Int32>, pair p: Int, _ wa: Int16, _ wb: Int16) {
        // SAFETY: each pair holds 2·paddedSamples values and `accumulator` paddedSamples, a
        // multiple of 8; i steps by 8 while i < paddedSamples.
        let weights = Lanes.Short(wa, wb, wa, wb, wa, wb, wa, wb)
        let source = pairs.baseAddress + 2 * p * paddedSamples
        var i = 0
        while i < paddedSamples {
            let low = Lanes.multiplyAdd(Lanes.load(source + 2 * i), weights)
            let high = Lanes.multiplyAdd(Lanes.load(source + 2 * i + 8), weights)
            Lanes.store(Lanes.load(accumulator + i) &+ low, to: accumulator + i)
            Lanes.store(Lanes.load(accumulator + i + 4) &+ high, to: accumulator + i + 4)
            i &+= 8
        }
    }

    /// A completed accumulator (Q20) back to Q6, one plane per channel.
    private func toPlanes(_ accumulator: UnsafePointer<Int32>) {
        // SAFETY: the accumulator holds samples = inputWidth × channels values; plane c holds
        // planeStride ≥ inputWidth values from c × planeStride.
        let channels = geometry.channels, width = geometry.inputWidth
        let half: Int32 = 1 << (Self.weightBits - 1)
        for c in 0 ..< channels {
            let plane = planes.baseAddress + c * planeStride
            var source = accumulator + c
            for x in 0 ..< width {
                // |sum| < 255·2^6 · 1.95·2^14 (`fits`), so the Q6 value fits 16 bits.
                plane[x] = Int16(truncatingIfNeeded: (source.pointee &+ half) &>> Int32(Self.weightBits))
                source += channels
            }
        }
    }

    /// Inlined with a constant `channels` (1 or 3: `fits` refuses alpha): each output sample a
    /// dot product of its plane's samples with the pixel's padded weights, eight a step, the
    /// weights loaded once for all channels.
    @inline(__always)
    private func filterHorizontally(channels: Int) {
        // SAFETY: first[x] + end[x] ≤ inputWidth − 1 + stride < planeStride (FixedPointTaps),
        // so each plane read stays in its plane; weights hold outputWidth × stride values;
        // outputRow holds outputWidth × channels bytes.
        let weights = taps.weights.baseAddress, firsts = taps.first.baseAddress, stride = taps.stride
        let ends = taps.end.baseAddress
        var target = outputRow.baseAddress
        let shift = Int32(Self.sampleBits + Self.weightBits)
        let half = Lanes.Long4(repeating: 1 << (shift - 1))
        let plane0 = planes.baseAddress, plane1 = plane0 + planeStride, plane2 = plane1 + planeStride
        for x in 0 ..< geometry.outputWidth {
            let w = weights + x * stride
            let first = firsts[x], end = ends[x]
            var s0 = Lanes.Long4.zero, s1 = Lanes.Long4.zero, s2 = Lanes.Long4.zero
            var k = 0
            while k < end {
                let weight = Lanes.load(w + k)
                s0 &+= Lanes.multiplyAdd(Lanes.load(plane0 + first + k), weight)
                if channels == 3 {
                    s1 &+= Lanes.multiplyAdd(Lanes.load(plane1 + first + k), weight)
                    s2 &+= Lanes.multiplyAdd(Lanes.load(plane2 + first + k), weight)
                }
                k &+= 8
            }
            // Four sums across: (s0, s1, s2, –) each added over its lanes.
            let low = Lanes.Long4(s0[0], s1[0], s2[0], 0) &+ Lanes.Long4(s0[1], s1[1], s2[1], 0)
            let high = Lanes.Long4(s0[2], s1[2], s2[2], 0) &+ Lanes.Long4(s0[3], s1[3], s2[3], 0)
            let value = (low &+ high &+ half) &>> Lanes.Long4(repeating: shift)
            for c in 0 ..< channels {
                let v = value[c]
                target[c] = v <= 0 ? 0 : v >= 255 ? 255 : UInt8(truncatingIfNeeded: v)
            }
            target += channels
        }
    }
}

/// The horizontal weights of `FixedPointResampler`: output x takes `end[x]` samples from
/// `first[x]`, with Q14 weights at `weights[x·stride ...]`, zero past its window. `end[x]` is
/// its taps rounded up to a multiple of 8, `stride` the largest; first[x] < the input's length.
struct FixedPointTaps {
    let first: LedgerBuffer<Int>
    let end: LedgerBuffer<Int>
    let weights: LedgerBuffer<Int16>
    let stride: Int

    init(_ axis: ResamplingAxis, ledger: MemoryLedger) throws(CoreError) {
        stride = (axis.maxTaps + 7) & ~7
        first = try ledger.allocate(Int.self, count: axis.outputCount, initialValue: 0)
        end = try ledger.allocate(Int.self, count: axis.outputCount, initialValue: 0)
        weights = try ledger.allocate(Int16.self, count: try checkedProduct(axis.outputCount, stride), initialValue: 0)
        for j in 0 ..< axis.outputCount {
            let window = axis.window(j)
            var rounding = CumulativeRounding(total: axis.weightSum(j))
            for x in window.first ... window.last {
                // `FixedPointResampler.fits` has checked that every weight fits 16 bits.
                weights[j * stride + x - window.first] = Int16(truncatingIfNeeded: rounding.next(axis.weight(j, x)))
            }
            first[j] = window.first
            end[j] = (window.last - window.first + 8) & ~7
        }
    }
}

/// Quantises one output's weights, given in order, to Q14 integers that sum to exactly 2^14:
/// the k-th is round(2^14·(w₀+…+w_k)/total) − round(2^14·(w₀+…+w_{k−1})/total), so the
/// rounding errors never add up beyond half a unit.
struct CumulativeRounding {
    private let scale: Double
    private var sum = 0.0
    private var issued = 0

    init(total: Double) {
        scale = Double(1 << FixedPointResampler.weightBits) / total
    }

    mutating func next(_ weight: Double) -> Int {
        sum += weight
        let reached = Int((sum * scale).rounded())
        defer { issued = reached }
        return reached - issued
    }
}

/// 16- and 32-bit lanes for `FixedPointResampler`, conversions spelled lane by lane so that
/// the compiler sees one vector operation each.
enum Lanes {
    typealias Short = SIMD8<Int16>
    typealias Long = SIMD8<Int32>
    typealias Long4 = SIMD4<Int32>

    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> SIMD8<UInt8> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self) }

    /// Eight bytes to Q6 (times 64) in 16-bit lanes.
    @inline(__always)
    static func q6(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8,
                   _ b4: UInt8, _ b5: UInt8, _ b6: UInt8, _ b7: UInt8) -> Short {
        Short(Int16(b0), Int16(b1), Int16(b2), Int16(b3), Int16(b4), Int16(b5), Int16(b6), Int16(b7)) &<< 6
    }

    @inline(__always)
    static func load(_ p: UnsafePointer<Int16>) -> Short { UnsafeRawPointer(p).loadUnaligned(as: Short.self) }

    @inline(__always)
    static func load(_ p: UnsafePointer<Int32>) -> Long4 { UnsafeRawPointer(p).loadUnaligned(as: Long4.self) }

    @inline(__always)
    static func store(_ v: Short, to p: UnsafeMutablePointer<Int16>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: Short.self)
    }

    @inline(__always)
    static func store(_ v: Long4, to p: UnsafeMutablePointer<Int32>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: Long4.self)
    }

    @inline(__always)
    static func widen(_ v: Short) -> Long {
        Long(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]))
    }

    /// (a₀b₀ + a₁b₁, a₂b₂ + a₃b₃, …): adjacent products summed in 32 bits, exact (x86
    /// `pmaddwd`).
    @inline(__always)
    static func multiplyAdd(_ a: Short, _ b: Short) -> Long4 {
        let products = widen(a) &* widen(b)
        return products.evenHalf &+ products.oddHalf
    }
}
