/// What every resampling engine shares: the input's size and layout, the output's size, and
/// per axis the filter geometry (`ResamplingAxis`: which input pixels feed each output pixel,
/// with what weight). `PlainSeparableResampler`, `FixedPointResampler` and `AreaAccumulator`
/// all start from one of these, so they agree on taps, weights and windows by construction.
/// Where output pixels sit in the input beyond a resize's centre-to-centre placement, in
/// input pixels along each axis (positive: further right or down). Zero for a plain resize;
/// a picture rendered by a sampler with another convention (a gain map, which renderers
/// sample at corner-aligned positions) asks for its own.
public struct ResamplingShift: Sendable, Equatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let none = ResamplingShift(x: 0, y: 0)
}

struct ResamplingGeometry {
    let inputWidth: Int
    let inputHeight: Int
    let outputWidth: Int
    let outputHeight: Int
    let inputFormat: PixelFormat
    let channels: Int
    let horizontal: ResamplingAxis
    let vertical: ResamplingAxis

    init(input header: RowStreamHeader, outputWidth: Int, outputHeight: Int, filter: ResamplingFilter,
         shift: ResamplingShift = .none, span: BoxShrink.Span? = nil) {
        inputWidth = header.width
        inputHeight = header.height
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        inputFormat = header.format
        channels = header.format.channels
        horizontal = ResamplingAxis(inputCount: header.width, outputCount: outputWidth, filter: filter, shift: shift.x,
                                    span: span?.width)
        vertical = ResamplingAxis(inputCount: header.height, outputCount: outputHeight, filter: filter, shift: shift.y,
                                  span: span?.height)
    }

    /// Whether a sequential engine takes `row` as input row `placement.y`, the next expected
    /// being `nextRow`: rows come top to bottom, whole and unstrided; a row already seen, a
    /// short row or a misplaced one is ignored.
    func isNextSequentialRow(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement, expecting nextRow: Int) -> Bool {
        Self.isNextSequentialRow(row, at: placement, expecting: nextRow, width: inputWidth, height: inputHeight,
                                 format: inputFormat)
    }

    /// The same test for any stage that takes whole rows top to bottom (`BoxShrink` too).
    static func isNextSequentialRow(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement, expecting nextRow: Int,
                                    width: Int, height: Int, format: PixelFormat) -> Bool {
        placement.y >= nextRow && placement.y < height && placement.xOrigin == 0 && placement.xStep == 1
            && placement.width >= width && row.baseAddress != nil
            && row.count / format.bytesPerPixel >= width
    }
}

/// The output rows open while a sequential stream arrives: output row y lives in ring slot
/// y % limit from the arrival of the first input row of its window until it is emitted, the
/// rows in between being added into it. `limit` bounds the slots, and so the memory, by the
/// ratio alone (`ResamplingAxis.outputsPerInputBound`).
struct OpenOutputRows {
    let vertical: ResamplingAxis
    let limit: Int
    /// Output rows [nextEmitted, nextOpened) are open.
    private(set) var nextEmitted = 0
    private(set) var nextOpened = 0

    init(vertical: ResamplingAxis, limit: Int) {
        self.vertical = vertical
        self.limit = max(1, limit)
    }

    var open: Range<Int> { nextEmitted ..< nextOpened }

    func slot(_ outputY: Int) -> Int { outputY % limit }

    /// Opens every output row whose window starts at or before input row `y`, while slots are
    /// free; `clear(outputY, slot)` resets each new row's accumulator.
    mutating func open(through y: Int, clear: (_ outputY: Int, _ slot: Int) -> Void) {
        while nextOpened < vertical.outputCount, nextOpened - nextEmitted < limit,
              vertical.window(nextOpened).first <= y {
            clear(nextOpened, slot(nextOpened))
            nextOpened += 1
        }
    }

    /// The next output row whose window lies within the first `rowsIn` input rows, counted as
    /// emitted; nil while none is complete.
    mutating func nextComplete(rowsIn: Int) -> Int? {
        guard nextEmitted < nextOpened, vertical.window(nextEmitted).last < rowsIn else { return nil }
        nextEmitted += 1
        return nextEmitted - 1
    }
}

/// One axis's weights as a table, for an engine whose loops read them many times: output j
/// takes `count[j]` inputs from `first[j]`, with the weights at `weights[j·stride ...]`, zero
/// past its window. `count[j]` is the window's taps rounded up to a multiple of `lanes` (the
/// vector width an engine's loop steps by; 1 for none), `stride` the largest `count`. Built so
/// that first[j] + taps ≤ the input's length and count[j] ≤ stride: the loops rely on it.
/// Each kernel weight is computed once, then normalised by its `Weight` type.
struct TapTable<Weight: TapWeight> {
    let first: LedgerBuffer<Int>
    let count: LedgerBuffer<Int>
    let weights: LedgerBuffer<Weight>
    let stride: Int
    /// The largest sum of one output's weights' magnitudes, in units of one (a Lanczos3
    /// window, whose lobes go negative, sums to about 1.3 in magnitude).
    private(set) var largestMagnitude = 0.0

