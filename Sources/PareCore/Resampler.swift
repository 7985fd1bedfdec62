/// Resizes a stream of rows to `outputWidth` × `outputHeight` and passes the result on, row by
/// row, to another sink: the "resampler" stage of the thumbnail pipeline (the Architecture
/// article, Sources/Pare/Pare.docc/Architecture.md).
///
/// Sequential input is resampled separably (`SeparableResampler`), vertically first. Each
/// input row is converted to Float (alpha premultiplied, see below) and added, with its
/// vertical weight, into every open output row whose window contains it; those rows, as wide
/// as the input, live in a small ring of accumulators, and each is filtered horizontally
/// through weights computed in `begin`, normalised and emitted the moment its last input row
/// has arrived. Nothing holds more than one input row, so memory never grows with the input's
/// height:
///
///     4·(inputWidth·c·(K + 1) + K + outputWidth·c + outputWidth·T) + 16·inputWidth + 2·W·outputWidth + outputWidth·c₈
///
/// bytes, with c the input's channels, c₈ the output's bytes per pixel, W the bytes of an
/// `Int`, T the horizontal taps per output pixel (about 2·support·inputWidth/outputWidth when
/// shrinking) and K ≤ ⌊(2·support·max(1, s) + 1)/s⌋ + 2 the open output rows, s being
/// inputHeight/outputHeight (K ≤ 9 for Lanczos3 when shrinking, whatever the ratio); the
/// 16·inputWidth is the row laid out a pixel to a vector for the horizontal pass (none for
/// gray).
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
    /// Use `PlainSeparableResampler` for sequential input (the oracle in tests).
    var usesPlainEngine = false

    private enum Mode {
        case idle
        /// Same size, 8-bit, sequential: rows pass through untouched, so nothing is lost to
        /// premultiplying and dividing back.
        case passthrough
        case sequential(SeparableResampler)
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
        if !header.interlaced, header.format.bytesPerSample == 1,
           header.width == outputWidth, header.height == outputHeight {
            mode = .passthrough
        } else if header.interlaced {
            mode = .interlaced(try AreaAccumulator(input: header, outputWidth: outputWidth,
                                                   outputHeight: outputHeight, ledger: ledger))
        } else if usesPlainEngine {
            mode = .plain(try PlainSeparableResampler(input: header, outputWidth: outputWidth,
                                                      outputHeight: outputHeight, filter: filter, ledger: ledger))
        } else {
            mode = .sequential(try SeparableResampler(input: header, outputWidth: outputWidth,
                                                      outputHeight: outputHeight, filter: filter, ledger: ledger))
        }
        try downstream.begin(RowStreamHeader(width: outputWidth, height: outputHeight,
                                             format: header.format.eightBit))
    }

    public mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
        switch mode {
        case .passthrough:
            downstream.consume(row, at: placement)
        case .sequential(var engine):
            engine.push(row, at: placement)
            emitReady(&engine)
            mode = .sequential(engine)
        case .plain(var engine):
            engine.push(row, at: placement)
            emitReady(&engine)
            mode = .plain(engine)
        case .interlaced(var accumulator):
            accumulator.add(row, at: placement)
            mode = .interlaced(accumulator)
        case .idle, .finished:
            return
        }
    }

    /// Ends the stream: emits every output row not yet emitted. Harmless when called twice.
    public mutating func finish() {
        switch mode {
        case .sequential(var engine):
            engine.fillMissingRows()
            emitReady(&engine)
        case .plain(var engine):
            engine.fillMissingRows()
            emitReady(&engine)
        case .interlaced(let accumulator):
            for y in 0 ..< outputHeight {
                downstream.consume(accumulator.outputRow(y), at: RowPlacement(y: y, width: outputWidth))
            }
        case .idle, .passthrough, .finished:
            break
        }
        mode = .finished
    }

    private mutating func emitReady<Engine: SequentialResampling>(_ engine: inout Engine) {
        while let (y, row) = engine.nextReadyRow() {
            downstream.consume(row, at: RowPlacement(y: y, width: outputWidth))
        }
    }
}

/// The steps `Resampler` drives on a sequential stream, whichever engine does the sums.
protocol SequentialResampling {
    init(input header: RowStreamHeader, outputWidth: Int, outputHeight: Int, filter: ResamplingFilter,
         ledger: MemoryLedger) throws(CoreError)
    /// Takes the next input row. Rows must come top to bottom: a row already seen, a short
    /// row or a misplaced one is ignored; a gap is filled by repeating the row before it.
    mutating func push(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement)
    /// Feeds the rows a truncated stream never sent, as copies of the last one that came
    /// (or of a zero row), so that every output row is completed.
    mutating func fillMissingRows()
    /// The next completed output row and its index, or nil. The bytes stay valid until the
    /// next call.
    mutating func nextReadyRow() -> (Int, UnsafeBufferPointer<UInt8>)?
}

