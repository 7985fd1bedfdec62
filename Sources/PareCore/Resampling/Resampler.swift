/// Resizes a stream of rows to `outputWidth` × `outputHeight` and passes the result on, row by
/// row, to another sink: the "resampler" stage of the thumbnail pipeline (the Architecture
/// article, Sources/Pare/Pare.docc/Architecture.md).
///
/// Sequential input is resampled separably, vertically first, in 16-bit fixed point
/// (`FixedPointResampler`): input rows are added in pairs, with their vertical weights, into
/// every open output row whose window contains them; those rows, as wide as the input, live in
/// a small ring of 32-bit accumulators, and each is filtered horizontally through weights
/// computed in `begin` and emitted the moment its last input row has arrived. Pictures with
/// alpha, and geometries whose weights would not fit 16 bits, go through
/// `PlainSeparableResampler` (horizontal first, in Float) instead. Nothing holds more than four
/// input rows, so memory never grows with the input's height; the fixed-point engine takes
///
///     4·P·(K + 2 + b) + 2·c·(inputWidth + T₈) + outputWidth·(2·W + 2·T₈ + c) + 3 + 40·K
///
/// bytes, with c the input's channels, b its bytes per sample (1 or 2), P = inputWidth·c
/// rounded up to a multiple of 8, W the
/// bytes of an `Int`, T₈ the horizontal taps per output pixel (about
/// 2·support·inputWidth/outputWidth when shrinking) rounded up to a multiple of 8, and
/// K ≤ ⌊(2·support·max(1, s) + 4)/s⌋ + 2 the open output rows, s being
/// inputHeight/outputHeight (K ≤ 12 for Lanczos3 when shrinking, whatever the ratio). The plain
/// engine takes 4·(inputWidth·c + (K + 1)·outputWidth·c + K + outputWidth·T) + W·2·outputWidth
/// + outputWidth·c₈, c₈ being the output's bytes per pixel, T the taps unrounded and K one row
/// input less (⌊(2·support·max(1, s) + 1)/s⌋ + 2).
///
/// A reduction by s ≥ 4 along an axis of 8-bit input without alpha first averages boxes of
/// ⌊s/2⌋ pixels along it (`BoxShrink`), so that the engine filters a picture about twice the
/// output's size instead of every input pixel; the engine's sizes above are then the
/// shrunk picture's, plus the box's 2·inputWidth·c bytes of column sums and one shrunk row.
///
/// Interlaced input (Adam7, `header.interlaced`) arrives in passes, rows out of order and
/// pixels `xStep` apart, so it cannot be filtered row by row. Every pixel is instead added,
/// with its exact coverage, into the output cells it overlaps (`AreaAccumulator`): the `area`
/// filter whatever `filter` says, held in output-sized accumulators and emitted by `finish()`.
/// Since Adam7 delivers each pixel exactly once, that equals the area filter over the image.
///
/// Colour is filtered premultiplied by alpha (colour·alpha), and divided back on output, so
/// that transparent pixels, whatever colour they store, do not bleed into opaque ones.
/// 8-bit formats come out unchanged; 16-bit input is read at full precision and comes out as
/// the same channels at 8 bits (`PixelFormat.eightBit`).
///
/// Callers must call `finish()` once the decoder has delivered its last row. For sequential
/// input it emits whatever rows a truncated stream left open, repeating the last row that
/// arrived (rows skipped in the middle are filled the same way); after a complete stream it
/// does nothing.
public struct Resampler<Downstream: RowSink>: RowSink {
    /// The sink that receives the output rows; take it back after `finish()` (an
    /// `ImageBuilder`'s image, say).
    public var downstream: Downstream
    private let outputWidth: Int
    private let outputHeight: Int
    private let filter: ResamplingFilter
    private let ledger: MemoryLedger
    private var mode: Mode = .idle
    /// The box that first shrinks a large reduction's sequential input (`BoxShrink`), if any.
    private var box: BoxShrink?
    /// Use `PlainSeparableResampler` for all sequential input (the oracle in tests).
    var usesPlainEngine = false
    /// Box-shrink large reductions first (`BoxShrink`); false filters every input pixel, the
    /// box's oracle in tests.
    var usesBoxShrink = true
    /// Where output pixels sit in the input beyond the centre-to-centre placement (a gain
    /// map's renderer samples at corner-aligned positions). Set before `begin`.
    public var shift = ResamplingShift.none

    private enum Mode {
        case idle
        /// Same size, 8-bit, sequential: rows pass through untouched, so nothing is lost to
        /// premultiplying and dividing back.
        case passthrough
        case sequential(FixedPointResampler)
        /// The plain engine, for tests that hold the fast one to it.
        case plain(PlainSeparableResampler)
        case interlaced(AreaAccumulator)
        case finished
    }

