/// What every resampling engine shares: the input's size and layout, the output's size, and
/// per axis the filter geometry (`ResamplingAxis`: which input pixels feed each output pixel,
/// with what weight). `PlainSeparableResampler`, `FixedPointResampler` and `AreaAccumulator`
/// all start from one of these, so they agree on taps, weights and windows by construction.
struct ResamplingGeometry {
    let inputWidth: Int
    let inputHeight: Int
    let outputWidth: Int
    let outputHeight: Int
    let inputFormat: PixelFormat
    let channels: Int
    let horizontal: ResamplingAxis
    let vertical: ResamplingAxis

    init(input header: RowStreamHeader, outputWidth: Int, outputHeight: Int, filter: ResamplingFilter) {
        inputWidth = header.width
        inputHeight = header.height
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        inputFormat = header.format
        channels = header.format.channels
        horizontal = ResamplingAxis(inputCount: header.width, outputCount: outputWidth, filter: filter)
        vertical = ResamplingAxis(inputCount: header.height, outputCount: outputHeight, filter: filter)
    }

    /// Whether a sequential engine takes `row` as input row `placement.y`, the next expected
    /// being `nextRow`: rows come top to bottom, whole and unstrided; a row already seen, a
    /// short row or a misplaced one is ignored.
    func isNextSequentialRow(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement, expecting nextRow: Int) -> Bool {
        placement.y >= nextRow && placement.y < inputHeight && placement.xOrigin == 0 && placement.xStep == 1
            && placement.width >= inputWidth && row.baseAddress != nil
            && row.count / inputFormat.bytesPerPixel >= inputWidth
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
