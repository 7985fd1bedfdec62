// libFuzzer target: JPEG decode (PareJPEG), baseline and progressive, at every scale. The
// first input byte picks the decode: its low two bits the scale (1/8, 1/4, 1/2, 1), bit 2 a
// second decode with the same decoder at the scale above (1/1 wraps to 1/8), bit 3 strict
// mode, bit 4 a progressive store with no budget for exact sets (corners), bit 5 with it
// `ProgressiveFidelity.preview` (first scans only, as thumbnails decode); the rest is the file. Rows go into a sink
// (Fuzz/shared/SequentialCheckingSink.swift) that checks each row's placement and
// length and keeps nothing, under a 64 MiB ledger. Any typed error is an accepted outcome; a
// trap, a sanitizer report, a timeout or an RSS blow-up is a finding, and so is a ledger that
// is not back to zero after the decoder is gone.
import PareCore
import PareJPEG

let ledgerLimit = 64 << 20

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let request = Int(data[0])
    let scales: [JPEGScale] = [.eighth, .quarter, .half, .full]
    var options = JPEGOptions()
    options.strict = request & 8 != 0
    if request & 16 != 0 {
        options.maxExactCoefficientBytes = 0
        if request & 32 != 0 { options.progressiveFidelity = .preview }
    }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let ledger = MemoryLedger(limit: ledgerLimit)
    do {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
        _ = decoder.info.colorSpace
        var passes = [scales[request & 3]]
        if request & 4 != 0 { passes.append(scales[(request + 1) & 3]) }
        for scale in passes {
            let expected = decoder.outputSize(at: scale)
            var sink = CheckingSink()
            try decoder.decode(scale: scale, into: &sink)
            precondition(sink.header?.width == expected.width && sink.header?.height == expected.height,
                         "decoded size differs from outputSize(at:)")
            precondition(sink.nextRow == expected.height, "rows missing")
            precondition(decoder.bytesRead <= bytes.count, "read past the input")
        }
        for warning in decoder.warnings {
            _ = warning.description
        }
    } catch {
        _ = error.description
    }
    precondition(ledger.currentBytes == 0, "ledger bytes still held after the decode")
    return 0
}
