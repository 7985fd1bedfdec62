import PareCore
import PareTIFF
import Testing
import TestSupport

/// The made TIFF corpus (.build/made-corpus/tiff, made by Fixtures/make-tiff-corpus.sh from
/// the shared corpus's camera photos): every kind of file at 320 pixels wide,
/// and the corpus's real TIFFs (exif/tiff) against tiff2rgba's pictures of them.
@Suite struct TIFFCorpusTests {
    static var folder: String { Corpus.made("tiff") ?? "" }

    @Test(.requiresMadeCorpus("tiff", script: "Fixtures/make-tiff-corpus.sh"))
    func photosThroughEveryKindOfFileMatchTiff2rgba() throws {
        var total = 0
        for photo in ["Apple_iPhone_5", "Nikon_D70", "Panasonic_Lumix_DMC-LX7"] {
            let folder = Self.folder + "/" + photo
            let names = FileSystem.list(folder).filter { $0.hasSuffix(".tif") }.sorted()
            #expect(names.count >= 50, "\(photo)")
            let result = try TIFFOracleTests.compareAll(in: folder, names: names)
            #expect(result.failures == [], "\(photo)")
            total += result.byCompression.values.reduce(0, +)
        }
        print("TIFF corpus: \(total) files identical to tiff2rgba (or within the stated tolerance)")
    }

    @Test(.requiresMadeCorpus("tiff", script: "Fixtures/make-tiff-corpus.sh"))
    func realFilesMatchTiff2rgba() throws {
        let folder = Corpus.path + "/exif/tiff"
        var checked = 0
        for name in FileSystem.list(folder).sorted() {
            let stem = name.split(separator: ".").dropLast().joined(separator: ".")
            let bytes = try #require(FileSystem.read(folder + "/" + name))
            let reference = try #require(try referenceRGBA(Self.folder + "/real/" + stem + ".rgba.png"))
            var decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: testOptions())
            let image = try decoder.decodeImage()
            let difference = maxDifference(oracleRGBA(image, alpha: decoder.info.alpha), reference)
            #expect(difference <= TIFFOracleTests.tolerance(name, decoder.info), "\(name): \(difference)")
            checked += 1
        }
        #expect(checked == 7)
    }
}
