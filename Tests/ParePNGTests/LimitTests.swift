import PareCore
@testable import ParePNG
import Testing
import TestSupport

/// Every limit of `PNGOptions`, the ledger's limit, and hand-made files that break a rule,
/// each rejected with the typed error that names it.
@Suite struct PNGLimitTests {
    static func grayPNG(width: Int, height: Int) throws -> [UInt8] {
        let ledger = MemoryLedger()
        var image = try Image(width: width, height: height, format: .gray8)
        var rng = SplitMix(state: 3)
        for y in 0 ..< height { image.withMutableRow(y) { row in for x in 0 ..< width { row[x] = UInt8(truncatingIfNeeded: rng.next()) } } }
        return try PNGEncoder(ledger: ledger).encode(image)
    }

    func decode(_ bytes: [UInt8], _ options: PNGOptions = PNGOptions(),
                ledger: MemoryLedger = MemoryLedger()) throws(PNGError) -> Image {
        try PNGDecoder.decodeImage(bytes, ledger: ledger, options: options)
    }

    @Test func dimensionLimits() throws {
        let png = try Self.grayPNG(width: 100, height: 10)
        var options = PNGOptions()
        options.maxWidth = 99
        #expect(throws: PNGError.limitExceeded(what: "width", value: 100, limit: 99, offset: 8)) { try decode(png, options) }
        options = PNGOptions()
        options.maxHeight = 9
        #expect(throws: PNGError.limitExceeded(what: "height", value: 10, limit: 9, offset: 8)) { try decode(png, options) }
        options = PNGOptions()
        options.maxPixels = 999
        #expect(throws: PNGError.limitExceeded(what: "pixel count", value: 1000, limit: 999, offset: 8)) {
            try decode(png, options)
        }
        options.maxPixels = 1000
        #expect(try decode(png, options).width == 100)
    }

    @Test func chunkLengthLimit() throws {
        let png = try Self.grayPNG(width: 100, height: 10)
        var options = PNGOptions()
        options.maxChunkLength = 100
        #expect(throws: PNGError.chunkTooLong(chunk: "IDAT", offset: 33, length: chunks(of: png)[1].1.count, limit: 100)) {
            try decode(png, options)
        }
        // A length over 2^31-1 is refused whatever the options say.
        options.maxChunkLength = Int.max
        let huge = pngSignature + ihdr(width: 1, height: 1, depth: 8, colorType: 0) + [0x80, 0, 0, 0] + Array("tEXt".utf8)
        #expect(throws: PNGError.chunkTooLong(chunk: "tEXt", offset: 33, length: 0x8000_0000, limit: Int(Int32.max))) {
            try decode(huge, options)
        }
    }

    @Test func zipBombStopsAtTheExcessLimit() throws {
        // A 1x1 image whose zlib stream goes on with 8 MiB of zeros after its one scanline.
        let stream = zlibCompress([UInt8](repeating: 0, count: 2 + 8 << 20))
        let bomb = pngSignature + ihdr(width: 1, height: 1, depth: 8, colorType: 0) + chunk("IDAT", stream) + chunk("IEND", [])
        #expect(bomb.count < 20_000)
        do {
            _ = try decode(bomb)
            Issue.record("zip bomb decoded")
        } catch {
            guard case let .limitExceeded(what, value, limit, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(what == "decompressed bytes after the last scanline")
            #expect(limit == 1 << 20 && value > limit)
        }
        var options = PNGOptions()
        options.maxDecompressedExcess = 16 << 20
        #expect(try decode(bomb, options).pixels == [0])
    }

    @Test(.requiresCorpus) func metadataBudget() throws {
        let root = Corpus.path
        // A zTXt that inflates far past the budget is dropped; the pixels still decode.
        let dos = try #require(FileSystem.read(root + "/png/extra/pil-png_decompression_dos.png"))
        var decoder = try PNGDecoder(source: MemoryByteSource(dos), ledger: MemoryLedger())
        var sink = CountingSink()
        try decoder.decode(into: &sink)
        #expect(sink.rows == 1)
        // Within the default budget the text is kept; under a 1 MiB budget it is dropped.
        let keptLength = decoder.metadata.texts.first?.value.utf8.count ?? 0
        #expect(keptLength > 1 << 20 && keptLength <= PNGOptions().maxMetadataBytes)
        var tight = PNGOptions()
        tight.maxMetadataBytes = 1 << 20
        var tightDecoder = try PNGDecoder(source: MemoryByteSource(dos), ledger: MemoryLedger(), options: tight)
        try tightDecoder.decode(into: &sink)
        #expect(tightDecoder.metadata.texts.isEmpty)
        #expect(tightDecoder.metadata.skipped.contains { $0.type == "zTXt" && $0.reason.contains("inflated metadata bytes") })

        let exif = try #require(FileSystem.read(root + "/exif/png/ipng-F-exif-chunk-early.png"))
        var options = PNGOptions()
        options.maxMetadataBytes = 64
        let small = try PNGDecoder(source: MemoryByteSource(exif), ledger: MemoryLedger(), options: options)
        #expect(small.metadata.exif == nil)
        #expect(small.metadata.skipped.contains { $0.type == "eXIf" && $0.reason == "over the metadata budget" })
    }

    @Test func skipReportLimit() throws {
        // Three gAMA chunks with a bad CRC: each is dropped and reported, past the limit only counted.
        var broken = chunk("gAMA", [0, 0, 0xB1, 0x8F])
        broken[broken.count - 1] ^= 1
        let png = pngSignature + ihdr(width: 1, height: 1, depth: 8, colorType: 0) + broken + broken + broken
            + chunk("IDAT", zlibCompress([0, 7])) + chunk("IEND", [])
        var options = PNGOptions()
        options.maxSkipReports = 1
        let decoder = try PNGDecoder(source: MemoryByteSource(png), ledger: MemoryLedger(), options: options)
        #expect(decoder.metadata.skipped == [PNGSkippedChunk(type: "gAMA", offset: 33, reason: "bad CRC")])
        #expect(decoder.metadata.unlistedSkips == 2)
        options.maxSkipReports = 3
        let all = try PNGDecoder(source: MemoryByteSource(png), ledger: MemoryLedger(), options: options)
        #expect(all.metadata.skipped.count == 3 && all.metadata.unlistedSkips == 0)
        #expect(try decode(png).pixels == [7])
    }

    @Test func bombHeaderIsRefusedBeforeAnyRowIsAllocated() throws {
        let bomb = BombFiles.png(width: 65535, height: 65535, completeData: false)
        let ledger = MemoryLedger()
        #expect(throws: PNGError.limitExceeded(what: "pixel count", value: 65535 * 65535, limit: 1 << 28, offset: 8)) {
            try decode(bomb, ledger: ledger)
        }
        // Only the 64 KiB read window was allocated.
        #expect(ledger.peakBytes <= 64 * 1024)
        var options = PNGOptions()
        options.maxWidth = 65534
        #expect(throws: PNGError.limitExceeded(what: "width", value: 65535, limit: 65534, offset: 8)) {
            try decode(bomb, options)
        }
    }

    @Test func ledgerLimitIsATypedError() throws {
        let png = try Self.grayPNG(width: 100, height: 10)
        #expect(throws: PNGError.self) { try decode(png, ledger: MemoryLedger(limit: 80_000)) }
        do {
            _ = try decode(png, ledger: MemoryLedger(limit: 80_000))
        } catch {
            guard case .core(.limitExceeded) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
        }
    }

    @Test func brokenFilesAreTypedErrors() throws {
        let head = pngSignature + ihdr(width: 2, height: 2, depth: 8, colorType: 0)
        let good = zlibCompress([0, 1, 2, 0, 3, 4])
        let end = chunk("IEND", [])
        #expect(try decode(head + chunk("IDAT", good) + end).pixels == [1, 2, 3, 4])

        #expect(throws: PNGError.unknownCriticalChunk(chunk: "ABCD", offset: 33)) {
            try decode(head + chunk("ABCD", []) + chunk("IDAT", good) + end)
        }
        #expect(try decode(head + chunk("abCD", [9]) + chunk("IDAT", good) + end).pixels == [1, 2, 3, 4])
        #expect(throws: PNGError.invalidPalette(offset: 33, reason: "PLTE is not allowed in a gray image")) {
            try decode(head + chunk("PLTE", [0, 0, 0]) + chunk("IDAT", good) + end)
        }
        let split = chunk("IDAT", Array(good.prefix(4))) + chunk("tEXt", Array("a\0b".utf8)) + chunk("IDAT", Array(good.dropFirst(4)))
        #expect(throws: PNGError.self) { try decode(head + split + end) }
        let twice = chunk("IDAT", good) + chunk("tEXt", Array("a\0b".utf8)) + chunk("IDAT", [])
        #expect(throws: PNGError.chunkOutOfOrder(chunk: "IDAT", offset: 33 + 12 + good.count + 15, reason: "IDAT chunks are not consecutive")) {
            try decode(head + twice + end)
        }
        let palette = pngSignature + ihdr(width: 2, height: 2, depth: 8, colorType: 3)
        #expect(throws: PNGError.missingPLTE(offset: 33)) { try decode(palette + chunk("IDAT", good) + end) }
        let badFilter = zlibCompress([7, 1, 2, 0, 3, 4])
        // Offsets of image-data errors name the end of the compressed bytes read so far.
        #expect(throws: PNGError.invalidFilterType(offset: 33 + 8 + badFilter.count, row: 0, filter: 7)) {
            try decode(head + chunk("IDAT", badFilter) + end)
        }
        for position in [0, good.count - 1] {
            var corrupt = good
            corrupt[position] ^= 0x5A
            do {
                _ = try decode(head + chunk("IDAT", corrupt) + end)
                Issue.record("corrupt zlib stream decoded (byte \(position))")
            } catch {
                if case .zlibDataError = error {} else { Issue.record("unexpected error \(error)") }
            }
        }
        #expect(throws: PNGError.truncated(offset: head.count + 12 + good.count, needed: 8, what: "chunk header")) {
            try decode(head + chunk("IDAT", good))
        }
        var badCRC = head + chunk("IDAT", good) + end
        badCRC[badCRC.count - 1] ^= 1
        #expect(throws: PNGError.crcMismatch(chunk: "IEND", offset: head.count + 12 + good.count)) { try decode(badCRC) }
        let short = zlibCompress([0, 1, 2])
        #expect(throws: PNGError.notEnoughImageData(offset: 33 + 8 + short.count, rowsMissing: 1)) {
            try decode(head + chunk("IDAT", short) + end)
        }
        // Errors read as one line naming the chunk and byte.
        #expect("\(PNGError.crcMismatch(chunk: "IDAT", offset: 1234))" == "PNG: CRC mismatch in chunk IDAT at byte 1234")
    }
}
