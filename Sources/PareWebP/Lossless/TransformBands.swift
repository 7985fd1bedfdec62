import PareCore

/// The inverse transforms (WebP Lossless Bitstream §4) undone a band of rows at a time, so
/// that rows can be handed out while the entropy-coded image is still being decoded.
///
/// The decoded pixels themselves stay as they are: later backward references and colour
/// cache hits read them. Each band is copied into a work buffer and its transforms are undone
/// there, last read first. Colour indexing widens the rows, so it writes into a second
/// buffer and the two change places. The predictor (§4.1) reads the row above the band as
/// its own undoing left it, before the transforms undone after it changed that row, so the
/// band's last row is kept at that point for the next band.
///
/// Memory: two buffers of `bandRows + 1` rows and one row, at the picture's width.
struct TransformBands {
    /// Rows a band: few enough that a band stays in the cache, enough that the work of a
    /// handoff between threads is small beside a band's decoding.
    static let bandRows = 16

    let transforms: [LosslessTransform]
    /// The entropy-coded image's width (narrower than the picture after colour indexing).
    let codedWidth: Int
    /// Each `bandRows + 1` rows of the picture's width: the row above, then the band.
    let work: LedgerBuffer<UInt32>
    let spare: LedgerBuffer<UInt32>
    /// The predictor's row above the next band.
    let predictedAbove: LedgerBuffer<UInt32>

    init(transforms: [LosslessTransform], width: Int, codedWidth: Int, ledger: MemoryLedger) throws(WebPError) {
        self.transforms = transforms
        self.codedWidth = codedWidth
        do {
            work = try ledger.allocate(UInt32.self, count: (Self.bandRows + 1) * width, initialValue: 0)
            spare = try ledger.allocate(UInt32.self, count: (Self.bandRows + 1) * width, initialValue: 0)
            predictedAbove = try ledger.allocate(UInt32.self, count: width, initialValue: 0)
        } catch { throw .core(error) }
    }

    /// Rows `rows` of the picture (at most `bandRows`, following the band before) from the
    /// entropy-coded image `coded`, every transform undone: a pointer to the first of them,
    /// contiguous rows of the picture's width, valid until the next call.
    func undo(_ coded: UnsafePointer<UInt32>, rows: Range<Int>) -> UnsafePointer<UInt32> {
        // SAFETY: rows.count ≤ bandRows, so every row of a band (after the row above) lies in
        // `work` and `spare`, whose rows are as wide as the picture, the widest a transform
        // has; `coded` holds the entropy-coded image's rows up to rows.upperBound.
        var buffer = work.baseAddress, other = spare.baseAddress
        var w = codedWidth
        let n = rows.count
        (buffer + w).update(from: coded + rows.lowerBound * w, count: n * w)
        for transform in transforms.reversed() {
            switch transform.kind {
            case .predictor:
                if rows.lowerBound > 0 { buffer.update(from: predictedAbove.baseAddress, count: w) }
                transform.undoPredictor(buffer + w, firstRow: rows.lowerBound, rows: n)
                predictedAbove.baseAddress.update(from: buffer + n * w, count: w)
            case .crossColor:
                transform.undoCrossColor(buffer + w, firstRow: rows.lowerBound, rows: n)
            case .subtractGreen:
                transform.undoSubtractGreen(buffer + w, count: n * w)
            case .colorIndexing:
                transform.undoColorIndexing(from: buffer + w, to: other + transform.width, rows: n)
                swap(&buffer, &other)
                w = transform.width
            }
        }
        return UnsafePointer(buffer + w)
    }
}
