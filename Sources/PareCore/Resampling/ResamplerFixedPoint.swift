/// The fast sequential path of `Resampler`, for pictures without alpha: integer arithmetic in
/// 16-bit lanes, vertical pass first. `PlainSeparableResampler` does the same sums in Double
/// weights and Float samples and is its oracle (ResamplerTests: within one level at every
/// sample).
///
/// Numbers: samples in Q6 (the 0…255 scale times 64, so 8-bit samples lose nothing and 16-bit
/// ones keep six bits below a level), weights in Q14, quantised by `CumulativeRounding` so that
/// each output's weights sum to exactly 2^14 and a flat picture stays flat (horizontal weights
/// computed once into a `TapTable`, vertical ones as each output row's input rows arrive, so
/// that nothing grows with the input's height). Every product is a 16-bit sample times a 16-bit weight, summed in 32 bits, which is what the vector units
/// multiply fastest (x86 `pmaddwd`, eight products and four sums per instruction; ARM `smlal`).
/// `FixedPointResampler.make` refuses a geometry whose weights could leave 16 bits; the plain
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
/// to a multiple of eight (`TapTable`'s lanes).
struct FixedPointResampler: SequentialResampling {
    let geometry: ResamplingGeometry
    private var rows: OpenOutputRows
    /// Q14 horizontal weights, each output's padded to a multiple of 8 taps.
    private let taps: TapTable<Int16>
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
    /// The output row, and 3 bytes more: each pixel is stored as one 4-byte word.
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

    /// Whether this engine takes `geometry` (see `make`).
    static func fits(_ geometry: ResamplingGeometry) -> Bool {
        guard !geometry.inputFormat.hasAlpha else { return false }
        let ledger = MemoryLedger()
        guard let horizontal = try? TapTable<Int16>(geometry.horizontal, lanes: 8, ledger: ledger),
              let vertical = try? TapTable<Int16>.largestMagnitude(geometry.vertical, ledger: ledger) else { return false }
        return fits(horizontal.largestMagnitude, vertical)
    }

    /// Weights whose absolute sum per output stays under 1.95 on both axes, so that a Q6
    /// sample (at most 255·2^6) times them fits the 16-bit lanes of the intermediate row and
    /// the 32-bit sums. Lanczos3 reaches at most about 1.3, away from degenerate edge windows.
    private static func fits(_ horizontal: Double, _ vertical: Double) -> Bool {
        horizontal < 1.95 && vertical < 1.95
    }

    /// The engine for `header` → outputWidth × outputHeight, or nil when it does not take the
    /// geometry: alpha (colour is filtered premultiplied by alpha, which would need more than
    /// 16 bits to keep faint pixels' colour), or weights that could leave 16 bits (`fits`).
    static func make(input header: RowStreamHeader, outputWidth: Int, outputHeight: Int, filter: ResamplingFilter,
                     shift: ResamplingShift = .none, ledger: MemoryLedger) throws(CoreError) -> FixedPointResampler? {
        guard !header.format.hasAlpha else { return nil }
        let geometry = ResamplingGeometry(input: header, outputWidth: outputWidth, outputHeight: outputHeight, filter: filter,
                                          shift: shift)
        let horizontal = try TapTable<Int16>(geometry.horizontal, lanes: 8, ledger: ledger)
        let vertical = try TapTable<Int16>.largestMagnitude(geometry.vertical, ledger: ledger)
        guard fits(horizontal.largestMagnitude, vertical) else { return nil }
        return try FixedPointResampler(geometry: geometry, horizontal: horizontal, ledger: ledger)
    }

    init(input header: RowStreamHeader, outputWidth: Int, outputHeight: Int, filter: ResamplingFilter,
         shift: ResamplingShift = .none, span: BoxShrink.Span? = nil, ledger: MemoryLedger) throws(CoreError) {
        let geometry = ResamplingGeometry(input: header, outputWidth: outputWidth, outputHeight: outputHeight, filter: filter,
                                          shift: shift, span: span)
        try self.init(geometry: geometry, horizontal: try TapTable(geometry.horizontal, lanes: 8, ledger: ledger),
                      ledger: ledger)
    }

