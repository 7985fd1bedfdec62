import PareCore

/// Places an animation's first frame on its canvas (WebP Container §"ANMF", "Canvas
/// assembling from frames"): rows above and below the frame and the columns beside it are
/// transparent black, as libwebp's animation decoder starts every key frame; the first frame
/// is drawn onto that empty canvas as it is, with no blending (nothing lies under it yet).
/// Rows pass through one canvas-wide row buffer.
struct CanvasPlacement<Inner: RowSink>: RowSink {
    var inner: Inner
    let canvasWidth: Int, canvasHeight: Int
    let frameX: Int, frameY: Int
    let row: LedgerBuffer<UInt8>
    var nextRow = 0

    init(inner: Inner, info: WebPInfo, ledger: MemoryLedger) throws(WebPError) {
        self.inner = inner
        canvasWidth = info.width
        canvasHeight = info.height
        frameX = info.frameX
        frameY = info.frameY
        do { row = try ledger.allocate(UInt8.self, count: canvasWidth * 4, initialValue: 0) } catch { throw .core(error) }
    }

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}

    mutating func emptyRows(upTo y: Int) throws(CoreError) {
        row.fill(with: 0)
        while nextRow < min(y, canvasHeight) {
            try inner.consume(UnsafeBufferPointer(row.buffer), at: RowPlacement(y: nextRow, width: canvasWidth))
            nextRow += 1
        }
    }

    mutating func consume(_ frameRow: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        let y = frameY + placement.y
        try emptyRows(upTo: y)
        guard y == nextRow, y < canvasHeight else { return }
        row.fill(with: 0)
        // SAFETY: n is at most the frame row's length and what is left of the canvas row after frameX.
        let n = min(placement.width * 4, frameRow.count, (canvasWidth - frameX) * 4)
        if n > 0 { (row.baseAddress + frameX * 4).update(from: frameRow.baseAddress!, count: n) }
        try inner.consume(UnsafeBufferPointer(row.buffer), at: RowPlacement(y: y, width: canvasWidth))
        nextRow += 1
    }

    /// The rows below the frame.
    mutating func finish() throws(CoreError) { try emptyRows(upTo: canvasHeight) }
}
