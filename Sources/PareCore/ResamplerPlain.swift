/// The plain sequential path: each input row filtered horizontally, in scalar Float, then
/// added into a ring of open output rows. `SeparableResampler` does the same sums in the
/// other order (vertical first, so that the horizontal pass runs on output rows only) and
/// with vector arithmetic; this one is kept as its oracle and as the readable version of the
/// arithmetic (ResamplerTests checks that the two agree within one level at every sample).
struct PlainSeparableResampler: SequentialResampling {
    private let inputWidth: Int
    private let inputHeight: Int
    private let outputWidth: Int
    private let inputFormat: PixelFormat
    private let channels: Int
    private let vertical: ResamplingAxis
    private let horizontal: TapTable

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
        horizontal = try TapTable(ResamplingAxis(inputCount: header.width, outputCount: outputWidth, filter: filter),
                                  ledger: ledger)
        vertical = ResamplingAxis(inputCount: header.height, outputCount: outputHeight, filter: filter)
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
        let weightBase = horizontal.weights.baseAddress, tapStride = horizontal.stride
        let firsts = horizontal.first.baseAddress
        let counts = horizontal.count.baseAddress
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