    private init(geometry: ResamplingGeometry, horizontal: TapTable<Int16>, ledger: MemoryLedger) throws(CoreError) {
        self.geometry = geometry
        precondition(geometry.channels >= 1 && geometry.channels <= 4)
        rows = OpenOutputRows(vertical: geometry.vertical,
                              limit: geometry.vertical.outputsPerInputBound(rows: Self.rowsPerGroup))
        taps = horizontal
        samples = try checkedProduct(geometry.inputWidth, geometry.channels)
        paddedSamples = (samples + 7) & ~7
        laneBytes = try checkedProduct(paddedSamples, geometry.inputFormat.bytesPerSample)
        laneRows = try ledger.allocate(UInt8.self, count: try checkedProduct(laneBytes, Self.rowsPerGroup),
                                       initialValue: 0)
        pairs = try ledger.allocate(Int16.self, count: try checkedProduct(paddedSamples, Self.rowsPerGroup),
                                    initialValue: 0)
        accumulators = try ledger.allocate(Int32.self, count: try checkedProduct(paddedSamples, rows.limit), initialValue: 0)
        slotWeights = try ledger.allocate(SlotWeights.self, count: rows.limit, initialValue: SlotWeights())
        planeStride = geometry.inputWidth + taps.stride
        planes = try ledger.allocate(Int16.self, count: try checkedProduct(planeStride, geometry.channels), initialValue: 0)
        outputRow = try ledger.allocate(UInt8.self, count: try checkedProduct(geometry.outputWidth, geometry.channels) + 3,
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
        filterHorizontally()
        return (y, UnsafeBufferPointer(start: outputRow.baseAddress, count: geometry.outputWidth * geometry.channels))
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
    /// feed, two output rows per pass over the pairs so that each pair vector is loaded once
    /// for both. A row opened by this group has its accumulator written rather than added
    /// to, which saves clearing it first.
    private mutating func addGroup(from start: Int, through last: Int) {
        let vertical = geometry.vertical
        let slots = slotWeights
        var firstOpened = rows.open.upperBound
        rows.open(through: last) { outputY, slot in
            firstOpened = min(firstOpened, outputY)
            let window = vertical.window(outputY)
            slots[slot] = SlotWeights(first: window.first, last: window.last,
                                      rounding: CumulativeRounding(total: vertical.weightSum(outputY)))
        }
        interleaveLanes(0)
        let pairCount = last - start >= 2 ? 2 : 1
        if pairCount == 2 { interleaveLanes(1) }
        var pending: PairTarget?
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
            let fresh = outputY >= firstOpened
            // A row with no weight here is left alone, unless it is new: its accumulator is
            // then written (with zeros).
            if w == .zero && !fresh { continue }
            // SAFETY: slot < rows.limit, the rows of paddedSamples the accumulators hold.
            let target = PairTarget(accumulator: accumulators.baseAddress + slot * paddedSamples, weights: w, fresh: fresh)
            if let first = pending {
                addWeighted(pairs: pairCount, first, target)
                pending = nil
            } else {
                pending = target
            }
        }
        if let first = pending { addWeighted(pairs: pairCount, first, nil) }
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
                Lanes.store(Lanes.q6(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3]), to: target + i &* 2)
                Lanes.store(Lanes.q6(a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7]), to: target + (i &* 2 &+ 8))
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

    /// An open output row's accumulator, the group's weights for it (rows 0…3), and whether
    /// the group opened it (its accumulator holds nothing yet).
    private struct PairTarget {
        var accumulator: UnsafeMutablePointer<Int32>
        var weights: SIMD4<Int16>
        var fresh: Bool
    }

    /// Chooses the loop of `accumulate` for the number of pairs and output rows and whether
    /// each row is fresh, so that each runs without tests inside.
    private func addWeighted(pairs pairCount: Int, _ a: PairTarget, _ b: PairTarget?) {
        if pairCount == 1 { addWeighted(pairCount: 1, a, b) } else { addWeighted(pairCount: 2, a, b) }
    }

