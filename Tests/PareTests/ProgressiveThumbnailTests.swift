import Testing
@testable import Pare
import PareJPEG
import TestSupport

/// Thumbnails of progressive JPEGs: the pipeline takes them like any other JPEG, and at 1/8
/// the coefficient store holds DC for luma and 2×2 corners for 4:2:0 chroma.
@Suite struct ProgressiveThumbnailTests {
    @Test func progressive24MegapixelTo256FitsInThreeMebibytes() throws {
        let bytes = SyntheticProgressiveJPEG.make(width: 6000, height: 4000)
        let result = try ThumbnailProbe.run(bytes, size: 256)
        #expect(result.thumbnail.source == .mainImage(.eighth))
        #expect(result.thumbnail.image.width == 256 && result.thumbnail.image.height == 171)
        let peak = result.thumbnail.ledgerPeakBytes
        #expect(peak <= 3 * 1024 * 1024, "ledger peak \(peak)")
        if let growth = result.heapPeakGrowth {
            #expect(growth <= peak + peak / 10 + 64 * 1024, "heap grew \(growth) B, ledger peak \(peak) B")
        }
        print("progressive JPEG 6000×4000 4:2:0 → \(result.thumbnail.image.width)×\(result.thumbnail.image.height): ledger peak \(peak) B, heap peak growth \(result.heapPeakGrowth.map(String.init) ?? "n/a") B")
    }

    @Test(.requiresCorpus) func progressiveCorpusPhotoMakesAThumbnail() throws {
        let root = Corpus.path
        let bytes = try #require(FileSystem.read(root + "/exif/cameras/Panasonic_DMC-LC70_Lumix.jpg"))
        let source = try ImageSource(bytes: bytes)
        var options = ThumbnailOptions(maxPixelSize: 200)
        options.embedded = .never
        let thumbnail = try source.thumbnail(options: options)
        #expect(thumbnail.image.width == 200 && thumbnail.image.height == 150)
        #expect(thumbnail.source == .mainImage(.half))
    }
}