    init(_ axis: ResamplingAxis, lanes: Int, ledger: MemoryLedger) throws(CoreError) {
        let outputs = axis.outputCount
        stride = (axis.maxTaps + lanes - 1) / lanes * lanes
        let first = try ledger.allocate(Int.self, count: outputs, initialValue: 0)
        let count = try ledger.allocate(Int.self, count: outputs, initialValue: 0)
        let weights = try ledger.allocate(Weight.self, count: try checkedProduct(outputs, stride), initialValue: .zero)
        let stride = stride
        var largest = 0.0
        try axis.forEachOutput(ledger: ledger) { j, window, raw, sum in
            let n = window.last - window.first + 1
            // SAFETY: weights holds outputs × stride values and n ≤ maxTaps ≤ stride.
            largest = max(largest, Weight.normalise(raw, count: n, sum: sum, into: weights.baseAddress + j * stride))
            first[j] = window.first
            count[j] = (n + lanes - 1) / lanes * lanes
        }
        self.first = first
        self.count = count
        self.weights = weights
        largestMagnitude = largest
    }

    /// `largestMagnitude` of the table `axis` would give, without keeping the table.
    static func largestMagnitude(_ axis: ResamplingAxis, ledger: MemoryLedger) throws(CoreError) -> Double {
        let row = try ledger.allocate(Weight.self, count: axis.maxTaps, initialValue: .zero)
        var largest = 0.0
        try axis.forEachOutput(ledger: ledger) { _, window, raw, sum in
            largest = max(largest, Weight.normalise(raw, count: window.last - window.first + 1, sum: sum,
                                                    into: row.baseAddress))
        }
        return largest
    }
}

extension ResamplingAxis {
    /// Calls `body(j, window, raw, sum)` for each output j in order, with its window, its
    /// unnormalised weights at raw[0 ... last − first] (each kernel value computed once) and
    /// their sum (1 where it is not positive, as `weightSum` gives: a degenerate window passes
    /// its weights unscaled rather than dividing by zero).
    func forEachOutput(ledger: MemoryLedger,
                       _ body: (Int, (first: Int, last: Int), UnsafePointer<Double>, Double) -> Void) throws(CoreError) {
        let taps = maxTaps
        let raw = try ledger.allocate(Double.self, count: taps, initialValue: 0)
        for j in 0 ..< outputCount {
            let window = window(j)
            let n = window.last - window.first + 1
            precondition(window.first >= 0 && window.last < inputCount && n <= taps)
            var sum = 0.0
            for i in 0 ..< n {
                raw[i] = weight(j, window.first + i)
                sum += raw[i]
            }
            body(j, window, raw.baseAddress, sum > 0 ? sum : 1)
        }
    }
}

/// A weight type a `TapTable` holds: the plain engine's Float, the fixed-point engine's Q14
/// Int16.
protocol TapWeight: BitwiseCopyable {
    static var zero: Self { get }
    /// Writes the `count` weights at `raw`, divided by `sum`, to `target` as this type, and
    /// returns the sum of their magnitudes as written, in units of one.
    static func normalise(_ raw: UnsafePointer<Double>, count: Int, sum: Double,
                          into target: UnsafeMutablePointer<Self>) -> Double
}

extension Float: TapWeight {
    static func normalise(_ raw: UnsafePointer<Double>, count: Int, sum: Double,
                          into target: UnsafeMutablePointer<Float>) -> Double {
        var magnitude = 0.0
        for i in 0 ..< count {
            target[i] = Float(raw[i] / sum)
            magnitude += abs(Double(target[i]))
        }
        return magnitude
    }
}

extension Int16: TapWeight {
    /// Q14, quantised by `CumulativeRounding` so that the weights sum to exactly 2^14. A weight
    /// beyond 16 bits is stored truncated; its magnitude, returned, tells the engine to
    /// refuse the table.
    static func normalise(_ raw: UnsafePointer<Double>, count: Int, sum: Double,
                          into target: UnsafeMutablePointer<Int16>) -> Double {
        var rounding = CumulativeRounding(total: sum)
        var magnitude = 0
        for i in 0 ..< count {
            let q = rounding.next(raw[i])
            target[i] = Int16(truncatingIfNeeded: q)
            magnitude += abs(q)
        }
        return Double(magnitude) / Double(1 << FixedPointResampler.weightBits)
    }
}
