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
/// Rows are summed into 16-bit column sums as they arrive (vertical first: sixteen samples a
/// vector add; `factorY` is at most 257 so that 255·factorY fits), and once `factorY` rows are in, each run of `factorX` columns is averaged into
/// one output sample, rounded to nearest. The last box of a row or column may be partial
/// (the input's size need not be a multiple of the factor): it averages the pixels it has,
/// and `span` tells the filter that the shrunk picture stands for input/factor pixels, not
/// its whole number of boxes, so that output pixels sit where they would without the box.
///
/// Rows must come top to bottom; a row already seen is ignored, and rows skipped by a
/// damaged stream are left out of their box's mean (a box row that received none is left to
/// the engine, which repeats the row before it). Memory: 2·inputWidth·c bytes of sums and
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
    private let sums: LedgerBuffer<UInt16>
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
    /// The most rows a box may have: 255 × 257 = 65535, the largest 16-bit column sum.
    static let maxFactorY = 257

    static func factors(for header: RowStreamHeader, outputWidth: Int, outputHeight: Int,
                        filter: ResamplingFilter) -> (x: Int, y: Int)? {
        guard filter != .area, !header.interlaced, header.format.bytesPerSample == 1, !header.format.hasAlpha,
              outputWidth > 0, outputHeight > 0 else { return nil }
        let x = max(1, header.width / (2 * outputWidth)), y = min(maxFactorY, max(1, header.height / (2 * outputHeight)))
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
        precondition(factorY >= 1 && factorY <= Self.maxFactorY && factorX >= 1)
        sums = try ledger.allocate(UInt16.self, count: try checkedProduct(inputWidth, channels), initialValue: 0)
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
        guard ResamplingGeometry.isNextSequentialRow(input, at: placement, expecting: nextInputRow, width: inputWidth,
                                                     height: inputHeight, format: format),
              let base = input.baseAddress else { return }
        let samples = inputWidth * channels
        let target = placement.y / factorY
        if target != boxRow {
            if rowsInBox > 0 { try emitBox(emit) }
            boxRow = target
        }
        accumulate(base, samples: samples, first: rowsInBox == 0)
        rowsInBox += 1
        nextInputRow = placement.y + 1
        if nextInputRow == min(inputHeight, (boxRow + 1) * factorY) { try emitBox(emit) }
    }

    /// At the end of the stream: emits the box row a truncated stream left partial.
    mutating func finish(emit: (Int, UnsafeBufferPointer<UInt8>) throws(CoreError) -> Void) throws(CoreError) {
        if rowsInBox > 0 { try emitBox(emit) }
    }

    /// Adds an input row into the column sums, sixteen samples a step; the first row of a box
    /// row stores instead of adding, so the sums need no clearing.
    private func accumulate(_ input: UnsafePointer<UInt8>, samples: Int, first: Bool) {
        let sum = sums.baseAddress
        let vectors = samples / 16
        // SAFETY: the row and the sums hold `samples` values (checked in `add`; the sums are
        // inputWidth × channels long), and step v touches [16v, 16v + 16) ⊂ [0, samples).
        let source = UnsafeRawPointer(input), target = UnsafeMutableRawPointer(sum)
        for v in 0 ..< vectors {
            let wide = SIMD16<UInt16>(truncatingIfNeeded: source.loadUnaligned(fromByteOffset: 16 * v, as: SIMD16<UInt8>.self))
            let offset = 32 * v
            if first {
                target.storeBytes(of: wide, toByteOffset: offset, as: SIMD16<UInt16>.self)
            } else {
                target.storeBytes(of: target.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt16>.self) &+ wide,
                                  toByteOffset: offset, as: SIMD16<UInt16>.self)
            }
        }
        for i in 16 * vectors ..< samples {
            sum[i] = first ? UInt16(input[i]) : sum[i] &+ UInt16(input[i])
        }
    }

    /// Averages the current box row into `row`, hands it on and starts the next. The mean
    /// is total × ⌊2^32 / n⌉ / 2^32, rounded: within 2^−24 of total / n for any box, so
    /// that only exact halves may round either way.
    private mutating func emitBox(_ emit: (Int, UnsafeBufferPointer<UInt8>) throws(CoreError) -> Void) throws(CoreError) {
        let sum = UnsafePointer(sums.baseAddress), out = row.baseAddress
        let fullColumns = inputWidth / factorX
        func reciprocal(_ n: Int) -> UInt64 { ((1 << 32) + UInt64(n / 2)) / UInt64(n) }
        let fullReciprocal = reciprocal(factorX * rowsInBox)
        // SAFETY: box bx reads the sums of pixels [bx·factorX, bx·factorX + n) with
        // bx·factorX + n ≤ inputWidth, and writes out [bx·c, bx·c + c) with bx < outputWidth.
        for bx in 0 ..< outputWidth {
            let x0 = bx * factorX
            let n = bx < fullColumns ? factorX : inputWidth - x0
            let scale = bx < fullColumns ? fullReciprocal : reciprocal(n * rowsInBox)
            switch channels {
            case 3: Self.average3(sum + 3 * x0, pixels: n, scale: scale, into: out + 3 * bx)
            default: Self.average(sum + channels * x0, pixels: n, channels: channels, scale: scale,
                                  into: out + channels * bx)
            }
        }
        rowsInBox = 0
        try emit(boxRow, UnsafeBufferPointer(start: out, count: outputWidth * channels))
        boxRow += 1
    }

    @inline(__always)
    private static func mean(_ total: UInt64, _ scale: UInt64) -> UInt8 {
        UInt8(truncatingIfNeeded: min(255, (total &* scale &+ (1 << 31)) >> 32))
    }

    /// One box of three-channel pixels: its `pixels` column sums, interleaved, to one pixel.
    @inline(__always)
    private static func average3(_ sums: UnsafePointer<UInt16>, pixels: Int, scale: UInt64,
                                 into out: UnsafeMutablePointer<UInt8>) {
        var a: UInt64 = 0, b: UInt64 = 0, c: UInt64 = 0
        for p in 0 ..< pixels {
            a &+= UInt64(sums[3 &* p])
            b &+= UInt64(sums[3 &* p &+ 1])
            c &+= UInt64(sums[3 &* p &+ 2])
        }
        out[0] = mean(a, scale)
        out[1] = mean(b, scale)
        out[2] = mean(c, scale)
    }

    /// The same for any number of channels.
    @inline(__always)
    private static func average(_ sums: UnsafePointer<UInt16>, pixels: Int, channels: Int, scale: UInt64,
                                into out: UnsafeMutablePointer<UInt8>) {
        for channel in 0 ..< channels {
            var total: UInt64 = 0
            for p in 0 ..< pixels { total &+= UInt64(sums[channels &* p &+ channel]) }
            out[channel] = mean(total, scale)
        }
    }
}
