// libFuzzer target: WebP decode (PareWebP). Each input is decoded under a 64 MiB ledger
// twice: strict (the default) into a sink that checks each row's placement and length and
// keeps nothing, then lenient (`strict = false`) into an ImageBuilder. Any typed error is an
// accepted outcome; a trap, a sanitizer report, a timeout or an RSS blow-up is a finding. The
// ledger must be back to zero after each decode.
import PareCore
import PareWebP

/// Checks what the decoder promises a sink (begin once, then rows inside the announced image,
/// top to bottom, of the announced length) and keeps nothing.
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
        precondition(placement.y >= nextRow && placement.y < header.height, "row out of order or outside the image")
        precondition(placement.xOrigin == 0 && placement.xStep == 1 && placement.width == header.width, "bad placement")
        precondition(row.count == placement.width * header.format.bytesPerPixel, "row length disagrees with placement")
        nextRow = placement.y + 1
    }
}

let ledgerLimit = 64 << 20

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let ledger = MemoryLedger(limit: ledgerLimit)
    do {
        var decoder = try WebPDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        var sink = CheckingSink()
        try decoder.decode(into: &sink)
    } catch {
        _ = error.description
    }
    precondition(ledger.currentBytes == 0, "ledger bytes not released after decode")

    var options = WebPOptions()
    options.strict = false
    let imageLedger = MemoryLedger(limit: ledgerLimit)
    do {
        var decoder = try WebPDecoder(source: MemoryByteSource(bytes), ledger: imageLedger, options: options)
        let format = decoder.outputFormat
        let image = try decoder.decodeImage()
        precondition(image.format == format, "output format differs from outputFormat")
        precondition(image.width == decoder.info.width && image.height == decoder.info.height, "size differs from info")
    } catch {
        _ = error.description
    }
    return 0
}
