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

/// `bytes` with the CRC of every whole chunk after the signature set to match its type and
/// data (PNG 3rd ed. §5.3), walking the length fields until one runs past the end.
func withFixedCRCs(_ bytes: [UInt8]) -> [UInt8] {
    var fixed = bytes
    var position = 8
    while position + 12 <= fixed.count {
        let length = Int(fixed[position]) << 24 | Int(fixed[position + 1]) << 16
            | Int(fixed[position + 2]) << 8 | Int(fixed[position + 3])
        guard length <= fixed.count - position - 12 else { break }
        let crc = fixed.withUnsafeBufferPointer {
            crc32(0, $0.baseAddress! + position + 4, uInt(length + 4))
        }
        let at = position + 8 + length
        fixed[at] = UInt8(truncatingIfNeeded: crc >> 24)
        fixed[at + 1] = UInt8(truncatingIfNeeded: crc >> 16)
        fixed[at + 2] = UInt8(truncatingIfNeeded: crc >> 8)
        fixed[at + 3] = UInt8(truncatingIfNeeded: crc)
        position = at + 4
    }
    return fixed
}

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
