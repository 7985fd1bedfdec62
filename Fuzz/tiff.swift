// libFuzzer target: TIFF decode (PareTIFF). Each input is decoded under a 64 MiB ledger and a
// 4-megapixel limit (a 22 KB Deflate strip of a 4096×4096 image is legitimately 16 million
// pixels of work, over the 2 s budget under ASan), strictly into a sink that checks each row's
// placement and discards it, and leniently into an ImageBuilder. Any typed error is an accepted outcome;
// a trap, a sanitizer report, a timeout or an RSS blow-up is a finding.
import PareCore
import PareTIFF

/// Checks what the decoder promises a sink (rows inside the announced image, top to
/// bottom, of the announced length) and keeps nothing.
struct CheckingSink: RowSink {
    var header: RowStreamHeader?
    var nextRow = 0

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        precondition(self.header == nil, "begin called twice")
        precondition(header.width > 0 && header.height > 0, "empty image announced")
        self.header = header
    }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        guard let header else { preconditionFailure("row before begin") }
        precondition(placement.y == nextRow, "rows out of order")
        precondition(placement.y < header.height, "row outside the image")
        precondition(placement.xOrigin == 0 && placement.xStep == 1 && placement.width == header.width, "bad placement")
        precondition(row.count == placement.width * header.format.bytesPerPixel, "row length disagrees with placement")
        nextRow += 1
    }
}

let ledgerLimit = 64 << 20

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTIFF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for strict in [true, false] {
        var options = TIFFOptions()
        options.strict = strict
        options.maxPixels = 1 << 22
        let ledger = MemoryLedger(limit: ledgerLimit)
        do {
            var decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
            if strict {
                var sink = CheckingSink()
                try decoder.decode(into: &sink)
            } else {
                var builder = ImageBuilder(ledger: ledger)
                try decoder.decode(into: &builder)
                _ = decoder.warnings.map { $0.description }
            }
        } catch {
            _ = error.description
            _ = error.caseFields
        }
        precondition(strict || ledger.currentBytes >= 0, "ledger")
    }
    return 0
}