    @inline(__always)
    private func addWeighted(pairCount: Int, _ a: PairTarget, _ b: PairTarget?) {
        guard let b else {
            if a.fresh {
                accumulate(pairCount: pairCount, a, a, rows: 1, freshA: true, freshB: false)
            } else {
                accumulate(pairCount: pairCount, a, a, rows: 1, freshA: false, freshB: false)
            }
            return
        }
        switch (a.fresh, b.fresh) {
        case (false, false): accumulate(pairCount: pairCount, a, b, rows: 2, freshA: false, freshB: false)
        case (false, true): accumulate(pairCount: pairCount, a, b, rows: 2, freshA: false, freshB: true)
        case (true, false): accumulate(pairCount: pairCount, a, b, rows: 2, freshA: true, freshB: false)
        case (true, true): accumulate(pairCount: pairCount, a, b, rows: 2, freshA: true, freshB: true)
        }
    }

    /// accumulator[i] (+)= Σ lane r [i]·w[r] over the row, for the first `pairCount` pairs of the
    /// group, into `rows` (1 or 2) output rows; a fresh accumulator is written, not added to.
    /// Inlined with constant arguments, so each combination is its own loop.
    @inline(__always)
    private func accumulate(pairCount: Int, _ a: PairTarget, _ b: PairTarget, rows: Int, freshA: Bool, freshB: Bool) {
        // SAFETY: each pair holds 2·paddedSamples values and each accumulator paddedSamples,
        // a multiple of 8; i steps by 8 while i < paddedSamples.
        let a0 = Lanes.pairWeights(a.weights[0], a.weights[1]), a1 = Lanes.pairWeights(a.weights[2], a.weights[3])
        let b0 = Lanes.pairWeights(b.weights[0], b.weights[1]), b1 = Lanes.pairWeights(b.weights[2], b.weights[3])
        let first = UnsafePointer(pairs.baseAddress), second = first + 2 * paddedSamples
        let sumA = a.accumulator, sumB = b.accumulator
        let n = paddedSamples
        var i = 0
        while i < n {
            let p0 = Lanes.load(first + i &* 2), q0 = Lanes.load(first + (i &* 2 &+ 8))
            var aLow = Lanes.multiplyAdd(p0, a0), aHigh = Lanes.multiplyAdd(q0, a0)
            var bLow = Lanes.Long4.zero, bHigh = Lanes.Long4.zero
            if rows == 2 { bLow = Lanes.multiplyAdd(p0, b0); bHigh = Lanes.multiplyAdd(q0, b0) }
            if pairCount == 2 {
                let p1 = Lanes.load(second + i &* 2), q1 = Lanes.load(second + (i &* 2 &+ 8))
                aLow &+= Lanes.multiplyAdd(p1, a1)
                aHigh &+= Lanes.multiplyAdd(q1, a1)
                if rows == 2 {
                    bLow &+= Lanes.multiplyAdd(p1, b1)
                    bHigh &+= Lanes.multiplyAdd(q1, b1)
                }
            }
            if !freshA {
                aLow &+= Lanes.load(sumA + i)
                aHigh &+= Lanes.load(sumA + i + 4)
            }
            Lanes.store(aLow, to: sumA + i)
            Lanes.store(aHigh, to: sumA + i + 4)
            if rows == 2 {
                if !freshB {
                    bLow &+= Lanes.load(sumB + i)
                    bHigh &+= Lanes.load(sumB + i + 4)
                }
                Lanes.store(bLow, to: sumB + i)
                Lanes.store(bHigh, to: sumB + i + 4)
            }
            i &+= 8
        }
    }

