import PareCore
import ParePNG
import Testing
import TestSupport

/// The one-line messages: the stage, the reason, then "at byte N", for real failures.
@Suite struct PNGErrorMessageTests {
    static func message(_ bytes: [UInt8]) -> String? {
        do {
            _ = try PNGDecoder.decodeImage(bytes, ledger: MemoryLedger())
            return nil
        } catch {
            return error.description
        }
    }

    /// A decode that gives no image has its own error, not a size overflow; the decoder
    /// always starts its row stream, so the one-call decode of a valid file has its image.
    @Test func missingImageHasItsOwnError() throws {
        #expect(PNGError.noImage(offset: 33).description == "PNG: the image data gave no image at byte 33")
        #expect(PNGError.noImage(offset: 33) != .core(.sizeOverflow))
        let png = pngSignature + ihdr(width: 2, height: 1, depth: 8, colorType: 0)
            + chunk("IDAT", zlibCompress([0, 1, 2])) + chunk("IEND", [])
        var decoder = try PNGDecoder(source: MemoryByteSource(png), ledger: MemoryLedger())
        let image = try decoder.decodeImage()
        #expect(image.width == 2 && image.height == 1 && image.pixels == [1, 2])
    }

    @Test func badCRC() throws {
        let png = pngSignature + ihdr(width: 2, height: 1, depth: 8, colorType: 0)
            + chunk("IDAT", zlibCompress([0, 1, 2])) + chunk("IEND", [])
        var badIHDR = png
        badIHDR[8 + 8 + 13] ^= 0x40
        #expect(Self.message(badIHDR) == "PNG: CRC mismatch in chunk IHDR at byte 8")
        var badIDAT = png
        badIDAT[33 + 8 + 11 + 2] ^= 1
        #expect(Self.message(badIDAT) == "PNG: CRC mismatch in chunk IDAT at byte 33")
    }

    @Test(.requiresCorpus) func corpusFiles() throws {
        let root = Corpus.path
        let expected = [
            "png/pngsuite/xhdn0g08.png": "PNG: CRC mismatch in chunk IHDR at byte 8",
            "png/pngsuite/xcrn0g04.png": "PNG: bad signature at byte 0",
            "png/malformed/pil-truncated_image.png":
                "PNG: unexpected end of file in chunk IDAT (23639 more byte(s) needed) at byte 81920",
        ]
        for (name, line) in expected.sorted(by: { $0.key < $1.key }) {
            let bytes = try #require(FileSystem.read(root + "/" + name))
            #expect(Self.message(bytes) == line, "\(name)")
        }
    }

    @Test func structureErrors() {
        let head = pngSignature + ihdr(width: 2, height: 2, depth: 8, colorType: 0)
        let good = zlibCompress([0, 1, 2, 0, 3, 4])
        let end = chunk("IEND", [])
        // The zlib stream cut after 3 bytes: the offset is where the IDAT run ended (its CRC
        // and the next chunk's header read).
        #expect(Self.message(head + chunk("IDAT", Array(good.prefix(3))) + end)
            == "PNG: image data ends with 2 scanline(s) missing at byte \(33 + 12 + 3 + 8)")
        let oneRow = zlibCompress([0, 1, 2])
        #expect(Self.message(head + chunk("IDAT", oneRow) + end)
            == "PNG: image data ends with 1 scanline(s) missing at byte \(33 + 8 + oneRow.count)")
        #expect(Self.message(head + chunk("IDAT", zlibCompress([5, 1, 2, 0, 3, 4])) + end)
            == "PNG: invalid filter type 5 on scanline 0 at byte \(33 + 8 + zlibCompress([5, 1, 2, 0, 3, 4]).count)")
        #expect(Self.message(head + chunk("IDAT", good)) == "PNG: unexpected end of file in chunk header (8 more byte(s) needed) at byte \(33 + 12 + good.count)")
        #expect(Self.message(pngSignature + chunk("IDAT", good)) == "PNG: first chunk is not IHDR at byte 8")
        #expect(Self.message(head + end) == "PNG: IEND before any IDAT at byte 33")
        #expect(Self.message(pngSignature + ihdr(width: 2, height: 2, depth: 3, colorType: 0) + chunk("IDAT", good) + end)
            == "PNG: invalid IHDR: bit depth 3 with colour type 0 at byte 8")
    }
}
