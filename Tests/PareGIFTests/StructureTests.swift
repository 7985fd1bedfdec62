import PareCore
import PareGIF
import Testing
import TestSupport

/// What `info` says: frames, loops, comments, XMP, the block map; and the streaming promises.
@Suite struct GIFStructureTests {
    static func decoder(_ name: String, folder: String = gifFixtures) throws -> GIFDecoder<MemoryByteSource> {
        let bytes = try #require(FileSystem.read(folder + "/" + name))
        return try GIFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
    }

    @Test func extensionsAreCollected() throws {
        let info = try Self.decoder("h-extensions.gif").info
        #expect(info.version == Array("89a".utf8))
        #expect(info.frameCount == 2)
        #expect(info.loopCount == 7)
        #expect(info.comments == [Array("first comment".utf8), Array(String(repeating: "second ", count: 60).utf8),
                                  Array("after".utf8)])
        #expect(info.delay == 10)
        #expect(!info.hasTransparency)
        let kinds = info.blocks.map(\.kind)
        #expect(kinds == [.header, .logicalScreenDescriptor, .globalColorTable, .application(identifier: Array("NETSCAPE2.0".utf8)),
                          .comment, .comment, .application(identifier: Array("EXAMPLE1.00".utf8)), .plainText,
                          .graphicControl, .imageDescriptor, .imageData, .comment, .graphicControl, .imageDescriptor,
                          .imageData, .trailer])
        // The blocks tile the file.
        let bytes = try #require(FileSystem.read(gifFixtures + "/h-extensions.gif"))
        var next = 0
        for block in info.blocks {
            #expect(block.offset == next)
            next = block.offset + block.size
        }
        #expect(next == bytes.count)
        #expect(info.blocks.last?.frame == nil)
        #expect(info.blocks[13].frame == 1)
    }

    @Test func theWalkCanStopAtTheFirstFrame() throws {
        let bytes = try #require(FileSystem.read(gifFixtures + "/p-animated-local-tables.gif"))
        var options = GIFOptions()
        options.walksAllBlocks = false
        let source = CountingSource(bytes)
        var decoder = try GIFDecoder(source: source, ledger: MemoryLedger(), options: options)
        #expect(decoder.info.frameCount == 1 && !decoder.info.framesCounted)
        #expect(decoder.info.blocks.last?.kind == .imageDescriptor)
        let image = try decoder.decodeImage()
        let expected = try #require(ExpectedGIF.read(gifFixtures).first { $0.name == "p-animated-local-tables.gif" })
        #expect(fnv1a64(rgbaPixels(image)) == expected.digest)
        let all = try GIFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
        #expect(all.info.frameCount == 5 && all.info.framesCounted)
    }

    @Test func emptyCommentsCannotPileUp() throws {
        let comments = [UInt8]((0 ..< 100_000).flatMap { _ in [UInt8(0x21), 0xFE, 0] })
        let frame = imageBlock(data: packCodes([(4, 3), (5, 3)]))
        let decoder = try GIFDecoder(source: MemoryByteSource(handmadeGIF(blocks: comments + frame)), ledger: MemoryLedger())
        #expect(decoder.info.comments.count == (1 << 20) / 16)
        #expect(decoder.info.droppedMetadataBlocks == 100_000 - (1 << 20) / 16)
        #expect(decoder.info.blocks.count == 100_000)
        #expect(decoder.info.unlistedBlocks == 3 + 100_000 + 3 - 100_000)
    }

    @Test func theFirstTransparentIndexHolds() throws {
        let info = try Self.decoder("h-two-gce.gif").info
        #expect(info.hasTransparency && info.transparentIndex == 2)
        #expect(info.disposal == 2)
    }

    @Test func xmpIsReadAsExiftoolReadsIt() throws {
        let info = try Self.decoder("x-xmp.gif").info
        let expected = try #require(FileSystem.read(gifFixtures + "/x-xmp.xmp"))
        #expect(info.xmp == expected)
        #expect(expected.count > 200)
    }

    @Test func commentsAndPlacement() throws {
        let comment = try Self.decoder("p-comment.gif").info
        #expect(comment.comments == [Array("made for Pare's tests".utf8)])
        let offset = try Self.decoder("im-offset.gif").info
        #expect((offset.frameLeft, offset.frameTop, offset.frameWidth, offset.frameHeight) == (7, 9, 30, 20))
        #expect(offset.screenWidth == 50 && offset.screenHeight == 40)
        let grow = try Self.decoder("h-grow.gif")
        #expect((grow.width, grow.height) == (7, 5))
        #expect(try Self.decoder("gl-interlaced.gif").info.interlaced)
        #expect(try Self.decoder("p-animated-local-tables.gif").info.frameCount == 5)
        #expect(try Self.decoder("h-local-table.gif").info.localColorCount == 8)
    }

    @Test func interlacedFramesReachTheSinkTopToBottom() throws {
        for name in ["p-interlaced.gif", "h-interlaced-small.gif", "im-offset.gif"] {
            var decoder = try Self.decoder(name)
            var sink = RowOrderSink()
            try decoder.decode(into: &sink)
            #expect(sink.header?.interlaced == false)
            #expect(sink.rows == Array(0 ..< decoder.height), "\(name)")
        }
    }

    @Test func theLedgerCountsEverythingAndGetsItAllBack() throws {
        let bytes = try #require(FileSystem.read(gifFixtures + "/p-interlaced.gif"))
        let ledger = MemoryLedger()
        do {
            var decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: ledger)
            var sink = RowOrderSink()
            try decoder.decode(into: &sink)
            // The window, the LZW table, two canvas rows, the interlaced frame's indices.
            #expect(ledger.peakBytes >= 65536 + 4096 * 6 + 50 * 33)
        }
        #expect(ledger.currentBytes == 0)
    }

    @Test func cancellationStopsTheDecode() throws {
        var decoder = try Self.decoder("p-256-colours.gif")
        decoder.cancellation = CancellationCheck { true }
        var sink = RowOrderSink()
        #expect(throws: GIFError.core(.cancelled)) { try decoder.decode(into: &sink) }
    }

    @Test(.requiresMadeCorpus("gif", script: "python3 Fixtures/make-gif-fixtures.py --corpus"))
    func sixHundredFramesAreCountedWithoutDecodingAny() throws {
        let bytes = try #require(FileSystem.read(gifCorpus + "/c-animated-600.gif"))
        let ledger = MemoryLedger()
        let clock = ContinuousClock()
        let start = clock.now
        let decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        let elapsed = clock.now - start
        #expect(decoder.info.frameCount == 600)
        #expect(decoder.info.loopCount == 0)
        #expect(decoder.info.blocks.filter { $0.kind == .imageData }.count == 600)
        // Only the read window was ever allocated: no LZW table, no row.
        #expect(ledger.peakBytes == 65536)
        #expect(elapsed < .milliseconds(500))
    }
}