    /// A completed accumulator (Q20) back to Q6, one plane per channel: eight samples a step
    /// for one channel, eight pixels a step for three (`Lanes.deinterleave`).
    private func toPlanes(_ accumulator: UnsafePointer<Int32>) {
        let channels = geometry.channels, width = geometry.inputWidth
        let half = Lanes.Long4(repeating: 1 << (Self.weightBits - 1)), shift = Lanes.Long4(repeating: Int32(Self.weightBits))
        // |sum| < 255·2^6 · 1.95·2^14 (`fits`), so each Q6 value fits 16 bits.
        @inline(__always) func q6(_ i: Int) -> Lanes.Long4 { (Lanes.load(accumulator + i) &+ half) &>> shift }
        let plane0 = planes.baseAddress, plane1 = plane0 + planeStride, plane2 = plane1 + planeStride
        var x = 0
        if channels == 1 {
            // SAFETY: the accumulator holds paddedSamples ≥ width rounded up to 8 values, and
            // the plane planeStride = width + taps.stride ≥ width + 8: x < width reads and
            // writes 8 values from x.
            while x < width {
                Lanes.store(Lanes.narrow(q6(x), q6(x &+ 4)), to: plane0 + x)
                x &+= 8
            }
            return
        }
        // SAFETY: x + 8 ≤ width, so the 24 values read from 3x lie within the
        // width × 3 samples of the accumulator, and the 8 written to each plane within it.
        while x &+ 8 <= width {
            let i = x &* 3
            let (r, g, b) = Lanes.deinterleave(q6(i), q6(i &+ 4), q6(i &+ 8), q6(i &+ 12), q6(i &+ 16), q6(i &+ 20))
            Lanes.store(r, to: plane0 + x)
            Lanes.store(g, to: plane1 + x)
            Lanes.store(b, to: plane2 + x)
            x &+= 8
        }
        // SAFETY: x < width, plane c holds planeStride ≥ width values from c × planeStride and
        // the accumulator width × channels.
        while x < width {
            for c in 0 ..< channels {
                let v = (accumulator[x &* channels &+ c] &+ half[0]) &>> shift[0]
                planes.baseAddress[c &* planeStride &+ x] = Int16(truncatingIfNeeded: v)
            }
            x &+= 1
        }
    }

    /// The horizontal pass specialised for the channels (1 or 3: `fits` refuses alpha) and, for
    /// the common tap counts, for a fixed number of steps, every pixel taking `stride` taps
    /// (those with fewer have zero weights past their window).
    private func filterHorizontally() {
        switch (geometry.channels, taps.stride) {
        case (1, 8): filterHorizontally(channels: 1, steps: 1)
        case (1, 16): filterHorizontally(channels: 1, steps: 2)
        case (1, 24): filterHorizontally(channels: 1, steps: 3)
        case (1, 32): filterHorizontally(channels: 1, steps: 4)
        case (1, _): filterHorizontally(channels: 1, steps: 0)
        case (_, 8): filterHorizontally(channels: 3, steps: 1)
        case (_, 16): filterHorizontally(channels: 3, steps: 2)
        case (_, 24): filterHorizontally(channels: 3, steps: 3)
        case (_, 32): filterHorizontally(channels: 3, steps: 4)
        default: filterHorizontally(channels: 3, steps: 0)
        }
    }

