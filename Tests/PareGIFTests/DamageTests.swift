import PareCore
import PareGIF
import Testing
import TestSupport

/// Cut-off files, LZW bombs, bad codes and broken structure: each a typed error with its
/// offset, or (not strict) the rows decoded so far with a warning, as Pillow shows them.
@Suite struct GIFDamageTests {
    static var lenient: GIFOptions {
        var options = GIFOptions()
        options.strict = false
        return options
    }

    struct Truncation {
        var name: String
        var length: Int
        var digest: UInt64
    }

    static var truncations: [Truncation] {
        guard let bytes = FileSystem.read(gifFixtures + "/truncated.txt") else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ").map(String.init)
            guard f.count == 3, let length = Int(f[1]), let digest = UInt64(f[2], radix: 16) else { return nil }
            return Truncation(name: f[0], length: length, digest: digest)
        }
    }

    @Test func cutOffFilesKeepTheRowsBeforeTheCutAsPillowDoes() throws {
        let cases = Self.truncations
        #expect(cases.count == 9)
        for cut in cases {
            let whole = try #require(FileSystem.read(gifFixtures + "/" + cut.name))
            let bytes = Array(whole.prefix(cut.length))
            var decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: Self.lenient)
            let image = try decoder.decodeImage()
            #expect(fnv1a64(rgbaPixels(image)) == cut.digest, "\(cut.name) cut at \(cut.length)")
            let truncated = decoder.warnings.contains {
                if case .truncated(_, _, _) = $0 { return true } else { return false }
            }
            #expect(truncated, "\(cut.name): \(decoder.warnings)")
        }
    }

    @Test func strictRefusesACutOffFrame() throws {
        let whole = try #require(FileSystem.read(gifFixtures + "/p-not-interlaced.gif"))
        let bytes = Array(whole.prefix(1000))
        // The file ends 15 bytes into a 255-byte sub-block (at 985).
        #expect(throws: GIFError.truncated(offset: 1000, needed: 240, what: "image data")) {
            _ = try GIFDecoder.decodeImage(bytes, ledger: MemoryLedger())
        }
        // init alone succeeds: the frame's descriptor is whole; the walk warns.
        let decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
        #expect(decoder.info.frameCount == 1)
        #expect(decoder.warnings == [.truncated(offset: 985, needed: 255, what: "image data")])
    }

    @Test func everyCutOfAFileIsAnErrorOrAnImage() throws {
        let whole = try #require(FileSystem.read(gifFixtures + "/p-animated-local-tables.gif"))
        for length in stride(from: 0, to: whole.count, by: 7) {
            let bytes = Array(whole.prefix(length))
            let ledger = MemoryLedger()
            do {
                var decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: Self.lenient)
                let image = try decoder.decodeImage()
                #expect(image.width == 48 && image.height == 32)
            } catch {
                #expect(error.kind == .damaged)
                #expect(error.caseFields.offset != nil)
            }
        }
    }

    @Test func anLZWBombStopsAtTheFramesPixelCount() throws {
        // A 4x2 frame whose data would expand to over 100 million pixels: the table filled
        // with ever longer runs of index 1 (code 6 is "11", 7 "111", ...), then the longest,
        // 4096 pixels, sent 25,000 times. Only the frame's 8 pixels are decoded.
        var codes: [(code: Int, width: Int)] = [(4, 3), (1, 3)]
        var width = 3, next = 6
        while next < 4096 {
            codes.append((next, width))
            next += 1
            if next == 1 << width && width < 12 { width += 1 }
        }
        codes += [(code: Int, width: Int)](repeating: (4095, 12), count: 25_000)
        let data = packCodes(codes)
        #expect(data.count > 40_000)
        let bytes = handmadeGIF(blocks: imageBlock(data: data))
        let ledger = MemoryLedger()
        let clock = ContinuousClock()
        let start = clock.now
        var decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        let image = try decoder.decodeImage()
        #expect(clock.now - start < .milliseconds(200))
        #expect(image.width == 4 && image.height == 2)
        #expect(image.pixels == [UInt8](repeating: 0, count: 8).flatMap { _ in [UInt8(255), 0, 0] })
        #expect(ledger.peakBytes < 200_000)
    }

    @Test func aCodePastTheTableIsATypedErrorWithItsOffset() throws {
        // Clear (4), then 7: past the next free entry (6) with no string before it.
        let data = packCodes([(4, 3), (1, 3), (7, 3)])
        let bytes = handmadeGIF(blocks: imageBlock(data: data))
        let dataStart = 13 + 12 + 11 + 1
        #expect(throws: GIFError.codeOutOfRange(offset: dataStart + 1, code: 7, tableSize: 6)) {
            _ = try GIFDecoder.decodeImage(bytes, ledger: MemoryLedger())
        }
        // Not strict: the one pixel before it, the rest the fill (index 0: red), a warning.
        var decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: Self.lenient)
        let image = try decoder.decodeImage()
        #expect(Array(image.pixels.prefix(6)) == [255, 0, 0, 0, 0, 0])
        #expect(decoder.warnings == [.codeOutOfRange(offset: dataStart + 1, code: 7, tableSize: 6)])
    }

    @Test func theFirstCodeAfterAClearNeedsAString() throws {
        let data = packCodes([(4, 3), (6, 3)])
        let bytes = handmadeGIF(blocks: imageBlock(data: data))
        #expect(throws: GIFError.codeWithoutPredecessor(offset: 37, code: 6)) {
            _ = try GIFDecoder.decodeImage(bytes, ledger: MemoryLedger())
        }
    }

    @Test func anEarlyEndCodeLeavesPixelsMissing() throws {
        // Clear, 1, 2, end: 2 of 8 pixels.
        let data = packCodes([(4, 3), (1, 3), (2, 3), (5, 3)])
        let bytes = handmadeGIF(blocks: imageBlock(data: data))
        #expect(throws: GIFError.notEnoughImageData(offset: 38, pixelsMissing: 6)) {
            _ = try GIFDecoder.decodeImage(bytes, ledger: MemoryLedger())
        }
        var decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: Self.lenient)
        let image = try decoder.decodeImage()
        // Index 1 red, 2 green, then the fill: index 0, black.
        #expect(Array(image.pixels.prefix(9)) == [255, 0, 0, 0, 255, 0, 0, 0, 0])
    }

    @Test func malformedStructureIsATypedError() throws {
        let good = imageBlock(data: packCodes([(4, 3), (1, 3), (5, 3)]))
        #expect(throws: GIFError.badSignature) {
            _ = try GIFDecoder.decodeImage(Array("GIF88a".utf8) + [UInt8](repeating: 0, count: 20), ledger: MemoryLedger())
        }
        #expect(throws: GIFError.badSignature) { _ = try GIFDecoder.decodeImage(Array("GIF".utf8), ledger: MemoryLedger()) }
        #expect(throws: GIFError.truncated(offset: 0, needed: 13, what: "logical screen descriptor")) {
            _ = try GIFDecoder.decodeImage(Array("GIF89a".utf8) + [1, 0], ledger: MemoryLedger())
        }
        #expect(throws: GIFError.noImage(offset: 26)) {
            _ = try GIFDecoder.decodeImage(handmadeGIF(blocks: []), ledger: MemoryLedger())
        }
        #expect(throws: GIFError.noImage(offset: 25)) {
            _ = try GIFDecoder.decodeImage(handmadeGIF(blocks: [], trailer: false), ledger: MemoryLedger())
        }
        #expect(throws: GIFError.unexpectedBlock(offset: 25, byte: 0x42)) {
            _ = try GIFDecoder.decodeImage(handmadeGIF(blocks: [0x42] + good), ledger: MemoryLedger())
        }
        var badSize = good
        badSize[10] = 9
        #expect(throws: GIFError.badCodeSize(offset: 35, size: 9)) {
            _ = try GIFDecoder.decodeImage(handmadeGIF(blocks: badSize), ledger: MemoryLedger())
        }
        badSize[10] = 1
        #expect(throws: GIFError.badCodeSize(offset: 35, size: 1)) {
            _ = try GIFDecoder.decodeImage(handmadeGIF(blocks: badSize), ledger: MemoryLedger())
        }
        #expect(throws: GIFError.emptyImage(offset: 25)) {
            _ = try GIFDecoder.decodeImage(handmadeGIF(width: 0, height: 0, blocks: imageBlock(width: 0, height: 0, data: [])),
                                           ledger: MemoryLedger())
        }
        #expect(throws: GIFError.truncated(offset: 28, needed: 5, what: "extension")) {
            _ = try GIFDecoder.decodeImage(handmadeGIF(blocks: [0x21, 0xFE, 5, 1], trailer: false), ledger: MemoryLedger())
        }
        // A short GCE is ignored with a warning.
        let decoder = try GIFDecoder(source: MemoryByteSource(handmadeGIF(blocks: [0x21, 0xF9, 2, 1, 0, 0] + good)),
                                     ledger: MemoryLedger())
        #expect(decoder.warnings == [.shortGraphicControl(offset: 25, size: 2)])
        #expect(!decoder.info.hasTransparency)
    }

    @Test func sizeLimitsAreCheckedBeforeAnyAllocation() throws {
        let bytes = handmadeGIF(width: 60000, height: 60000, blocks: imageBlock(data: []))
        let ledger = MemoryLedger()
        #expect(throws: GIFError.limitExceeded(what: "pixel count", value: 3_600_000_000, limit: 1 << 28, offset: 25)) {
            _ = try GIFDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        }
        var options = GIFOptions()
        options.maxWidth = 3
        #expect(throws: GIFError.limitExceeded(what: "width", value: 4, limit: 3, offset: 25)) {
            _ = try GIFDecoder.decodeImage(handmadeGIF(blocks: imageBlock(data: [])), ledger: MemoryLedger(), options: options)
        }
        // The ledger's limit refuses the canvas rows of a big screen.
        let big = handmadeGIF(width: 20000, height: 10, blocks: imageBlock(data: packCodes([(4, 3), (5, 3)])))
        var decoder = try GIFDecoder(source: MemoryByteSource(big), ledger: MemoryLedger(limit: 100_000))
        var sink = RowOrderSink()
        #expect(throws: GIFError.core(.limitExceeded(requested: 60000, inUse: 65536, limit: 100_000))) {
            try decoder.decode(into: &sink)
        }
    }

    @Test func errorsHaveKindsAndOffsets() {
        let error = GIFError.codeOutOfRange(offset: 812, code: 4000, tableSize: 300)
        #expect(error.kind == .damaged)
        #expect(error.caseFields.offset == 812)
        #expect(error.caseFields.numbers == [4000, 300])
        #expect("\(error)" == "GIF: LZW code 4000 past the table's 300 entries at byte 812")
        #expect(GIFError.limitExceeded(what: "width", value: 2, limit: 1, offset: 6).kind == .limit)
    }
}