    public init(outputWidth: Int, outputHeight: Int, filter: ResamplingFilter, ledger: MemoryLedger,
                downstream: Downstream) {
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.filter = filter
        self.ledger = ledger
        self.downstream = downstream
    }

    /// Allocates the weights and buffers for `header`'s size and tells the downstream sink the
    /// output's. Throws `sizeOverflow` for an empty input or output, or the ledger's error.
    public mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        guard header.width > 0, header.height > 0, outputWidth > 0, outputHeight > 0 else {
            throw .sizeOverflow
        }
        mode = .idle
        box = nil
        // A large reduction is first box-shrunk; the engine then filters the shrunk rows.
        var engineInput = header
        var span: BoxShrink.Span?
        if usesBoxShrink, shift == .none, let factors = BoxShrink.factors(for: header, outputWidth: outputWidth,
                                                           outputHeight: outputHeight, filter: filter) {
            let shrink = try BoxShrink(input: header, factorX: factors.x, factorY: factors.y, ledger: ledger)
            engineInput = shrink.outputHeader
            span = shrink.span
            box = shrink
        }
        if !header.interlaced, header.format.bytesPerSample == 1, shift == .none,
           header.width == outputWidth, header.height == outputHeight {
            mode = .passthrough
        } else if header.interlaced {
            mode = .interlaced(try AreaAccumulator(input: header, outputWidth: outputWidth,
                                                   outputHeight: outputHeight, shift: shift, ledger: ledger))
        } else if !usesPlainEngine, FixedPointResampler.fits(ResamplingGeometry(
            input: engineInput, outputWidth: outputWidth, outputHeight: outputHeight, filter: filter, shift: shift,
            span: span)) {
            mode = .sequential(try FixedPointResampler(input: engineInput, outputWidth: outputWidth,
                                                       outputHeight: outputHeight, filter: filter, shift: shift,
                                                       span: span, ledger: ledger))
        } else {
            mode = .plain(try PlainSeparableResampler(input: engineInput, outputWidth: outputWidth,
                                                      outputHeight: outputHeight, filter: filter, shift: shift,
                                                      span: span, ledger: ledger))
        }
        try downstream.begin(RowStreamHeader(width: outputWidth, height: outputHeight,
                                             format: header.format.eightBit))
    }

    public mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        if var shrink = box {
            let width = shrink.outputWidth
            try shrink.add(row, at: placement) { (y, shrunk) throws(CoreError) in
                try feed(shrunk, at: RowPlacement(y: y, width: width))
            }
            box = shrink
            return
        }
        try feed(row, at: placement)
    }

    /// Hands a row (the input's, or the box's) to the engine.
    private mutating func feed(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        switch mode {
        case .passthrough:
            try downstream.consume(row, at: placement)
        case .sequential(var engine):
            try push(row, at: placement, into: &engine)
            mode = .sequential(engine)
        case .plain(var engine):
            try push(row, at: placement, into: &engine)
            mode = .plain(engine)
        case .interlaced(var accumulator):
            accumulator.add(row, at: placement)
            mode = .interlaced(accumulator)
        case .idle, .finished:
            return
        }
    }

    /// Ends the stream: emits every output row not yet emitted. Harmless when called twice.
    public mutating func finish() throws(CoreError) {
        if var shrink = box {
            box = nil
            let width = shrink.outputWidth
            try shrink.finish { (y, shrunk) throws(CoreError) in
                try feed(shrunk, at: RowPlacement(y: y, width: width))
            }
        }
        switch mode {
        case .sequential(var engine):
            try fillMissingRows(&engine)
        case .plain(var engine):
            try fillMissingRows(&engine)
        case .interlaced(let accumulator):
            for y in 0 ..< outputHeight {
                try downstream.consume(accumulator.outputRow(y), at: RowPlacement(y: y, width: outputWidth))
            }
        case .idle, .passthrough, .finished:
            break
        }
        mode = .finished
    }

    /// Gives the engine the next input row and emits what it completes. Rows must come top to
    /// bottom: a row already seen, a short row or a misplaced one is ignored; a gap is filled
    /// by repeating the row before it, emitting as it goes (see `fillMissingRows`).
    private mutating func push<Engine: SequentialResampling>(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement,
                                                             into engine: inout Engine) throws(CoreError) {
        guard engine.geometry.isNextSequentialRow(row, at: placement, expecting: engine.nextInputRow),
              let base = row.baseAddress else { return }
        try repeatPreviousRow(until: placement.y, &engine)
        engine.take(base)
        try emitReady(&engine)
    }

    /// Repeats the last row the engine took (or a zero row) as its input rows up to `end`,
    /// emitting each output row as it completes.
    private mutating func repeatPreviousRow<Engine: SequentialResampling>(until end: Int,
                                                                          _ engine: inout Engine) throws(CoreError) {
        while engine.nextInputRow < end {
            engine.repeatPreviousRow()
            try emitReady(&engine)
        }
    }

    /// Feeds the rows a truncated stream never sent, as copies of the last one that came (or
    /// of a zero row), emitting each output row as it completes: the engine keeps only a few
    /// output rows open, and opens no more until those are emitted.
    private mutating func fillMissingRows<Engine: SequentialResampling>(_ engine: inout Engine) throws(CoreError) {
        try repeatPreviousRow(until: engine.geometry.inputHeight, &engine)
        try emitReady(&engine)
    }

    private mutating func emitReady<Engine: SequentialResampling>(_ engine: inout Engine) throws(CoreError) {
        while let (y, row) = engine.nextReadyRow() {
            try downstream.consume(row, at: RowPlacement(y: y, width: outputWidth))
        }
    }
}