/// One axis's weights laid out for the inner loops: output j takes `count[j]` inputs from
/// `first[j]`, with the weights at `weights[j·stride ...]`, normalised to sum to one. Built
/// so that first + count ≤ the input's length and count ≤ stride: the loops rely on it.
struct TapTable {
    let first: LedgerBuffer<Int>
    let count: LedgerBuffer<Int>
    let weights: LedgerBuffer<Float>
    let stride: Int

    init(_ axis: ResamplingAxis, ledger: MemoryLedger) throws(CoreError) {
        let outputs = axis.outputCount
        stride = axis.maxTaps
        first = try ledger.allocate(Int.self, count: outputs, initialValue: 0)
        count = try ledger.allocate(Int.self, count: outputs, initialValue: 0)
        weights = try ledger.allocate(Float.self, count: try checkedProduct(outputs, stride), initialValue: 0)
        for j in 0 ..< outputs {
            let window = axis.window(j)
            let taps = window.last - window.first + 1
            precondition(window.first >= 0 && window.last < axis.inputCount && taps <= stride)
            var sum = 0.0
            for i in window.first ... window.last { sum += axis.weight(j, i) }
            if !(sum > 0) { sum = 1 }
            for i in window.first ... window.last {
                weights[j * stride + i - window.first] = Float(axis.weight(j, i) / sum)
            }
            first[j] = window.first
            count[j] = taps
        }
    }
}

/// The sequential path of `Resampler`, vertical pass first. Each input row is converted to
/// Float and added, with its vertical weight, into every open output row whose window
/// contains it: rows as wide as the input, in a small ring (the same K as the bound on
/// `Resampler`). When an output row's last input row has arrived, it is normalised, laid out
/// one pixel to a `SIMD4<Float>`, and filtered horizontally to the output width.
///
/// Filtering vertically first puts the horizontal pass, whose windows differ from pixel to
/// pixel, on output rows only (768 instead of 1500 going from 2000×1500 to 1024×768), and
/// the vertical pass is one multiply-add per sample over whole rows, which vectorises. A
/// pixel in one vector makes each horizontal tap a single vector multiply-add for all its
/// channels. The sums are those of `PlainSeparableResampler` in another order, so outputs
/// agree with it within one level (Float rounding).
struct SeparableResampler: SequentialResampling {
    private let inputWidth: Int
    private let inputHeight: Int
    private let outputWidth: Int
    private let inputFormat: PixelFormat
    private let channels: Int
    private let vertical: ResamplingAxis
    private let horizontal: TapTable

    private let inputRow: LedgerBuffer<Float>           // inputWidth × channels, premultiplied
    private let accumulators: LedgerBuffer<Float>       // ring of `openLimit` rows of inputWidth × channels
    private let weightSums: LedgerBuffer<Float>         // one per ring slot
    private let pixels: LedgerBuffer<SIMD4<Float>>      // inputWidth: a completed row, normalised
    private let filteredRow: LedgerBuffer<Float>        // outputWidth × channels
    private let outputRow: LedgerBuffer<UInt8>          // outputWidth × output bytes per pixel
    private let openLimit: Int

    private var nextInputRow = 0
    /// Output rows [nextEmitted, nextOpened) are open, in ring slots y % openLimit.
    private var nextEmitted = 0
    private var nextOpened = 0
    private var haveRow = false

    init(input header: RowStreamHeader, outputWidth: Int, outputHeight: Int, filter: ResamplingFilter,
         ledger: MemoryLedger) throws(CoreError) {
        inputWidth = header.width
        inputHeight = header.height
        self.outputWidth = outputWidth
        inputFormat = header.format
        channels = header.format.channels
        precondition(channels >= 1 && channels <= 4)
        horizontal = try TapTable(ResamplingAxis(inputCount: header.width, outputCount: outputWidth, filter: filter),
                                  ledger: ledger)
        vertical = ResamplingAxis(inputCount: header.height, outputCount: outputHeight, filter: filter)
        // Open rows are as wide as the input: sized by the ratio alone, not limited by the
        // output's height, so that a wide picture's footprint does not depend on its height.
        openLimit = vertical.outputsPerInputBound
        let inputFloats = try checkedProduct(inputWidth, channels)
        let outputFloats = try checkedProduct(outputWidth, channels)
        inputRow = try ledger.allocate(Float.self, count: inputFloats, initialValue: 0)
        accumulators = try ledger.allocate(Float.self, count: try checkedProduct(inputFloats, openLimit), initialValue: 0)
        weightSums = try ledger.allocate(Float.self, count: openLimit, initialValue: 0)
        pixels = try ledger.allocate(SIMD4<Float>.self, count: channels == 1 ? 0 : inputWidth, initialValue: .zero)
        filteredRow = try ledger.allocate(Float.self, count: outputFloats, initialValue: 0)
        outputRow = try ledger.allocate(UInt8.self, count: outputFloats, initialValue: 0)
    }

