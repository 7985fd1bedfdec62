import PareCore
import PareEXIF
import PareJPEG
import TestSupport
import Testing
@testable import Pare

/// HDR photos: the gain map is never a thumbnail's source, and `--gain-map keep` carries it.
/// The fixtures are 96×64 pictures whose gain map (MPF image 1, type "undefined") is 48×32,
/// made by libultrahdr (Fixtures/gainmap/make-gainmap-files.py --fixtures).
@Suite struct GainMapThumbnailTests {
    static func source(_ name: String) throws -> ImageSource {
        try ImageSource(path: Corpus.fixtures + "/gainmap/\(name)")
    }

    /// At 48 px the gain map (48×32, the picture's aspect ratio, a tenth of the bytes) would
    /// have been the cheapest "preview": the MPF entry's type now keeps it out.
    @Test(arguments: ["synthetic-iso.jpg", "synthetic-xmp.jpg"])
    func gainMapIsNeverTheSource(_ name: String) throws {
        let source = try Self.source(name)
        let properties = try source.properties()
        #expect(properties.previews.isEmpty)
        #expect(properties.mpfImages.map(\.kind) == [.baselinePrimary, .undefined])
        #expect(properties.gainMap?.mpfIndex == 1)
        for size in [24, 48, 64] {
            for embedded in EmbeddedPolicy.allCases {
                var options = ThumbnailOptions(maxPixelSize: size)
                options.embedded = embedded
                let thumbnail = try source.thumbnail(options: options)
                #expect(thumbnail.source != .mpfPreview(index: 1), "\(size) \(embedded)")
                #expect(thumbnail.image.format == .rgb8)
                #expect(thumbnail.image.width == size)
                #expect(thumbnail.gainMap == nil)
            }
        }
    }

