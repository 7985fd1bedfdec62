/// The first step of a large reduction: every box of `factorX × factorY` input pixels
/// becomes their mean, so that the filter (`Resampler`'s engines) works on a picture at most
/// a few times its output's size rather than on every input pixel.
///
/// A Lanczos3 window shrinking by s spans 6·s input pixels each way, so filtering a 4000-pixel
/// picture down to 256 weighs each input sample into several output rows and columns; the
/// mean of a box costs one addition a sample. The factors leave the filter at least a factor
/// of two to remove (⌊s / 2⌋ each way, as libvips's shrink before its reduce and Pillow's
/// `reducing_gap` do), which keeps the filter's anti-aliasing where it matters: the box only
/// removes frequencies far above what the output can hold.
///
/// Rows are summed into 32-bit column sums as they arrive (vertical first: one vector add a
/// sample), and once `factorY` rows are in, each run of `factorX` columns is averaged into
/// one output sample, rounded to nearest. The last box of a row or column may be partial
/// (the input's size need not be a multiple of the factor): it averages the pixels it has,
/// and `span` tells the filter that the shrunk picture stands for input/factor pixels, not
/// its whole number of boxes, so that output pixels sit where they would without the box.
///
/// Rows must come top to bottom; a row already seen is ignored, and rows skipped by a
/// damaged stream are left out of their box's mean (a box row that received none is left to
/// the engine, which repeats the row before it). Memory: 4·inputWidth·c bytes of sums and
/// one shrunk row, nothing that grows with the height.
struct BoxShrink {
    /// The length, in shrunk pixels, that the shrunk picture stands for along each axis:
    /// input/factor, less than the count of boxes where the last one is partial.
    struct Span: Sendable, Equatable {
        let width: Double
        let height: Double
    }

    let inputWidth: Int, inputHeight: Int, channels: Int
    let factorX: Int, factorY: Int
    let outputWidth: Int, outputHeight: Int
    private let format: PixelFormat
    /// Column sums of the rows of the current box row, inputWidth × channels.
    private let sums: LedgerBuffer<UInt32>
    /// The shrunk row handed on, outputWidth × channels.
    private let row: LedgerBuffer<UInt8>
    /// The box row being gathered, the input rows added into it, and the next input row.
    private var boxRow = 0
    private var rowsInBox = 0
    private var nextInputRow = 0

    /// The factors for shrinking `header` to outputWidth × outputHeight with `filter`, or nil
    /// where no box comes first: neither factor reaches 2, the filter is `area` (itself a
    /// box, exact over the whole picture), or the samples are not 8-bit colour without
    /// alpha (16-bit samples and alpha, premultiplied, take the filter alone).
    static func factors(for header: RowStreamHeader, outputWidth: Int, outputHeight: Int,
                        filter: ResamplingFilter) -> (x: Int, y: Int)? {
        guard filter != .area, !header.interlaced, header.format.bytesPerSample == 1, !header.format.hasAlpha,
              outputWidth > 0, outputHeight > 0 else { return nil }
        let x = max(1, header.width / (2 * outputWidth)), y = max(1, header.height / (2 * outputHeight))
        return x >= 2 || y >= 2 ? (x, y) : nil
    }

    init(input header: RowStreamHeader, factorX: Int, factorY: Int, ledger: MemoryLedger) throws(CoreError) {
        inputWidth = header.width
        inputHeight = header.height
        format = header.format
        channels = header.format.channels
        self.factorX = factorX
        self.factorY = factorY
        outputWidth = (inputWidth + factorX - 1) / factorX
        outputHeight = (inputHeight + factorY - 1) / factorY
        sums = try ledger.allocate(UInt32.self, count: try checkedProduct(inputWidth, channels), initialValue: 0)
        row = try ledger.allocate(UInt8.self, count: try checkedProduct(outputWidth, channels), initialValue: 0)
    }

    /// What the engine after the box receives.
    var outputHeader: RowStreamHeader { RowStreamHeader(width: outputWidth, height: outputHeight, format: format) }

    var span: Span {
        Span(width: Double(inputWidth) / Double(factorX), height: Double(inputHeight) / Double(factorY))
    }

    /// Adds input row `placement.y`, calling `emit` with each shrunk row it completes (and,
    /// after a gap, with the box row the gap left partial).
    mutating func add(_ input: UnsafeBufferPointer<UInt8>, at placement: RowPlacement,
                      emit: (Int, UnsafeBufferPointer<UInt8>) throws(CoreError) -> Void) throws(CoreError) {
        let samples = inputWidth * channels
        guard placement.y >= nextInputRow, placement.y < inputHeight, placement.xOrigin == 0, placement.xStep == 1,
              placement.width >= inputWidth, input.count >= samples, let base = input.baseAddress else { return }
        let target = placement.y / factorY
        if target != boxRow {
            if rowsInBox > 0 { try emitBox(emit) }
            boxRow = target
        }
        // SAFETY: the row holds at least samples = inputWidth × channels bytes (checked
        // above), and the sums exactly that many.
        let sum = sums.baseAddress
        for i in 0 ..< samples { sum[i] &+= UInt32(base[i]) }
        rowsInBox += 1
        nextInputRow = placement.y + 1
        if nextInputRow == min(inputHeight, (boxRow + 1) * factorY) { try emitBox(emit) }
    }

    /// At the end of the stream: emits the box row a truncated stream left partial.
    mutating func finish(emit: (Int, UnsafeBufferPointer<UInt8>) throws(CoreError) -> Void) throws(CoreError) {
        if rowsInBox > 0 { try emitBox(emit) }
    }

    /// Averages the current box row into `row`, hands it on and starts the next.
    private mutating func emitBox(_ emit: (Int, UnsafeBufferPointer<UInt8>) throws(CoreError) -> Void) throws(CoreError) {
        let c = channels, rows = rowsInBox
        let sum = sums.baseAddress, out = row.baseAddress
        let fullColumns = inputWidth / factorX
        let fullScale = 1 / Float(factorX * rows)
        // SAFETY: box bx reads sums [bx·factorX·c, (bx·factorX + n)·c) with bx·factorX + n ≤
        // inputWidth, and writes out [bx·c, bx·c + c) with bx < outputWidth.
        for bx in 0 ..< outputWidth {
            let x0 = bx * factorX
            let n = bx < fullColumns ? factorX : inputWidth - x0
            let scale = bx < fullColumns ? fullScale : 1 / Float(n * rows)
            for channel in 0 ..< c {
                var total: UInt32 = 0
                var i = x0 * c + channel
                for _ in 0 ..< n {
                    total &+= sum[i]
                    i += c
                }
                out[bx * c + channel] = UInt8(min(255, (Float(total) * scale).rounded()))
            }
        }
        sum.update(repeating: 0, count: inputWidth * c)
        rowsInBox = 0
        try emit(boxRow, UnsafeBufferPointer(start: out, count: outputWidth * c))
        boxRow += 1
    }
}
