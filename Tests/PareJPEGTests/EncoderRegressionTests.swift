import PareCore
import Testing
import TestSupport
@testable import PareJPEG

/// Replays `Fixtures/regressions/encoder/` the way `Fuzz/encoder.swift` runs an input, read by
/// the same `EncoderFuzzRequest`: eight request bytes, the rest pixels repeated to fill the
/// image. Every encode must succeed and decode without a
/// warning at its size, the optimized, progressive or restart-marked file to the baseline
/// file's pixels, with the ledger back to zero.
@Suite struct EncoderRegressionTests {
    static func decode(_ bytes: [UInt8], ledger: MemoryLedger) throws -> (Image, [String]) {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        var builder = ImageBuilder(ledger: ledger)
        try decoder.decode(scale: .full, into: &builder)
        return (try #require(builder.image), decoder.warnings.map { "\($0)" })
    }

    @Test func everyRegressionEncodesAndDecodesBack() throws {
        let inputs = Regressions.inputs("encoder")
        try #require(!inputs.isEmpty, "no inputs in \(Regressions.folder("encoder"))")
        for input in inputs {
            let request = try #require(EncoderFuzzRequest(input.bytes), "\(input.name): not an encoder fuzzer input")
            try #require(input.isFuzzerInput, "\(input.name): not an encoder fuzzer input (*.fuzz)")
            var options = JPEGEncoderOptions(quality: request.quality, sampling: ChromaSampling.allCases[request.samplingIndex])
            options.forceBaseline = request.forceBaseline
            if request.carriesProfile { options.iccProfile = input.bytes }
            let image = try request.image()
            let ledger = MemoryLedger(limit: 64 << 20)
            func encode(_ options: JPEGEncoderOptions) throws -> [UInt8] {
                var encoder = try JPEGEncoder(options: options, ledger: ledger, sink: ByteArraySink())
                try encoder.encode(image)
                return encoder.sink.bytes
            }
            do {
                let (reference, warnings) = try Self.decode(try encode(options), ledger: ledger)
                #expect(warnings.isEmpty && reference.width == request.width && reference.height == request.height,
                        "\(input.name): \(warnings)")
                (options.optimizeHuffmanTables, options.progressive) = (request.optimize, request.progressive)
                if request.restartEveryMCUs { options.restartInterval = .mcus(request.restart) }
                if request.restartEveryRows { options.restartInterval = .mcuRows(request.restart) }
                if options.optimizeHuffmanTables || options.progressive || options.restartInterval != nil {
                    let (other, warnings) = try Self.decode(try encode(options), ledger: ledger)
                    #expect(warnings.isEmpty && other.pixels == reference.pixels, "\(input.name): \(warnings)")
                }
            }
            #expect(ledger.currentBytes == 0, "\(input.name)")
        }
    }
}