    /// The kept map's placement against the renderer's corner-aligned sampling, worked out
    /// by hand: a quarter-size source map decoded whole under a thumbnail map of the same
    /// size as the picture is read 3/8 of a map pixel further on (renderer at x / 4, a resize
    /// at (x + ½) / 4 − ½); a half-size map decoded at 1/2 moves ¼ / 2; an axis the
    /// orientation reverses, with an output map of half the picture's pixels, moves
    /// (fOut − 1) · s / (fSrc · d) more.
    @Test func keptMapIsPlacedWhereRenderersSampleIt() {
        #expect(ImageSource.gainMapShift(main: 4000, map: 1000, picture: 400, output: 400, decodedPerMapPixel: 1,
                                         flipped: false) == 0.375)
        #expect(ImageSource.gainMapShift(main: 4000, map: 2000, picture: 400, output: 400, decodedPerMapPixel: 2,
                                         flipped: true) == 0.125)
        // fSrc 4, s 10, fOut 2, d 1: ½ · (1 − 11/4) = −0.875, and 2.5 more reversed.
        #expect(ImageSource.gainMapShift(main: 4000, map: 1000, picture: 400, output: 200, decodedPerMapPixel: 1,
                                         flipped: false) == -0.875)
        #expect(ImageSource.gainMapShift(main: 4000, map: 1000, picture: 400, output: 200, decodedPerMapPixel: 1,
                                         flipped: true) == 1.625)
        // A map as large as its picture, kept as large: nothing to move.
        #expect(ImageSource.gainMapShift(main: 800, map: 800, picture: 200, output: 200, decodedPerMapPixel: 4,
                                         flipped: true) == 0)
    }

    @Test(arguments: ["synthetic-iso.jpg", "synthetic-xmp.jpg"])
    func keptGainMapFollowsThePicture(_ name: String) throws {
        let source = try Self.source(name)
        var options = ThumbnailOptions(maxPixelSize: 40)
        options.gainMap = .keep
        let thumbnail = try source.thumbnail(options: options)
        #expect(thumbnail.warnings.isEmpty)
        #expect((thumbnail.image.width, thumbnail.image.height) == (40, 27))
        let gainMap = try #require(thumbnail.gainMap)
        // The thumbnail's size: the source's map (48×32) is larger. One channel of values:
        // gray, though libultrahdr stored it as YCbCr.
        #expect((gainMap.image.width, gainMap.image.height) == (40, 27))
        #expect(gainMap.image.format == .gray8)
        #expect(gainMap.source == (try source.properties().gainMap))

        // Larger than the map: the map keeps its own size.
        options.maxPixelSize = 96
        let full = try source.thumbnail(options: options)
        #expect((full.gainMap?.image.width, full.gainMap?.image.height) == (48, 32))

        let (bytes, warnings) = try ImageEncoding.encode(thumbnail, as: .jpeg)
        #expect(warnings.isEmpty)
        let read = try EXIFReader.readJPEG(MemoryByteSource(bytes))
        let written = try #require(read.gainMap)
        #expect((written.width, written.height) == (40, 27))
        #expect(written.isoPayload == gainMap.source.isoPayload)
        let values = try #require(written.metadata), original = try #require(gainMap.source.metadata)
        #expect(abs(values.gainMapMax[0] - original.gainMapMax[0]) < 1e-6)
        // The picture itself is the plain thumbnail's JPEG, a gain map and two segments longer.
        let plain = try ImageEncoding.encode(thumbnail.image, as: .jpeg, colour: thumbnail.colour)
        var decoder = try JPEGDecoder(source: MemoryByteSource(Array(bytes[0 ..< written.offset])), ledger: MemoryLedger())
        var builder = ImageBuilder(ledger: MemoryLedger())
        try decoder.decode(scale: .full, into: &builder)
        var plainDecoder = try JPEGDecoder(source: MemoryByteSource(plain), ledger: MemoryLedger())
        var plainBuilder = ImageBuilder(ledger: MemoryLedger())
        try plainDecoder.decode(scale: .full, into: &plainBuilder)
        #expect(builder.image?.pixels == plainBuilder.image?.pixels)
    }

    /// JFIF's luma in 16-bit fixed point: white stays white, gray stays itself.
    @Test func lumaSinkValues() throws {
        var sink = LumaSink(keepsColour: false, ledger: MemoryLedger(), downstream: ImageBuilder(ledger: MemoryLedger()))
        try sink.begin(RowStreamHeader(width: 4, height: 1, format: .rgb8))
        let row: [UInt8] = [255, 255, 255, 0, 0, 0, 100, 150, 200, 77, 77, 77]
        try row.withUnsafeBufferPointer { (row) throws(CoreError) in try sink.consume(row, at: RowPlacement(y: 0, width: 4)) }
        #expect(sink.downstream.image?.format == .gray8)
        #expect(sink.downstream.image?.pixels == [255, 0, 141, 77])

        var colour = LumaSink(keepsColour: true, ledger: MemoryLedger(), downstream: ImageBuilder(ledger: MemoryLedger()))
        try colour.begin(RowStreamHeader(width: 4, height: 1, format: .rgb8))
        try row.withUnsafeBufferPointer { (row) throws(CoreError) in try colour.consume(row, at: RowPlacement(y: 0, width: 4)) }
        #expect(colour.downstream.image?.pixels == row)
    }

    @Test func gainMapNotCarriedByPNGOrNetpbm() throws {
        var options = ThumbnailOptions(maxPixelSize: 32)
        options.gainMap = .keep
        let thumbnail = try Self.source("synthetic-iso.jpg").thumbnail(options: options)
        for format in [ImageFileFormat.png, .netpbm] {
            let (bytes, warnings) = try ImageEncoding.encode(thumbnail, as: format)
            // (Netpbm also drops the source's Display P3 profile, with its own warning.)
            #expect(warnings.last == .gainMap(.notCarried(format)))
            #expect(warnings.count == (format == .png ? 1 : 2))
            #expect(bytes == (try ImageEncoding.encode(thumbnail.image, as: format, colour: thumbnail.colour)))
        }
    }

    /// The pipeline's disk cache keeps the gain map in its JPEG entry and gives it back.
    @Test func pipelineDiskCacheKeepsTheGainMap() async throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/gainmap/synthetic-iso.jpg"))
        var options = ThumbnailOptions(maxPixelSize: 40)
        options.gainMap = .keep
        let request = ThumbnailRequest(bytes: bytes, key: "hdr", options: options)
        let directory = PipelineFixtures.temporaryDirectory()
        let first = try PipelineFixtures.pipeline { $0.diskCacheDirectory = directory }
        let made = try await first.thumbnail(request)
        await first.cacheWritesFinished()
        let second = try PipelineFixtures.pipeline { $0.diskCacheDirectory = directory }
        let cached = try await second.thumbnail(request)
        #expect(second.statistics.diskCacheHits == 1 && second.statistics.decodes == 0)
        let original = try #require(made.gainMap), restored = try #require(cached.gainMap)
        #expect((restored.image.width, restored.image.height, restored.image.format)
            == (original.image.width, original.image.height, original.image.format))
        #expect(restored.source.isoPayload == original.source.isoPayload)
        // Stored at quality 95: within a few codes of the map that was made.
        let worst = zip(restored.image.pixels, original.image.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 4)
    }

    @Test func keepWithoutAGainMapWarns() throws {
        var options = ThumbnailOptions(maxPixelSize: 32)
        options.gainMap = .keep
        let thumbnail = try ImageSource(path: EncodedThumbnailTests.sample).thumbnail(options: options)
        #expect(thumbnail.gainMap == nil)
        #expect(thumbnail.warnings.contains(.gainMap(.absent)))
        #expect(!thumbnail.isDamaged)
    }

    /// The corpus's MPF photos: the 3DS's second eye (multi-frame disparity) is no preview,
    /// the LX7's Full-HD Large Thumbnail is.
    @Test(.requiresCorpus) func corpusMPFEntriesByType() throws {
        let nintendo = try ImageSource(path: Corpus.path + "/exif/cameras/Nintendo_3DS_frozenpond.jpg").properties()
        #expect(nintendo.mpfImages.map(\.kind) == [.disparity, .disparity])
        #expect(nintendo.previews.isEmpty && nintendo.gainMap == nil)
        let panasonic = try ImageSource(path: Corpus.path + "/exif/cameras/Panasonic_Lumix_DMC-LX7.jpg").properties()
        #expect(panasonic.previews.map(\.kind) == [.mpfPreview(index: 1)])
        #expect(panasonic.gainMap == nil)
    }
}
