import Testing
@testable import Pare
import PareJPEG
import TestSupport

/// Thumbnails of progressive JPEGs: the pipeline takes them like any other JPEG, at 1/8
/// the coefficient store holds DC for luma and 2×2 corners for 4:2:0 chroma, and at 1/4
/// 2×2 corners for all, first scans only.
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

    /// A 12 MP photo-like picture, written progressive with libjpeg's default script (AC
    /// bands first sent with Al = 1 or 2, then refined), to 300 and to 256. At 300 it is
    /// decoded at 1/4, where the exact sets (18.6 MB) do not fit; at 256 at 1/8, where they
    /// (luma DC with the AC coefficients block smoothing reads, about 6 MB) would fit a plain
    /// decoder's 8 MiB but not the thumbnail's 2 MiB. Either way the thumbnail path's
    /// `.preview` store keeps 2×2 corners (luma DC alone at 1/8) and never reads the
    /// refinements, and the thumbnail stays within 40 dB of the one made from exact
    /// coefficients.
    @Test(arguments: [(300, JPEGScale.quarter, 18_000_000), (256, JPEGScale.eighth, 5_000_000)])
    func progressive12MegapixelFitsInThreeMebibytes(size: Int, scale: JPEGScale, exactPeakAbove: Int) throws {
        let bytes = try Self.photoLikeProgressive(width: 4000, height: 3000)
        let result = try ThumbnailProbe.run(bytes, size: size)
        #expect(result.thumbnail.source == .mainImage(scale))
        let peak = result.thumbnail.ledgerPeakBytes
        #expect(peak <= 3 * 1024 * 1024, "ledger peak \(peak)")
        if let growth = result.heapPeakGrowth {
            #expect(growth <= peak + peak / 10 + 64 * 1024, "heap grew \(growth) B, ledger peak \(peak) B")
        }
        var options = ThumbnailOptions(maxPixelSize: size)
        options.embedded = .never
        options.jpeg.progressiveFidelity = .exact
        options.jpeg.maxExactCoefficientBytes = 64 << 20
        let exact = try ImageSource(bytes: bytes).thumbnail(options: options)
        #expect(exact.ledgerPeakBytes > exactPeakAbove)
        let comparison = Comparison.between(result.thumbnail.image.pixels, exact.image.pixels)
        #expect(comparison.psnr >= 40, "\(comparison)")
        print("progressive JPEG 4000×3000 4:2:0 → \(size): ledger peak \(peak) B (exact coefficients: "
            + "\(exact.ledgerPeakBytes) B), against the exact thumbnail \(comparison)")
    }

    /// Gradients, a texture of a few cycles per block and a little noise, encoded by Pare's
    /// own progressive encoder (libjpeg's default scan script) at quality 90.
    static func photoLikeProgressive(width: Int, height: Int) throws -> [UInt8] {
        var options = JPEGEncoderOptions(quality: 90)
        options.progressive = true
        var encoder = try JPEGEncoder(options: options, ledger: MemoryLedger(), sink: ByteArraySink())
        try encoder.begin(RowStreamHeader(width: width, height: height, format: .rgb8))
        var row = [UInt8](repeating: 0, count: width * 3)
        for y in 0 ..< height {
            for x in 0 ..< width {
                let noise = Int(truncatingIfNeeded: (UInt32(truncatingIfNeeded: x &* 7919 &+ y &* 104_729) &* 2_654_435_761) >> 28)
                let texture = ((x / 3 + y / 5) % 6) * 4
                row[3 * x] = UInt8(clamping: 40 + x * 150 / width + texture + noise)
                row[3 * x + 1] = UInt8(clamping: 60 + y * 120 / height + texture / 2 + noise)
                row[3 * x + 2] = UInt8(clamping: 200 - (x + y) * 140 / (width + height) + noise)
            }
            try row.withUnsafeBufferPointer { (row) throws(CoreError) in try encoder.consume(row, at: RowPlacement(y: y, width: width)) }
        }
        try encoder.finish()
        return encoder.sink.bytes
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
