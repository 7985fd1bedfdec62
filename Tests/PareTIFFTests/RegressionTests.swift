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

    /// The corpus's fuzzed TIFFs (imagetestsuite, exif/malformed): each a typed error or an image.
    @Test(.requiresCorpus) func corpusFuzzedTIFFsEndInATypedErrorOrAnImage() throws {
        let folder = Corpus.path + "/exif/malformed"
        let names = FileSystem.list(folder).filter { $0.hasSuffix(".tif") || $0.hasSuffix(".tiff") }
        #expect(names.count >= 5)
        var images = 0, errors = 0
        for name in names {
            let bytes = try #require(FileSystem.read(folder + "/" + name))
            let ledger = MemoryLedger(limit: 256 << 20)
            do {
                var decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: testOptions(strict: false))
                _ = try decoder.decodeImage()
                images += 1
            } catch {
                #expect(!"\(error)".isEmpty)
                errors += 1
            }
            #expect(ledger.currentBytes == 0, "\(name)")
        }
        #expect(images + errors == names.count)
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