    mutating func push(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
        let y = placement.y
        guard y >= nextInputRow, y < inputHeight, placement.xOrigin == 0, placement.xStep == 1,
              placement.width >= inputWidth, let base = row.baseAddress,
              row.count / inputFormat.bytesPerPixel >= inputWidth else { return }
        while nextInputRow < y { accumulate() }
        PremultipliedPixels.load(base, pixels: inputWidth, format: inputFormat, into: inputRow.baseAddress)
        haveRow = true
        accumulate()
    }

    mutating func fillMissingRows() {
        if !haveRow { inputRow.fill(with: 0) }
        while nextInputRow < inputHeight { accumulate() }
    }

    mutating func nextReadyRow() -> (Int, UnsafeBufferPointer<UInt8>)? {
        guard nextEmitted < nextOpened, vertical.window(nextEmitted).last < nextInputRow else { return nil }
        let y = nextEmitted
        let slot = y % openLimit
        let sum = weightSums[slot]
        let scale: Float = sum > 0 ? 1 / sum : 0
        filterHorizontally(accumulators.baseAddress + slot * inputRow.count, scale: scale)
        PremultipliedPixels.store(filteredRow.baseAddress, scale: 1, pixels: outputWidth, channels: channels,
                                  into: outputRow.baseAddress)
        nextEmitted += 1
        return (y, UnsafeBufferPointer(start: outputRow.baseAddress, count: outputRow.count))
    }

    /// Adds `inputRow`, as input row `nextInputRow`, into every output row it feeds.
    private mutating func accumulate() {
        let y = nextInputRow
        let n = inputRow.count
        while nextOpened < vertical.outputCount, nextOpened - nextEmitted < openLimit,
              vertical.window(nextOpened).first <= y {
            let slot = nextOpened % openLimit
            (accumulators.baseAddress + slot * n).update(repeating: 0, count: n)
            weightSums[slot] = 0
            nextOpened += 1
        }
        // SAFETY: inputRow holds n floats and every ring slot n floats (slot < openLimit).
        let source = inputRow.baseAddress
        for outputY in nextEmitted ..< nextOpened {
            let w = vertical.weight(outputY, y)
            if w == 0 { continue }
            let slot = outputY % openLimit
            let weight = Float(w)
            weightSums[slot] += weight
            let target = accumulators.baseAddress + slot * n
            for i in 0 ..< n { target[i] += weight * source[i] }
        }
        nextInputRow += 1
    }

    /// Filters one completed row (inputWidth × channels floats, multiplied by `scale` on the
    /// way) to `filteredRow`.
    private func filterHorizontally(_ row: UnsafePointer<Float>, scale: Float) {
        switch channels {
        case 1: filterGray(row, scale: scale)
        case 2: filterPixels(row, scale: scale, channels: 2)
        case 3: filterPixels(row, scale: scale, channels: 3)
        default: filterPixels(row, scale: scale, channels: 4)
        }
    }

    private func filterGray(_ row: UnsafePointer<Float>, scale: Float) {
        // SAFETY: first[x] + count[x] ≤ inputWidth and count[x] ≤ stride (TapTable).
        let target = filteredRow.baseAddress
        let weights = horizontal.weights.baseAddress, firsts = horizontal.first.baseAddress
        let counts = horizontal.count.baseAddress, stride = horizontal.stride
        for x in 0 ..< outputWidth {
            let p = row + firsts[x], w = weights + x * stride
            var sum: Float = 0
            for k in 0 ..< counts[x] { sum += w[k] * p[k] }
            target[x] = sum * scale
        }
    }

    /// Inlined with a constant `channels`: each pixel becomes one vector (unused lanes zero),
    /// and each tap one vector multiply-add.
    @inline(__always)
    private func filterPixels(_ row: UnsafePointer<Float>, scale: Float, channels: Int) {
        // SAFETY: `row` holds inputWidth × channels floats, `pixels` inputWidth vectors,
        // `filteredRow` outputWidth × channels floats; first[x] + count[x] ≤ inputWidth and
        // count[x] ≤ stride (TapTable).
        let vectors = pixels.baseAddress
        var p = row
        for x in 0 ..< inputWidth {
            var v = SIMD4<Float>.zero
            v[0] = p[0]
            v[1] = p[1]
            if channels > 2 { v[2] = p[2] }
            if channels > 3 { v[3] = p[3] }
            vectors[x] = v * scale
            p += channels
        }
        let target = filteredRow.baseAddress
        let weights = horizontal.weights.baseAddress, firsts = horizontal.first.baseAddress
        let counts = horizontal.count.baseAddress, stride = horizontal.stride
        var out = target
        for x in 0 ..< outputWidth {
            let source = vectors + firsts[x], w = weights + x * stride
            var sum = SIMD4<Float>.zero
            for k in 0 ..< counts[x] { sum += source[k] * w[k] }
            out[0] = sum[0]
            out[1] = sum[1]
            if channels > 2 { out[2] = sum[2] }
            if channels > 3 { out[3] = sum[3] }
            out += channels
        }
    }
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
