/// The plain sequential path: each input row filtered horizontally, in scalar Float, then
/// added into a ring of open output rows. `FixedPointResampler` does the same sums in the
/// other order (vertical first, so that the horizontal pass runs on output rows only), in
/// 16-bit fixed point and vector arithmetic; this one is kept as its oracle and as the readable
/// version of the arithmetic (ResamplerTests checks that the two agree within one level at
/// every sample), and it takes what the fixed-point engine does not: alpha, premultiplied in
/// Float.
struct PlainSeparableResampler: SequentialResampling {
    let geometry: ResamplingGeometry
    private var rows: OpenOutputRows
    private let horizontal: TapTable<Float>

    private let inputRow: LedgerBuffer<Float>      // inputWidth × channels, premultiplied
    private let filteredRow: LedgerBuffer<Float>   // outputWidth × channels
    private let accumulators: LedgerBuffer<Float>  // ring of `rows.limit` rows of outputWidth × channels
    private let weightSums: LedgerBuffer<Float>    // one per ring slot
    private let outputRow: LedgerBuffer<UInt8>     // outputWidth × output bytes per pixel

    private(set) var nextInputRow = 0

    init(input header: RowStreamHeader, outputWidth: Int, outputHeight: Int, filter: ResamplingFilter,
         shift: ResamplingShift = .none, span: BoxShrink.Span? = nil, ledger: MemoryLedger) throws(CoreError) {
        geometry = ResamplingGeometry(input: header, outputWidth: outputWidth, outputHeight: outputHeight, filter: filter,
                                      shift: shift, span: span)
        rows = OpenOutputRows(vertical: geometry.vertical, limit: geometry.vertical.maxOutputsPerInput)
        horizontal = try TapTable(geometry.horizontal, lanes: 1, ledger: ledger)
        let rowFloats = try checkedProduct(outputWidth, geometry.channels)
        inputRow = try ledger.allocate(Float.self, count: try checkedProduct(geometry.inputWidth, geometry.channels),
                                       initialValue: 0)
        filteredRow = try ledger.allocate(Float.self, count: rowFloats, initialValue: 0)
        accumulators = try ledger.allocate(Float.self, count: try checkedProduct(rowFloats, rows.limit), initialValue: 0)
        weightSums = try ledger.allocate(Float.self, count: rows.limit, initialValue: 0)
        outputRow = try ledger.allocate(UInt8.self, count: rowFloats, initialValue: 0)
    }

    mutating func take(_ row: UnsafePointer<UInt8>) {
        PremultipliedPixels.load(row, pixels: geometry.inputWidth, format: geometry.inputFormat,
                                 into: inputRow.baseAddress)
        filterHorizontally()
        accumulate()
    }

    /// `filteredRow` still holds the row before (zeros before the first).
    mutating func repeatPreviousRow() { accumulate() }

    mutating func nextReadyRow() -> (Int, UnsafeBufferPointer<UInt8>)? {
        guard let y = rows.nextComplete(rowsIn: nextInputRow) else { return nil }
        let slot = rows.slot(y)
        let sum = weightSums[slot]
        let scale: Float = sum > 0 ? 1 / sum : 0
        // SAFETY: slot = y mod rows.limit, and the accumulators hold rows.limit rows of
        // filteredRow.count values.
        PremultipliedPixels.store(accumulators.baseAddress + slot * filteredRow.count, scale: scale,
                                  pixels: geometry.outputWidth, channels: geometry.channels,
                                  into: outputRow.baseAddress)
        return (y, UnsafeBufferPointer(start: outputRow.baseAddress, count: outputRow.count))
    }

    /// Adds `filteredRow`, as input row `nextInputRow`, into every output row it feeds.
    private mutating func accumulate() {
        let y = nextInputRow
        let n = filteredRow.count
        let sums = accumulators, weights = weightSums
        rows.open(through: y) { _, slot in
            // SAFETY: slot < rows.limit, the rows of n values the accumulators hold.
            (sums.baseAddress + slot * n).update(repeating: 0, count: n)
            weights[slot] = 0
        }
        let source = filteredRow.baseAddress
        for outputY in rows.open {
            let w = geometry.vertical.weight(outputY, y)
            if w == 0 { continue }
            let slot = rows.slot(outputY)
            let weight = Float(w)
            weightSums[slot] += weight
            let target = accumulators.baseAddress + slot * n
            for i in 0 ..< n { target[i] += weight * source[i] }
        }
        nextInputRow += 1
    }

    private func filterHorizontally() {
        switch geometry.channels {
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
        for x in 0 ..< geometry.outputWidth {
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
