// libFuzzer target: GIF decode (PareGIF). Each input is decoded under a 64 MiB ledger twice:
// strict with native output into a sink that checks each row's placement and length and
// keeps nothing (Fuzz/shared/SequentialCheckingSink.swift), and lenient (strict false) as RGBA into an ImageBuilder, whose size must
// be the canvas the decoder announced. Any typed error is an accepted outcome; a trap, a
// sanitizer report, a timeout or an RSS blow-up is a finding. The ledger must be back to
// zero after each decode, and the blocks `info` lists must lie inside the input.
import PareCore
import PareGIF

let ledgerLimit = 64 << 20

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let ledger = MemoryLedger(limit: ledgerLimit)
    do {
        var decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        for block in decoder.info.blocks {
            precondition(block.offset >= 0 && block.size >= 0 && block.offset + block.size <= size, "block outside the input")
        }
        var sink = CheckingSink()
        try decoder.decode(into: &sink)
        precondition(sink.header?.interlaced == false, "GIF rows are handed out top to bottom")
        precondition(sink.nextRow == decoder.height, "rows missing without an error")
    } catch {
        _ = error.description
        _ = error.caseFields
    }
    precondition(ledger.currentBytes == 0, "ledger bytes not released after decode")

    var options = GIFOptions()
    options.strict = false
    options.output = .rgba8
    let imageLedger = MemoryLedger(limit: ledgerLimit)
    do {
        var decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: imageLedger, options: options)
        let image = try decoder.decodeImage()
        precondition(image.format == .rgba8, "rgba8 requested, \(image.format) produced")
        precondition(image.width == decoder.width && image.height == decoder.height, "image is not the canvas")
    } catch {
        _ = error.description
    }
    return 0
}
