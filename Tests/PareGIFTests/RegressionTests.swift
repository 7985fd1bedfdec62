import PareCore
import PareGIF
import Testing
import TestSupport

/// The gif fuzz target's kept inputs (Fixtures/regressions/gif): each decodes, strict and
/// lenient, under the default limits, to a typed error or an image of the announced canvas,
/// with the ledger back to zero.
@Suite struct GIFRegressionTests {
    @Test func everyFuzzRegressionEndsInATypedErrorOrAnImage() throws {
        let inputs = Regressions.inputs("gif")
        #expect(!inputs.isEmpty)
        for input in inputs {
            for strict in [true, false] {
                var options = GIFOptions()
                options.strict = strict
                let ledger = MemoryLedger(limit: 64 << 20)
                do {
                    var decoder = try GIFDecoder(source: MemoryByteSource(input.bytes), ledger: ledger, options: options)
                    let image = try decoder.decodeImage()
                    #expect(image.width == decoder.width && image.height == decoder.height, "\(input.name)")
                } catch {
                    #expect(error.caseFields.offset != nil, "\(input.name): \(error)")
                }
                #expect(ledger.currentBytes == 0, "\(input.name)")
            }
        }
    }

    @Test func theTimeoutInputIsABigCanvasFromACutFrame() throws {
        let bytes = try #require(FileSystem.read(Regressions.folder("gif") + "/timeout-f340d169b0ba.gif"))
        #expect(throws: GIFError.self) { _ = try GIFDecoder.decodeImage(bytes, ledger: MemoryLedger()) }
        var options = GIFOptions()
        options.strict = false
        var decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: options)
        var sink = RowOrderSink()
        try decoder.decode(into: &sink)
        #expect((decoder.width, decoder.height) == (17664, 756))
        #expect(sink.rows.count == 756)
        #expect(decoder.info.interlaced)
        // The walk found the data cut off, and so did the decode.
        #expect(decoder.warnings.count == 2)
    }
}
