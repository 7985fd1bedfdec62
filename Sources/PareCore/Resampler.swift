/// Resizes a stream of rows to `outputWidth` × `outputHeight` and passes the result on, row by
/// row, to another sink: the "resampler" stage of the thumbnail pipeline (the Architecture
/// article, Sources/Pare/Pare.docc/Architecture.md).
///
/// Sequential input is resampled separably. Each input row is converted to Float (alpha
/// premultiplied, see below) and filtered horizontally at once, through weights computed in
/// `begin`; the filtered row is then added, with its vertical weight, into every output row
/// whose window contains it. Those open output rows live in a small ring of accumulators, and
/// each is normalised and emitted the moment its last input row has arrived. Nothing holds
/// more than one input row, so memory never grows with the input's height:
///
///     4·(inputWidth·c + outputWidth·T + outputWidth·c·(K + 1) + K) + 2·W·outputWidth + outputWidth·c₈
///
/// bytes, with c the input's channels, c₈ the output's bytes per pixel, W the bytes of an
/// `Int`, T the horizontal taps per output pixel (about 2·support·inputWidth/outputWidth when
/// shrinking) and K ≤ ⌊(2·support·max(1, s) + 1)/s⌋ + 2 the open output rows, s being
/// inputHeight/outputHeight (K ≤ 9 for Lanczos3 when shrinking, whatever the ratio).
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

    private enum Mode {
        case idle
        /// Same size, 8-bit, sequential: rows pass through untouched, so nothing is lost to
        /// premultiplying and dividing back.
        case passthrough
        case sequential(SeparableResampler)
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
        case .interlaced(let accumulator):
            for y in 0 ..< outputHeight {
                downstream.consume(accumulator.outputRow(y), at: RowPlacement(y: y, width: outputWidth))
            }
        case .idle, .passthrough, .finished:
            break
        }
        mode = .finished
    }

    private mutating func emitReady(_ engine: inout SeparableResampler) {
        while let (y, row) = engine.nextReadyRow() {
            downstream.consume(row, at: RowPlacement(y: y, width: outputWidth))
        }
    }
}

/// The sequential path of `Resampler`: horizontal pass per input row, vertical accumulation
/// into a ring of open output rows. Not generic, so its loops are compiled once, here.
struct SeparableResampler {
    private let inputWidth: Int
    private let inputHeight: Int
    private let outputWidth: Int
    private let inputFormat: PixelFormat
    private let channels: Int
    private let vertical: ResamplingAxis

    // Horizontal weights: output x takes `tapCount[x]` input pixels from `firstTap[x]`, with
    // the weights at `weights[x·tapStride ...]`, normalised. Built so that
    // firstTap + tapCount ≤ inputWidth and tapCount ≤ tapStride: the loops rely on it.
    private let firstTap: LedgerBuffer<Int>
    private let tapCount: LedgerBuffer<Int>
    private let weights: LedgerBuffer<Float>
    private let tapStride: Int

    private let inputRow: LedgerBuffer<Float>      // inputWidth × channels, premultiplied
    private let filteredRow: LedgerBuffer<Float>   // outputWidth × channels
    private let accumulators: LedgerBuffer<Float>  // ring of `openLimit` rows of outputWidth × channels
    private let weightSums: LedgerBuffer<Float>    // one per ring slot
    private let outputRow: LedgerBuffer<UInt8>     // outputWidth × output bytes per pixel
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
        let horizontal = ResamplingAxis(inputCount: header.width, outputCount: outputWidth, filter: filter)
        vertical = ResamplingAxis(inputCount: header.height, outputCount: outputHeight, filter: filter)

        tapStride = horizontal.maxTaps
        firstTap = try ledger.allocate(Int.self, count: outputWidth, initialValue: 0)
        tapCount = try ledger.allocate(Int.self, count: outputWidth, initialValue: 0)
        weights = try ledger.allocate(Float.self, count: try checkedProduct(outputWidth, tapStride), initialValue: 0)
        for x in 0 ..< outputWidth {
            let window = horizontal.window(x)
            let count = window.last - window.first + 1
            precondition(window.first >= 0 && window.last < inputWidth && count <= tapStride)
            var sum = 0.0
            for i in window.first ... window.last { sum += horizontal.weight(x, i) }
            if !(sum > 0) { sum = 1 }
            for i in window.first ... window.last {
                weights[x * tapStride + i - window.first] = Float(horizontal.weight(x, i) / sum)
            }
            firstTap[x] = window.first
            tapCount[x] = count
        }

