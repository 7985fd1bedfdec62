import PareCore
import PareWebP
import Testing
import TestSupport

/// What `init` reports: metadata, chunk lists, frame header facts, animation counts.
@Suite struct InfoTests {
    @Test func metadataChunks() throws {
        let decoder = try WebPDecoder(source: MemoryByteSource(fixture("fx-meta.webp")), ledger: MemoryLedger())
        let info = decoder.info
        #expect(info.iccProfile?.count == 132)
        #expect(info.exif.map { Array($0.prefix(4)) } == Array("Exif".utf8))
        #expect(info.xmp.map { String(decoding: $0, as: UTF8.self) } == "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>")
        #expect(info.chunks.map { String(decoding: $0.fourCCBytes, as: UTF8.self) } == ["VP8X", "ICCP", "VP8 ", "EXIF", "XMP "])
        #expect(info.chunks.first?.offset == 12)
        #expect(info.chunks.first?.size == 10)
        #expect(info.extendedFlags == 0x2C)
        #expect(decoder.outputFormat == .rgb8)
    }

    @Test func lossyFrameFacts() throws {
        let decoder = try WebPDecoder(source: MemoryByteSource(fixture("fx-lossy-segments.webp")), ledger: MemoryLedger())
        let vp8 = try #require(decoder.info.vp8)
        #expect(vp8.width == 64 && vp8.height == 48)
        #expect(vp8.segmentationEnabled)
        #expect(!vp8.simpleFilter)
        #expect(vp8.filterLevel > 0)
        #expect(vp8.partitionCount == 1)
        #expect(!decoder.info.isLossless && !decoder.info.hasAlpha && !decoder.info.isAnimated)
        let simple = try WebPDecoder(source: MemoryByteSource(fixture("fx-lossy-simple.webp")), ledger: MemoryLedger())
        #expect(simple.info.vp8?.simpleFilter == true)
    }

    @Test func losslessFacts() throws {
        var decoder = try WebPDecoder(source: MemoryByteSource(fixture("fx-lossless-palette.webp")), ledger: MemoryLedger())
        #expect(decoder.info.isLossless)
        let kinds = try #require(decoder.info.vp8l).transforms.map(\.kind)
        #expect(kinds.contains(.colorIndexing))
        _ = try decoder.decodeImage()
        let alpha = try WebPDecoder(source: MemoryByteSource(fixture("fx-lossless-alpha.webp")), ledger: MemoryLedger())
        #expect(alpha.info.hasAlpha && alpha.outputFormat == .rgba8)
    }

    @Test func alphaFacts() throws {
        let decoder = try WebPDecoder(source: MemoryByteSource(fixture("fx-alpha-best.webp")), ledger: MemoryLedger())
        #expect(decoder.info.hasAlpha)
        #expect(decoder.info.alpha?.compression == 1)
        #expect(decoder.outputFormat == .rgba8)
        let raw = try WebPDecoder(source: MemoryByteSource(fixture("fx-alpha-raw.webp")), ledger: MemoryLedger())
        #expect(raw.info.alpha?.compression == 0)
    }

    @Test func animationFacts() throws {
        let decoder = try WebPDecoder(source: MemoryByteSource(fixture("fx-anim.webp")), ledger: MemoryLedger())
        #expect(decoder.info.isAnimated)
        #expect(decoder.info.frameCount == 2)
        #expect(decoder.info.loopCount == 2)
        #expect(decoder.info.width == 40 && decoder.info.height == 30)
        #expect(decoder.outputFormat == .rgba8)
        #expect(decoder.info.chunks.filter { $0.frame == 1 }.count >= 1)
    }
}
