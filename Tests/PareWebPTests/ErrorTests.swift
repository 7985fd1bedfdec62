import PareCore
@testable import PareWebP
import Testing
import TestSupport

/// Malformed headers give typed errors naming the byte offset.
@Suite struct ErrorTests {
    let lossy = fixture("fx-lossy-odd.webp")
    let lossless = fixture("fx-lossless-z6.webp")

    @Test func notRIFF() {
        #expect(decodeError(Array("GIF89a and more bytes".utf8)) == .notWebP(offset: 0))
        var wrongForm = lossy
        wrongForm[8] = UInt8(ascii: "X")
        #expect(decodeError(wrongForm) == .notWebP(offset: 0))
        #expect(decodeError([]) == .notWebP(offset: 0))
    }

    @Test func unknownFirstChunk() {
        let file = riff([("ABCD", [1, 2, 3, 4])])
        guard case let .invalidChunk(_, offset, _)? = decodeError(file) else {
            Issue.record("expected invalidChunk")
            return
        }
        #expect(offset == 12)
    }

    @Test func badStartCode() {
        var file = lossy
        file[20 + 3] = 0
        #expect(decodeError(file) == .invalidVP8(offset: 23, reason: "missing start code 9D 01 2A"))
    }

    @Test func interFrameUnsupported() {
        var file = lossy
        file[20] |= 1
        #expect(decodeError(file)?.kind == .unsupported)
    }

    @Test func badLosslessSignature() {
        var file = lossless
        file[20] = 0x2E
        #expect(decodeError(file) == .invalidVP8L(offset: 20, reason: "signature 46, expected 47"))
    }

    @Test func losslessVersion() {
        var file = lossless
        file[24] |= 0x20
        guard case let .invalidVP8L(offset, _)? = decodeError(file) else {
            Issue.record("expected invalidVP8L")
            return
        }
        #expect(offset == 24)
    }

    @Test func vp8xWrongSize() {
        let file = riff([("VP8X", [0, 0, 0, 0, 0, 0, 0, 0]), ("VP8 ", webpChunks(lossy)[0].1)])
        guard case let .invalidChunk(_, offset, _)? = decodeError(file) else {
            Issue.record("expected invalidChunk")
            return
        }
        #expect(offset == 12)
    }

    @Test func canvasDiffersFromFrame() {
        // 37x23 frame in a 38x23 canvas.
        let vp8x: [UInt8] = [0, 0, 0, 0, 37, 0, 0, 22, 0, 0]
        let file = riff([("VP8X", vp8x), ("VP8 ", webpChunks(lossy)[0].1)])
        guard case let .invalidChunk(_, offset, _)? = decodeError(file) else {
            Issue.record("expected invalidChunk")
            return
        }
        #expect(offset == 12)
    }

    @Test func extendedFileWithoutImage() {
        let vp8x: [UInt8] = [0, 0, 0, 0, 36, 0, 0, 22, 0, 0]
        #expect(decodeError(riff([("VP8X", vp8x), ("JUNK", [1, 2])]))?.kind == .damaged)
    }

    @Test func unknownChunksAreSkipped() throws {
        let vp8x: [UInt8] = [0, 0, 0, 0, 36, 0, 0, 22, 0, 0]
        let plain = try decodeWebP(lossy)
        let file = riff([("VP8X", vp8x), ("JUNK", [1, 2, 3]), ("VP8 ", webpChunks(lossy)[0].1), ("ZZZZ", [])])
        let decoder = try WebPDecoder(source: MemoryByteSource(file), ledger: MemoryLedger())
        #expect(decoder.info.chunks.map(\.offset) == [12, 30, 42, 42 + 8 + webpChunks(lossy)[0].1.count + (webpChunks(lossy)[0].1.count & 1)])
        #expect(try decodeWebP(file) == plain)
    }

    @Test func invalidPrefixCode() {
        // A lossless stream whose first prefix code has an over-subscribed code length code.
        var header: [UInt8] = [0x2F, 0, 0, 0, 0]
        // 1x1, no transform (bit 0), no cache (0), no meta (0), normal code (0), 4+0 lengths of 7.
        header += [0x00, 0b1111_1000, 0xFF, 0xFF, 0xFF, 0xFF]
        let error = decodeError(riff([("VP8L", header)]))
        #expect(error?.kind == .damaged)
    }

    @Test func descriptionsNameTheOffset() {
        let error = WebPError.invalidVP8L(offset: 37, reason: "prefix code is not complete")
        #expect(error.description == "WebP: invalid VP8L stream: prefix code is not complete at byte 37")
        #expect(error.caseFields.offset == 37)
        #expect(String(describing: error.caseFields.name) == "invalidVP8L")
        #expect(WebPError.core(.cancelled).kind == .cancelled)
        #expect(WebPError.limitExceeded(what: "width", value: 2, limit: 1, offset: 0).kind == .limit)
    }
}
