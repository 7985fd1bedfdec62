// libFuzzer target: JPEG encode (PareJPEG's encoder), then decode of what it wrote. The first
// eight input bytes are the request, read by `EncoderFuzzRequest`
// (Tests/TestSupport/EncoderFuzzRequest.swift, compiled in by run.sh): size, quality, pixel
// format and sampling, coding (optimized, progressive, restarts, baseline, ICC profile) and
// the restart interval. The rest are the pixels, repeated to fill the image. Every encode must succeed, and Pare's decoder must
// read the file without a warning, at the size given, with the same pixels as the baseline
// encode of the same image whatever the entropy coding; the ledger must be back to zero.
import PareCore
import PareJPEG

let ledgerLimit = 64 << 20

func decodeAll(_ bytes: [UInt8], ledger: MemoryLedger) -> Image {
    do {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        var builder = ImageBuilder(ledger: ledger)
        try decoder.decode(scale: .full, into: &builder)
        precondition(decoder.warnings.isEmpty, "decoder warned about an encoder output: \(decoder.warnings)")
        guard let image = builder.image else { preconditionFailure("no image decoded") }
        return image
    } catch {
        preconditionFailure("an encoder output does not decode: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEncoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let request = EncoderFuzzRequest(input) else { return 0 }
    var options = JPEGEncoderOptions(quality: request.quality, sampling: ChromaSampling.allCases[request.samplingIndex])
    options.forceBaseline = request.forceBaseline
    if request.carriesProfile { options.iccProfile = input }
    let ledger = MemoryLedger(limit: ledgerLimit)
    do {
        let image = try request.image()
        func encode(_ options: JPEGEncoderOptions) throws(JPEGEncodingError) -> [UInt8] {
            var encoder = try JPEGEncoder(options: options, ledger: ledger, sink: ByteArraySink())
            try encoder.encode(image)
            return encoder.sink.bytes
        }
        let baseline = try encode(options)
        let reference = decodeAll(baseline, ledger: ledger)
        precondition(reference.width == request.width && reference.height == request.height, "decoded size differs")
        options.optimizeHuffmanTables = request.optimize
        options.progressive = request.progressive
        if request.restartEveryMCUs { options.restartInterval = .mcus(request.restart) }
        if request.restartEveryRows { options.restartInterval = .mcuRows(request.restart) }
        if options.optimizeHuffmanTables || options.progressive || options.restartInterval != nil {
            let other = decodeAll(try encode(options), ledger: ledger)
            precondition(other.pixels == reference.pixels, "entropy coding changed the pixels")
        }
    } catch {
        preconditionFailure("encode failed: \(error)")
    }
    precondition(ledger.currentBytes == 0, "ledger not back to zero")
    return 0
}
