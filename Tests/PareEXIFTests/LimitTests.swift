import PareCore
import PareEXIF
import Testing
import TestSupport

/// Every limit of `EXIFOptions`, each crossed by a small hand-made block: the typed error (or
/// the warning, where metadata carries on) names it, and raising the limit lets it through.
@Suite struct EXIFLimitTests {
    /// IFD0 at 8 with `entries`; entry i sits at 10 + 12·i.
    static func block(_ entries: [(UInt16, UInt16, UInt32, UInt32)], next: UInt32 = 0,
                      tail: [UInt8] = []) -> [UInt8] {
        var b = TIFFBuilder()
        b.ifd(entries, next: next)
        return b.bytes + tail
    }

    @Test func ifdLimit() throws {
        // IFD0 → IFD1 → … → IFD4, each empty (6 bytes).
        var b = TIFFBuilder()
        for i in 0 ..< 5 { b.ifd([], next: i == 4 ? 0 : UInt32(8 + 6 * (i + 1))) }
        var options = EXIFOptions()
        options.maxIFDs = 3
        let limited = try EXIFReader.readTIFF(b.bytes, baseOffset: 0, options: options)
        #expect(limited.ifds.count == 3)
        #expect(limited.warnings == [.tooManyIFDs(offset: 8 + 6 * 3, limit: 3)])
        options.maxIFDs = 5
        let all = try EXIFReader.readTIFF(b.bytes, baseOffset: 0, options: options)
        #expect(all.ifds.count == 5 && all.warnings.isEmpty)
    }

    @Test func entryLimit() throws {
        let bytes = Self.block([(0x0112, 3, 1, 6), (0x0100, 3, 1, 640), (0x0101, 3, 1, 480)])
        var options = EXIFOptions()
        options.maxEntriesPerIFD = 2
        #expect(throws: EXIFError.tooManyEntries(ifd: "IFD0", offset: 8, count: 3, limit: 2)) {
            try EXIFReader.readTIFF(bytes, baseOffset: 0, options: options)
        }
        options.maxEntriesPerIFD = 3
        #expect(try EXIFReader.readTIFF(bytes, baseOffset: 0, options: options).orientation == .right)
    }

    @Test func valueLimits() throws {
        // Make and Model, 20 ASCII bytes each, after the IFD (8 + 2 + 24 + 4 = 38).
        let text = [UInt8]("ABCDEFGHIJKLMNOPQRS".utf8) + [0]
        let bytes = Self.block([(0x010F, 2, 20, 38), (0x0110, 2, 20, 58)], tail: text + text)
        var options = EXIFOptions()
        options.maxValueBytes = 19
        let small = try EXIFReader.readTIFF(bytes, baseOffset: 0, options: options)
        #expect(small.warnings == [.valueTooLarge(ifd: "IFD0", tag: 0x010F, offset: 10, limit: 19),
                                   .valueTooLarge(ifd: "IFD0", tag: 0x0110, offset: 22, limit: 19)])
        #expect(small.make == nil)
        options.maxValueBytes = 20
        options.maxTotalValueBytes = 30
        let total = try EXIFReader.readTIFF(bytes, baseOffset: 0, options: options)
        #expect(total.warnings == [.valueTooLarge(ifd: "IFD0", tag: 0x0110, offset: 22, limit: 10)])
        #expect(total.make == "ABCDEFGHIJKLMNOPQRS" && total.model == nil)
        options.maxTotalValueBytes = 40
        let all = try EXIFReader.readTIFF(bytes, baseOffset: 0, options: options)
        #expect(all.warnings.isEmpty && all.model == "ABCDEFGHIJKLMNOPQRS")
    }

    @Test func warningLimit() throws {
        // Five entries of field type 99: one warning each.
        let entries = (0 ..< 5).map { (UInt16(0x9000 + $0), UInt16(99), UInt32(1), UInt32(0)) }
        let bytes = Self.block(entries)
        #expect(try EXIFReader.readTIFF(bytes, baseOffset: 0).warnings.count == 5)
        var options = EXIFOptions()
        options.maxWarnings = 2
        let limited = try EXIFReader.readTIFF(bytes, baseOffset: 0, options: options)
        #expect(limited.warnings == [.unknownFieldType(ifd: "IFD0", tag: 0x9000, offset: 10, type: 99),
                                     .unknownFieldType(ifd: "IFD0", tag: 0x9001, offset: 22, type: 99)])
        #expect(limited.ifds[0].entries.count == 5)
    }

    /// SOI, `comments` COM segments of 4 bytes, then SOF0 (16×8, one component) and SOS.
    static func jpeg(comments: Int, stray: Int = 0) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8] + [UInt8](repeating: 0x20, count: stray)
        for _ in 0 ..< comments { out += [0xFF, 0xFE, 0, 2] }
        out += [0xFF, 0xC0, 0, 11, 8, 0, 8, 0, 16, 1, 1, 0x11, 0]
        out += [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0]
        return out
    }

    @Test func segmentLimit() throws {
        let bytes = Self.jpeg(comments: 5)
        var options = EXIFOptions()
        options.maxSegments = 5
        let limited = try EXIFReader.readJPEG(MemoryByteSource(bytes), options: options)
        #expect(limited.width == nil)
        #expect(limited.warnings == [.tooManySegments(offset: 22, limit: 5)])
        options.maxSegments = 7
        let all = try EXIFReader.readJPEG(MemoryByteSource(bytes), options: options)
        #expect(all.width == 16 && all.height == 8 && all.warnings.isEmpty)
    }

    @Test func strayByteLimit() throws {
        let bytes = Self.jpeg(comments: 1, stray: 100)
        var options = EXIFOptions()
        options.maxStrayBytes = 99
        let limited = try EXIFReader.readJPEG(MemoryByteSource(bytes), options: options)
        #expect(limited.width == nil)
        #expect(limited.warnings == [.strayBytes(offset: 2, count: 99)])
        // A budget of 100 passes over 100 stray bytes.
        options.maxStrayBytes = 100
        let all = try EXIFReader.readJPEG(MemoryByteSource(bytes), options: options)
        #expect(all.width == 16)
        #expect(all.warnings == [.strayBytes(offset: 2, count: 100)])
    }

    @Test(.requiresCorpus) func mpfEntryLimit() throws {
        let root = Corpus.path
        let bytes = try #require(FileSystem.read(root + "/exif/cameras/Nintendo_3DS_frozenpond.jpg"))
        let all = try EXIFReader.readJPEG(MemoryByteSource(bytes))
        #expect(all.mpf.count == 2)
        var options = EXIFOptions()
        options.maxMPFEntries = 1
        let limited = try EXIFReader.readJPEG(MemoryByteSource(bytes), options: options)
        #expect(limited.mpf.count == 1)
        #expect(limited.warnings.contains { if case .tooManyMPFEntries(_, 2, 1) = $0 { return true } else { return false } })
    }
}