        openLimit = vertical.maxOutputsPerInput
        let rowFloats = try checkedProduct(outputWidth, channels)
        inputRow = try ledger.allocate(Float.self, count: try checkedProduct(inputWidth, channels), initialValue: 0)
        filteredRow = try ledger.allocate(Float.self, count: rowFloats, initialValue: 0)
        accumulators = try ledger.allocate(Float.self, count: try checkedProduct(rowFloats, openLimit), initialValue: 0)
        weightSums = try ledger.allocate(Float.self, count: openLimit, initialValue: 0)
        outputRow = try ledger.allocate(UInt8.self, count: rowFloats, initialValue: 0)
    }

    /// Takes the next input row. Rows must come top to bottom: a row already seen, a short
    /// row or a misplaced one is ignored; a gap is filled by repeating the row before it.
    mutating func push(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
        let y = placement.y
        guard y >= nextInputRow, y < inputHeight, placement.xOrigin == 0, placement.xStep == 1,
              placement.width >= inputWidth, let base = row.baseAddress,
              row.count / inputFormat.bytesPerPixel >= inputWidth else { return }
        while nextInputRow < y { accumulate() }
        PremultipliedPixels.load(base, pixels: inputWidth, format: inputFormat, into: inputRow.baseAddress)
        filterHorizontally()
        haveRow = true
        accumulate()
    }

    /// Feeds the rows a truncated stream never sent, as copies of the last one that came
    /// (or of a zero row), so that every output row is completed.
    mutating func fillMissingRows() {
        if !haveRow { filteredRow.fill(with: 0) }
        while nextInputRow < inputHeight { accumulate() }
    }

    /// The next completed output row and its index, or nil. The bytes stay valid until the
    /// next call.
    mutating func nextReadyRow() -> (Int, UnsafeBufferPointer<UInt8>)? {
        guard nextEmitted < nextOpened, vertical.window(nextEmitted).last < nextInputRow else { return nil }
        let y = nextEmitted
        let slot = y % openLimit
        let sum = weightSums[slot]
        let scale: Float = sum > 0 ? 1 / sum : 0
        PremultipliedPixels.store(accumulators.baseAddress + slot * outputWidth * channels, scale: scale,
                                  pixels: outputWidth, channels: channels, into: outputRow.baseAddress)
        nextEmitted += 1
        return (y, UnsafeBufferPointer(start: outputRow.baseAddress, count: outputRow.count))
    }

    /// Adds `filteredRow`, as input row `nextInputRow`, into every output row it feeds.
    private mutating func accumulate() {
        let y = nextInputRow
        while nextOpened < vertical.outputCount, nextOpened - nextEmitted < openLimit,
              vertical.window(nextOpened).first <= y {
            let slot = nextOpened % openLimit
            (accumulators.baseAddress + slot * filteredRow.count).update(repeating: 0, count: filteredRow.count)
            weightSums[slot] = 0
            nextOpened += 1
        }
        let n = filteredRow.count
        let source = filteredRow.baseAddress
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

    private func filterHorizontally() {
        switch channels {
        case 1: filterHorizontally(channels: 1)
        case 2: filterHorizontally(channels: 2)
        case 3: filterHorizontally(channels: 3)
        default: filterHorizontally(channels: 4)
        }
    }

    /// Inlined with a constant `channels`, so that the channel loop unrolls into registers.
    @inline(__always)
    private func filterHorizontally(channels: Int) {
        let source = inputRow.baseAddress
        let target = filteredRow.baseAddress
        let weightBase = weights.baseAddress
        let firsts = firstTap.baseAddress
        let counts = tapCount.baseAddress
        for x in 0 ..< outputWidth {
            var p = source + firsts[x] * channels
            var w = weightBase + x * tapStride
            var a0: Float = 0, a1: Float = 0, a2: Float = 0, a3: Float = 0
            for _ in 0 ..< counts[x] {
                let k = w.pointee
                a0 += k * p[0]
                if channels > 1 { a1 += k * p[1] }
                if channels > 2 { a2 += k * p[2] }
                if channels > 3 { a3 += k * p[3] }
                p += channels
                w += 1
            }
            let out = target + x * channels
            out[0] = a0
            if channels > 1 { out[1] = a1 }
            if channels > 2 { out[2] = a2 }
            if channels > 3 { out[3] = a3 }
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