    /// Inlined with a constant `channels` and `steps` (0: each pixel's own count): each output
    /// sample a dot product of its plane's samples with the pixel's padded weights, eight a
    /// step, the weights loaded once for all channels; the channels' sums are then added across, rounded
    /// and clamped together, and the pixel stored as one word (`outputRow` has room past its
    /// last pixel).
    @inline(__always)
    private func filterHorizontally(channels: Int, steps: Int) {
        // SAFETY: first[x] + count[x] ≤ first[x] + stride ≤ inputWidth − 1 + stride < planeStride
        // (TapTable), so each plane read stays in its plane; weights hold outputWidth × stride values;
        // outputRow holds outputWidth × channels + 3 bytes, room for the 4-byte store of the
        // last pixel.
        let weights = taps.weights.baseAddress, firsts = taps.first.baseAddress, stride = taps.stride
        let ends = taps.count.baseAddress
        var target = outputRow.baseAddress
        let shift = Int32(Self.sampleBits + Self.weightBits)
        let half = Lanes.Long4(repeating: 1 << (shift - 1)), shifts = Lanes.Long4(repeating: shift)
        let plane0 = planes.baseAddress, plane1 = plane0 + planeStride, plane2 = plane1 + planeStride
        var w = weights
        for x in 0 ..< geometry.outputWidth {
            let first = firsts[x], end = steps == 0 ? ends[x] : 8 * steps
            var s0 = Lanes.Long4.zero, s1 = Lanes.Long4.zero, s2 = Lanes.Long4.zero
            var k = 0
            while k < end {
                let weight = Lanes.load(w + k)
                s0 &+= Lanes.multiplyAdd(Lanes.load(plane0 + (first &+ k)), weight)
                if channels == 3 {
                    s1 &+= Lanes.multiplyAdd(Lanes.load(plane1 + (first &+ k)), weight)
                    s2 &+= Lanes.multiplyAdd(Lanes.load(plane2 + (first &+ k)), weight)
                }
                k &+= 8
            }
            // (Σs0, Σs1, Σs2, Σs2): halves added, then neighbours. (A known lane, zero say,
            // would have the compiler treat the lanes one by one.)
            let c2 = s2.lowHalf &+ s2.highHalf
            let a = Lanes.Long4(lowHalf: s0.lowHalf &+ s0.highHalf, highHalf: s1.lowHalf &+ s1.highHalf)
            let b = Lanes.Long4(lowHalf: c2, highHalf: c2)
            let sums = Lanes.Long4(lowHalf: a.evenHalf, highHalf: b.evenHalf) &+ Lanes.Long4(lowHalf: a.oddHalf, highHalf: b.oddHalf)
            let value = (sums &+ half) &>> shifts
            Lanes.storeBytes(Lanes.clampToByte(value), to: target)
            target += channels
            w += stride
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

    /// (a, b, a, b, …): one pair's weights for `multiplyAdd`.
    @inline(__always)
    static func pairWeights(_ a: Int16, _ b: Int16) -> Short { Short(a, b, a, b, a, b, a, b) }

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
    static func store(_ v: SIMD4<Int16>, to p: UnsafeMutablePointer<Int16>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Int16>.self)
    }

    /// Four bytes at `p`, unaligned.
    @inline(__always)
    static func storeBytes(_ v: SIMD4<UInt8>, to p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<UInt8>.self)
    }

    /// Each lane limited to 0…255, as bytes: lanes above 255 are set to all ones and negative
    /// lanes to zero with sign masks, then the low byte kept (comparisons and selects would
    /// not all become vector instructions).
    @inline(__always)
    static func clampToByte(_ v: Long4) -> SIMD4<UInt8> {
        let above = (Long4(repeating: 255) &- v) &>> 31, negative = v &>> 31
        let c = (v | above) & ~negative & Long4(repeating: 255)
        return SIMD4<UInt8>(UInt8(truncatingIfNeeded: c[0]), UInt8(truncatingIfNeeded: c[1]),
                            UInt8(truncatingIfNeeded: c[2]), UInt8(truncatingIfNeeded: c[3]))
    }

    /// Two vectors of 32-bit values that fit 16 bits, as one vector of 16-bit lanes.
    @inline(__always)
    static func narrow(_ a: Long4, _ b: Long4) -> Short {
        Short(Int16(truncatingIfNeeded: a[0]), Int16(truncatingIfNeeded: a[1]), Int16(truncatingIfNeeded: a[2]),
              Int16(truncatingIfNeeded: a[3]), Int16(truncatingIfNeeded: b[0]), Int16(truncatingIfNeeded: b[1]),
              Int16(truncatingIfNeeded: b[2]), Int16(truncatingIfNeeded: b[3]))
    }

    /// Eight interleaved pixels of three channels (r0 g0 b0 r1 … b7, four values per vector)
    /// as three vectors of one channel each, narrowed to 16 bits.
    @inline(__always)
    static func deinterleave(_ v0: Long4, _ v1: Long4, _ v2: Long4, _ v3: Long4, _ v4: Long4,
                             _ v5: Long4) -> (Short, Short, Short) {
        let r = narrow(Long4(v0[0], v0[3], v1[2], v2[1]), Long4(v3[0], v3[3], v4[2], v5[1]))
        let g = narrow(Long4(v0[1], v1[0], v1[3], v2[2]), Long4(v3[1], v4[0], v4[3], v5[2]))
        let b = narrow(Long4(v0[2], v1[1], v2[0], v2[3]), Long4(v3[2], v4[1], v5[0], v5[3]))
        return (r, g, b)
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
