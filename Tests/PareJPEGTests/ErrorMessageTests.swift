import PareCore
import PareJPEG
import Testing
import TestSupport

/// The one-line messages: the stage, the reason, then "at byte N", for real failures.
@Suite struct JPEGErrorMessageTests {
    static func decode(_ bytes: [UInt8], _ options: JPEGOptions = JPEGOptions()) throws(JPEGError) -> JPEGDecoder<MemoryByteSource> {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: options)
        var sink = RowCounter()
        try decoder.decode(scale: .full, into: &sink)
        return decoder
    }

    static func message(_ bytes: [UInt8], _ options: JPEGOptions = JPEGOptions()) -> String? {
        do {
            _ = try decode(bytes, options)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func invalidHuffmanCode() throws {
        // 64×64 gray, all blocks zero: each block is two 0 bits (one-code DC and AC tables).
        // A 1 bit in byte 5 of the data (block 20) is no code at all. The offset is that
        // byte's, however far ahead the bit reader has loaded.
        var bytes = BombFiles.jpeg(width: 64, height: 64)
        let data = JPEGLimitTests.offsets(of: 0xDA, in: bytes)[0] + 10
        bytes[data + 5] = 0x80
        let decoder = try Self.decode(bytes)
        let warning = try #require(decoder.warnings.first)
        guard case let .invalidHuffmanCode(scan: 1, offset) = warning else {
            Issue.record("unexpected \(warning)")
            return
        }
        #expect(offset == data + 5)
        #expect(warning.description == "JPEG: invalid Huffman code in scan 1 at byte \(offset)")
        var strict = JPEGOptions()
        strict.strict = true
        #expect(Self.message(bytes, strict) == "JPEG: invalid Huffman code in scan 1 at byte \(offset)")
    }

    @Test(.requiresCorpus) func truncatedCorpusFile() throws {
        let root = Corpus.path
        // The first half of a camera JPEG: the scan's data ends early.
        let path = root + "/jpeg/malformed/made-truncated50-kodak-dc240.jpg"
        let bytes = try #require(FileSystem.read(path))
        let decoder = try Self.decode(bytes)
        #expect(decoder.warnings.map(\.description) == ["JPEG: data of scan 1 ends early, the rest is filled with gray at byte \(bytes.count)"])
        var strict = JPEGOptions()
        strict.strict = true
        #expect(Self.message(bytes, strict) == "JPEG: data of scan 1 ends early, the rest is filled with gray at byte \(bytes.count)")
        // Cut inside the headers instead, the file is refused.
        let header = Array(bytes.prefix(300))
        #expect(Self.message(header) == "JPEG: unexpected end of data (8420 byte(s) needed, 294 available) at byte 6")
    }

    @Test func headerErrors() throws {
        let bytes = SyntheticJPEG.make(width: 16, height: 16)
        #expect(Self.message([0x89, 0x50]) == "JPEG: not a JPEG file (no SOI marker) at byte 0")
        var zeroWidth = bytes
        zeroWidth[JPEGLimitTests.sofOffset + 8] = 0
        zeroWidth[JPEGLimitTests.sofOffset + 7] = 0
        #expect(Self.message(zeroWidth) == "JPEG: invalid SOF0 segment: width is 0 at byte 71")
        var arithmetic = bytes
        arithmetic[JPEGLimitTests.sofOffset + 1] = 0xC9
        #expect(Self.message(arithmetic) == "JPEG: unsupported coding process: extended sequential arithmetic (SOF9) at byte 71")
        var badTable = bytes
        badTable[JPEGLimitTests.sosOffset + 6] = 0x33
        #expect(Self.message(badTable) == "JPEG: scan uses undefined DC Huffman table 3 at byte 145")
        var options = JPEGOptions()
        options.maxPixels = 100
        #expect(Self.message(bytes, options) == "JPEG: pixel count 256 exceeds the limit 100 at byte 71")
    }

    @Test func ledgerRefusalHasNoOffset() {
        let error = JPEGError.core(.limitExceeded(requested: 4096, inUse: 100, limit: 1000))
        #expect(error.description == "JPEG: memory limit 1000 exceeded: 4096 more bytes requested with 100 in use")
    }
}
