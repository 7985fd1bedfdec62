// libFuzzer target: JPEG decode (PareJPEG) at every scale. The first input byte picks the
// scale (its low two bits: 1/8, 1/4, 1/2, 1); the rest is the file. Rows go into a sink
// that checks each row's placement and length and keeps nothing, under a 64 MiB ledger and
// default options. Any typed error is an accepted outcome; a trap, a sanitizer report, a
// timeout or an RSS blow-up is a finding.
import PareCore
import PareJPEG

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

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
        guard let header else { preconditionFailure("row before begin") }
        precondition(placement.y == nextRow, "rows out of order")
        precondition(placement.y < header.height, "row outside the image")
        precondition(placement.xOrigin == 0 && placement.xStep == 1 && placement.width == header.width, "bad placement")
        precondition(row.count == header.width * header.format.bytesPerPixel, "row length disagrees with header")
        nextRow += 1
    }
}

let ledgerLimit = 64 << 20

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let scale = JPEGScale.allCases.first { $0.rawValue == 1 << Int(data[0] & 3) } ?? .full
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let ledger = MemoryLedger(limit: ledgerLimit)
    do {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        _ = decoder.outputSize(at: scale)
        var sink = CheckingSink()
        try decoder.decode(scale: scale, into: &sink)
        for warning in decoder.warnings {
            _ = warning.description
        }
    } catch {
        _ = error.description
    }
    return 0
}