/// The steps `Resampler` drives on a sequential stream, whichever engine does the sums.
protocol SequentialResampling {
    init(input header: RowStreamHeader, outputWidth: Int, outputHeight: Int, filter: ResamplingFilter,
         shift: ResamplingShift, span: BoxShrink.Span?, ledger: MemoryLedger) throws(CoreError)
    var geometry: ResamplingGeometry { get }
    /// The input row the engine expects next.
    var nextInputRow: Int { get }
    /// Takes `row` (inputWidth pixels of the input format) as input row `nextInputRow`.
    mutating func take(_ row: UnsafePointer<UInt8>)
    /// Takes the row before again as input row `nextInputRow`, or zeros when no row came yet.
    mutating func repeatPreviousRow()
    /// The next completed output row and its index, or nil. The bytes stay valid until the
    /// next call.
    mutating func nextReadyRow() -> (Int, UnsafeBufferPointer<UInt8>)?
}


/// a × b for buffer sizes, or `sizeOverflow`.
func checkedProduct(_ a: Int, _ b: Int) throws(CoreError) -> Int {
    let (product, overflow) = a.multipliedReportingOverflow(by: b)
    if overflow || a < 0 || b < 0 { throw .sizeOverflow }
    return product
}

/// The resampler's working representation: Float samples on the 0…255 scale, colour
/// multiplied by alpha (so colour runs 0…255·255), alpha as is.
enum PremultipliedPixels {
    /// Converts `pixels` pixels of `format` (8- or 16-bit, big-endian) to working samples.
    static func load(_ source: UnsafePointer<UInt8>, pixels: Int, format: PixelFormat,
                     into target: UnsafeMutablePointer<Float>) {
        let channels = format.channels
        let samples = pixels * channels
        if format.bytesPerSample == 1 {
            for i in 0 ..< samples { target[i] = Float(source[i]) }
        } else {
            for i in 0 ..< samples {
                target[i] = Float(UInt16(source[2 * i]) << 8 | UInt16(source[2 * i + 1])) / 257
            }
        }
        guard format.hasAlpha else { return }
        var pixel = target
        for _ in 0 ..< pixels {
            let alpha = pixel[channels - 1]
            for c in 0 ..< channels - 1 { pixel[c] *= alpha }
            pixel += channels
        }
    }

    /// Converts working samples, each first multiplied by `scale`, back to 8-bit pixels with
    /// `channels` channels (the last one alpha when there are 2 or 4), rounding and clamping.
    static func store(_ source: UnsafePointer<Float>, scale: Float, pixels: Int, channels: Int,
                      into target: UnsafeMutablePointer<UInt8>) {
        if channels == 1 || channels == 3 {
            for i in 0 ..< pixels * channels { target[i] = byte(source[i] * scale) }
            return
        }
        let colours = channels - 1
        for p in 0 ..< pixels {
            let s = source + p * channels
            let t = target + p * channels
            let alpha = s[colours] * scale
            t[colours] = byte(alpha)
            if alpha > 0 {
                let factor = scale / alpha
                for c in 0 ..< colours { t[c] = byte(s[c] * factor) }
            } else {
                for c in 0 ..< colours { t[c] = 0 }
            }
        }
    }

    /// Rounds to the nearest byte, clamping (NaN gives 0).
    @inline(__always)
    static func byte(_ value: Float) -> UInt8 {
        if !(value > 0) { return 0 }
        if value >= 254.5 { return 255 }
        return UInt8(value + 0.5)
    }
}

extension Image {
    /// The image resampled to `width` × `height` by `filter`, counted by `ledger`: the
    /// resampler stage run over an image already in memory.
    public func resampled(width: Int, height: Int, filter: ResamplingFilter, ledger: MemoryLedger) throws(CoreError) -> Image {
        var resampler = Resampler(outputWidth: width, outputHeight: height, filter: filter, ledger: ledger,
                                  downstream: ImageBuilder(ledger: ledger))
        try send(to: &resampler)
        try resampler.finish()
        guard let image = resampler.downstream.image else { throw .sizeOverflow }
        return image
    }
}
