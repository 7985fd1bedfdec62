// libFuzzer target: GIF decode (PareGIF). Each input is decoded under a 64 MiB ledger and a
// 1-Mpixel canvas limit twice:
// strict with native output into a sink that checks each row's placement and length and
// keeps nothing (Fuzz/shared/SequentialCheckingSink.swift), and lenient (strict false) as RGBA into an ImageBuilder, whose size must
// be the canvas the decoder announced. Any typed error is an accepted outcome; a trap, a
// sanitizer report, a timeout or an RSS blow-up is a finding. The ledger must be back to
// zero after each decode, and the blocks `info` lists must lie inside the input.
import PareCore
import PareGIF

let ledgerLimit = 64 << 20

/// Canvases up to 1 Mpixel: a 56-byte file may declare an 8.8-Mpixel canvas within the
/// default limits, which takes 1.2 s under ASan to fill twice, most of the 2 s timeout
/// (Fixtures/regressions/gif/timeout-f340d169b0ba.gif), and a 3.3-Mpixel one 0.4 s, over
/// 2 s on a loaded machine. Decoding cost is linear in the canvas; the cap keeps the
/// fuzzer's time on the parsing.
func options(strict: Bool) -> GIFOptions {
    var options = GIFOptions()
    options.maxPixels = 1 << 20
    options.strict = strict
    if !strict { options.output = .rgba8 }
    return options
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let ledger = MemoryLedger(limit: ledgerLimit)
    do {
        var decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options(strict: true))
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

    let imageLedger = MemoryLedger(limit: ledgerLimit)
    do {
        var decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: imageLedger, options: options(strict: false))
        let image = try decoder.decodeImage()
        precondition(image.format == .rgba8, "rgba8 requested, \(image.format) produced")
        precondition(image.width == decoder.width && image.height == decoder.height, "image is not the canvas")
    } catch {
        _ = error.description
    }
    return 0
}
