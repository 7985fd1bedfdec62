import PareCore
import PareTIFF
import Testing
import TestSupport

/// The fuzz target's kept inputs (Fixtures/regressions/tiff): each ends in a typed error or
/// an image, strict and lenient, with every ledger byte given back.
@Suite struct TIFFRegressionTests {
    static var folder: String { Corpus.fixtures + "/regressions/tiff" }

    @Test func everyFuzzRegressionEndsInATypedErrorOrAnImage() throws {
        let names = FileSystem.list(Self.folder).filter { !$0.hasSuffix(".md") }.sorted()
        #expect(names.count >= 3)
        for name in names {
            let bytes = try #require(FileSystem.read(Self.folder + "/" + name))
            for strict in [true, false] {
                let ledger = MemoryLedger(limit: 64 << 20)
                do {
                    var decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: ledger,
                                                  options: testOptions(strict: strict))
                    let image = try decoder.decodeImage()
                    #expect(image.width > 0, "\(name)")
                } catch {
                    #expect(!"\(error)".isEmpty)
                }
            }
        }
    }

    @Test func kwkwkCodesAndAnOverrunningStripDecodeAsLibtiffDoes() throws {
        let bytes = try #require(FileSystem.read(Self.folder + "/lzw-kwkwk-overrun.tif"))
        let image = try TIFFDecoder.decodeImage(bytes, ledger: MemoryLedger())
        #expect(image.format == .gray8 && image.width == 16 && image.height == 4)
        #expect(image.pixels.allSatisfy { $0 == 97 })
        let loop = try #require(FileSystem.read(Self.folder + "/ifd-loop-pages.tif"))
        var decoder = try TIFFDecoder(source: MemoryByteSource(loop), ledger: MemoryLedger())
        #expect(decoder.info.pageCount == 1 && decoder.warnings.count == 1)
        #expect(try decoder.decodeImage().pixels == [1, 2, 3, 4])
    }
}
