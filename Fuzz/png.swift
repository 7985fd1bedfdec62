// libFuzzer target: PNG decode (ParePNG). Each input is decoded under a 64 MiB ledger as
// it is (native output), and then, with every chunk CRC recomputed so that mutations reach
// past the CRC check, twice: native output into a sink that checks each row's placement
// and discards it, and 8-bit RGBA output into an ImageBuilder. Any typed error is an
// accepted outcome; a trap, a sanitizer report, a timeout or an RSS blow-up is a finding.
import CZlib
import PareCore
import ParePNG

/// Checks what the decoder promises a sink (rows inside the announced image, of the
/// announced length) and keeps nothing.
struct CheckingSink: RowSink {
    var header: RowStreamHeader?

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        precondition(self.header == nil, "begin called twice")
        precondition(header.width > 0 && header.height > 0, "empty image announced")
        self.header = header
    }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        guard let header else { preconditionFailure("row before begin") }
        precondition(placement.y >= 0 && placement.y < header.height, "row outside the image")
        precondition(placement.width > 0 && placement.xStep > 0 && placement.xOrigin >= 0, "bad placement")
        precondition(placement.xOrigin + (placement.width - 1) * placement.xStep < header.width, "row wider than the image")
        precondition(row.count == placement.width * header.format.bytesPerPixel, "row length disagrees with placement")
    }
}

let ledgerLimit = 64 << 20

func decodeNative(_ bytes: [UInt8]) {
    let ledger = MemoryLedger(limit: ledgerLimit)
    do {
        var decoder = try PNGDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        var sink = CheckingSink()
        try decoder.decode(into: &sink)
    } catch {
        _ = error.description
    }
    precondition(ledger.currentBytes == 0, "ledger bytes not released after decode")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let original = Array(UnsafeBufferPointer(start: data, count: size))
    decodeNative(original)
    let bytes = withFixedCRCs(original)
    if bytes != original { decodeNative(bytes) }

    var options = PNGOptions()
    options.output = .rgba8
    let imageLedger = MemoryLedger(limit: ledgerLimit)
    do {
        var decoder = try PNGDecoder(source: MemoryByteSource(bytes), ledger: imageLedger, options: options)
        var builder = ImageBuilder(ledger: imageLedger)
        try decoder.decode(into: &builder)
        if let image = builder.image {
            precondition(image.format == .rgba8, "rgba8 requested, \(image.format) produced")
        }
    } catch {
        _ = error.description
    }
    return 0
}
