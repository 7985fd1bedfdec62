// A row sink for the fuzz targets of decoders that hand out rows top to bottom (jpeg, gif),
// compiled into each of them by Fuzz/run.sh.
import PareCore

/// Checks what the decoder promises a sink (each row once, top to bottom, inside the
/// announced image, of the announced length) and keeps nothing.
struct CheckingSink: RowSink {
    var header: RowStreamHeader?
    var nextRow = 0

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        precondition(header.width > 0 && header.height > 0, "empty image announced")
        self.header = header
        nextRow = 0
    }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        guard let header else { preconditionFailure("row before begin") }
        precondition(placement.y == nextRow, "rows out of order")
        precondition(placement.y < header.height, "row outside the image")
        precondition(placement.xOrigin == 0 && placement.xStep == 1 && placement.width == header.width, "bad placement")
        precondition(row.count == header.width * header.format.bytesPerPixel, "row length disagrees with header")
        nextRow += 1
    }
}
