import PareCore
import PareEXIF
import Testing
import TestSupport

/// Builds TIFF blocks entry by entry, in either byte order, for hostile-input tests.
struct TIFFBuilder {
    var order: ByteOrder = .littleEndian
    var bytes: [UInt8] = []

    init(order: ByteOrder = .littleEndian, ifd0: UInt32 = 8) {
        self.order = order
        bytes = order == .littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        short(42)
        long(ifd0)
    }

    mutating func short(_ v: UInt16) {
        let b = [UInt8(v >> 8), UInt8(v & 0xFF)]
        bytes += order == .bigEndian ? b : b.reversed()
    }

    mutating func long(_ v: UInt32) {
        let b = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        bytes += order == .bigEndian ? b : b.reversed()
    }

    /// An IFD at the current end: entries (tag, type, count, 4 raw value bytes as a long or
    /// inline value), then the next-IFD pointer.
    mutating func ifd(_ entries: [(UInt16, UInt16, UInt32, UInt32)], next: UInt32 = 0) {
        short(UInt16(entries.count))
        for (tag, type, count, value) in entries {
            short(tag); short(type); long(count)
            if type == 3 && count == 1 {
                short(UInt16(value)); short(0)
            } else {
                long(value)
            }
        }
        long(next)
    }
}

@Suite struct HostileTIFFTests {
    /// IFD0 with Orientation 6 at offset 8 (18 bytes + 4 = ends at 26).
    static func orientationBlock(next: UInt32, order: ByteOrder = .littleEndian) -> TIFFBuilder {
        var b = TIFFBuilder(order: order)
        b.ifd([(0x0112, 3, 1, 6)], next: next)
        return b
    }

    @Test func headerErrorsAreTyped() {
        #expect(throws: EXIFError.notTIFF(offset: 100)) { try EXIFReader.readTIFF([0x41, 0x42, 0, 42, 0, 0, 0, 8], baseOffset: 100) }
        #expect(throws: EXIFError.badMagic(offset: 2, value: 41)) { try EXIFReader.readTIFF([0x49, 0x49, 41, 0, 8, 0, 0, 0], baseOffset: 0) }
        #expect(throws: EXIFError.core(.outOfBounds(offset: 0, needed: 16, available: 8))) {
            try EXIFReader.readTIFF([0x4D, 0x4D, 0, 43, 0, 8, 0, 0], baseOffset: 0)
        }
        #expect(throws: EXIFError.ifdOutOfBounds(ifd: "IFD0", offset: 0xFFFF_FFF0)) {
            try EXIFReader.readTIFF([0x49, 0x49, 42, 0, 0xF0, 0xFF, 0xFF, 0xFF], baseOffset: 0)
        }
        for n in 0 ..< 8 {
            #expect(throws: EXIFError.self) { try EXIFReader.readTIFF(Array([0x49, 0x49, 42, 0, 8, 0, 0, 0][..<n]), baseOffset: 0) }
        }
    }

    @Test func loopsAreDetectedAndIFD0Survives() throws {
        // IFD0's next pointer leads back to IFD0.
        let looped = Self.orientationBlock(next: 8)
        let m = try EXIFReader.readTIFF(looped.bytes, baseOffset: 1000)
        #expect(m.orientation == .right)
        #expect(m.warnings == [.ifdLoop(ifd: "IFD1", offset: 1008)])
        #expect(m.warnings.first?.description == "EXIF: IFD loop (IFD1 points to an IFD already read) at byte 1008")
        // The Exif pointer leads to IFD0 and the GPS pointer to itself's directory too.
        var b = TIFFBuilder()
        b.ifd([(0x0112, 3, 1, 3), (0x8769, 4, 1, 8), (0x8825, 4, 1, 8)])
        let sub = try EXIFReader.readTIFF(b.bytes, baseOffset: 0)
        #expect(sub.orientation == .down)
        #expect(sub.ifds.map(\.name) == ["IFD0"])
        #expect(sub.warnings.count == 2)
    }

    @Test func brokenIFD1KeepsIFD0() throws {
        for next: UInt32 in [27, 0xFFFF_FFFF, 25, 1 << 31] {
            let m = try EXIFReader.readTIFF(Self.orientationBlock(next: next).bytes, baseOffset: 0)
            #expect(m.orientation == .right)
            #expect(m.ifd("IFD1") == nil)
            #expect(m.warnings.count == 1)
        }
        // IFD1 declares more entries than fit.
        var b = Self.orientationBlock(next: 26)
        b.short(500)
        let m = try EXIFReader.readTIFF(b.bytes, baseOffset: 0)
        #expect(m.orientation == .right)
        #expect(m.warnings == [.truncatedIFD(ifd: "IFD1", offset: 26, declared: 500, read: 0)])
    }

    @Test func limitsOnIFDsAndEntries() throws {
        // A chain of 200 empty IFDs, each pointing to the next.
        var b = TIFFBuilder()
        for i in 0 ..< 200 {
            b.ifd([], next: i == 199 ? 0 : UInt32(8 + 6 * (i + 1)))
        }
        let chain = try EXIFReader.readTIFF(b.bytes, baseOffset: 0)
        #expect(chain.ifds.count == 64)
        #expect(chain.warnings == [.tooManyIFDs(offset: 8 + 6 * 64, limit: 64)])
        // 65,535 entries declared: refused before anything is read or allocated.
        var wide = TIFFBuilder()
        wide.short(0xFFFF)
        wide.bytes += [UInt8](repeating: 0, count: 64)
        #expect(throws: EXIFError.tooManyEntries(ifd: "IFD0", offset: 8, count: 65535, limit: 1024)) {
            try EXIFReader.readTIFF(wide.bytes, baseOffset: 0)
        }
        var options = EXIFOptions()
        options.maxIFDs = 3
        #expect(try EXIFReader.readTIFF(b.bytes, baseOffset: 0, options: options).ifds.count == 3)
    }

    @Test func hugeCountsAndOffsetsPastTheEnd() throws {
        var b = TIFFBuilder(order: .bigEndian)
        b.ifd([(0x0112, 3, 1, 8),
               (0x010F, 2, 0xFFFF_FFFF, 8),      // 4 GiB of ASCII
               (0x0110, 4, 0x4000_0000, 8),      // LONG × 2^30: byte count overflows 32 bits
               (0x0131, 12, 0x2000_0001, 8),     // DOUBLE × (2^29 + 1)
               (0x0132, 2, 20, 0xFFFF_FFF0)])    // offset past the end
        let m = try EXIFReader.readTIFF(b.bytes, baseOffset: 0)
        #expect(m.orientation == .left)
        #expect(m.make == nil && m.model == nil && m.software == nil && m.dateTime == nil)
        #expect(m.ifds[0].entries.count == 4)
        #expect(m.ifds[0].entries[1].value == nil && m.ifds[0].entries[1].count == 0xFFFF_FFFF)
        #expect(m.warnings.contains(.valueOutOfBounds(ifd: "IFD0", tag: 0x0132, offset: 58)))
    }

    /// Every field type with a value that ends exactly at the block's end, and one that
    /// needs one byte more, plus the inline boundary (4 bytes) and unknown types.
    @Test func everyFieldTypeAtTheBoundary() throws {
        let sizes: [UInt16: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]
        for order in [ByteOrder.littleEndian, .bigEndian] {
            for type in UInt16(0) ... 14 {
                let size = sizes[type] ?? 1
                for count in [UInt32(1), UInt32(4 / size), UInt32(4 / size + 1), 3] where count > 0 {
                    let byteCount = Int(count) * size
                    for extra in [0, 1] {
                        var b = TIFFBuilder(order: order)
                        // The value sits right after the IFD (8 + 2 + 12 + 4 = 26).
                        b.ifd([(0x9999, type, count, 26)])
                        if byteCount > 4 { b.bytes += [UInt8](repeating: 0x7F, count: byteCount - extra) }
                        let m = try EXIFReader.readTIFF(b.bytes, baseOffset: 0)
                        let entry = m.ifds[0].entries.first
                        if sizes[type] == nil {
                            #expect(entry?.value == nil)
                            #expect(m.warnings.count == 1)
                        } else if byteCount <= 4 || extra == 0 {
                            #expect(entry?.value?.count == byteCount)
                            #expect(entry?.valueCount == Int(count))
                            #expect(m.warnings.isEmpty)
                        } else {
                            #expect(entry == nil)
                            #expect(m.warnings.count == 2)
                        }
                        // The accessors never trap, whatever the type and index.
                        for index in -1 ... Int(count) {
                            _ = entry?.integer(at: index)
                            _ = entry?.double(at: index)
                            _ = entry?.rational(at: index)
                        }
                        _ = entry?.string
                    }
                }
            }
        }
    }

    @Test func typedValues() throws {
        var b = TIFFBuilder(order: .bigEndian)
        b.ifd([(0x011A, 5, 1, 26), (0x9999, 10, 1, 34), (0x9998, 8, 2, 0xFFFE_0003), (0x9997, 11, 1, 0x3FC0_0000)])
        // The values follow the 4-entry IFD at 8 + 2 + 48 + 4 = 62: fix the pointers.
        b = TIFFBuilder(order: .bigEndian)
        b.ifd([(0x011A, 5, 1, 62), (0x9999, 10, 1, 70), (0x9998, 8, 2, 0xFFFE_0003), (0x9997, 11, 1, 0x3FC0_0000)])
        b.long(300); b.long(4)
        b.long(UInt32(bitPattern: -3)); b.long(4)
        let m = try EXIFReader.readTIFF(b.bytes, baseOffset: 0)
        #expect(m.xResolution == 75)
        let ifd = m.ifds[0]
        #expect(ifd.entry(0x9999)?.double() == -0.75)
        #expect(ifd.entry(0x9998)?.integer(at: 0) == -2)
        #expect(ifd.entry(0x9998)?.integer(at: 1) == 3)
        #expect(ifd.entry(0x9997)?.double() == 1.5)
        #expect(ifd.entry(0x011A)?.name == "XResolution")
    }

    /// A real APP1 payload cut at every byte: each prefix gives a typed error or metadata.
    @Test(.requiresCorpus) func realAPP1TruncatedAtEveryByte() throws {
        let root = Corpus.path
        var checked = 0, partial = 0
        for name in ["cameras/Canon_40D.jpg", "cameras/Apple_iPhone_5.jpg", "cameras/Nikon_D70.jpg"] {
            let file = try #require(FileSystem.read("\(root)/exif/\(name)"))
            let full = try EXIFReader.readJPEG(MemoryByteSource(file))
            let segment = try #require(full.exifSegmentOffset)
            let length = Int(file[segment + 2]) << 8 | Int(file[segment + 3])
            let tiff = Array(file[segment + 10 ..< segment + 2 + length])
            let complete = try #require(full.exif)
            for n in 0 ... tiff.count {
                do {
                    let m = try EXIFReader.readTIFF(Array(tiff[..<n]), baseOffset: segment + 10)
                    partial += 1
                    if m.ifds.count == complete.ifds.count, n < tiff.count { #expect(m.ifds[0].entries.count <= complete.ifds[0].entries.count) }
                    // Whatever survives agrees with the full reading.
                    if m.rawOrientation != nil { #expect(m.orientation == complete.orientation) }
                    if let thumb = m.thumbnail { #expect(thumb == complete.thumbnail) }
                } catch {
                    #expect(!error.description.isEmpty)
                }
                checked += 1
            }
            // The whole file cut inside its metadata: the JPEG walk never traps either.
            for n in stride(from: 0, through: segment + 2 + length + 64, by: 7) {
                _ = try? EXIFReader.readJPEG(MemoryByteSource(Array(file[..<min(n, file.count)])))
            }
        }
        print("truncated APP1: \(checked) prefixes read, \(partial) with partial or full metadata")
        #expect(partial > 0)
    }

    /// Flipping every byte of a real APP1's first 512 bytes, one at a time.
    @Test(.requiresCorpus) func realAPP1WithEachByteFlipped() throws {
        let root = Corpus.path
        let file = try #require(FileSystem.read("\(root)/exif/cameras/Samsung_GT-I9000_Galaxy_S.jpg"))
        let segment = try #require(try EXIFReader.readJPEG(MemoryByteSource(file)).exifSegmentOffset)
        let length = Int(file[segment + 2]) << 8 | Int(file[segment + 3])
        let tiff = Array(file[segment + 10 ..< segment + 2 + length])
        var parsed = 0, rejected = 0, withOrientation = 0
        for i in 0 ..< min(512, tiff.count) {
            var bad = tiff
            bad[i] ^= 0xFF
            do {
                let metadata = try EXIFReader.readTIFF(bad, baseOffset: 0)
                parsed += 1
                if metadata.rawOrientation != nil { withOrientation += 1 }
            } catch {
                #expect(error.description.hasPrefix("EXIF"), "byte \(i): \(error)")
                rejected += 1
            }
        }
        // The flips are fixed, so are the outcomes: 9 of the 512 are rejected (the header's
        // byte order, 42 and IFD0 offset among them); the rest leave metadata to read.
        print("APP1 flips: \(parsed) parsed (\(withOrientation) with an orientation), \(rejected) rejected")
        #expect(parsed == 503 && rejected == 9 && withOrientation == 481)
    }

    @Test(.requiresCorpus) func malformedCorpusFiles() throws {
        let root = Corpus.path
        var outcomes: [String] = []
        for name in FileSystem.list("\(root)/exif/malformed").sorted() {
            let bytes = try #require(FileSystem.read("\(root)/exif/malformed/\(name)"))
            do {
                let m = try EXIFReader.readTIFFFile(MemoryByteSource(bytes))
                outcomes.append("\(name): \(m.ifds.count) IFDs, \(m.warnings.count) warnings")
            } catch {
                outcomes.append("\(name): \(error)")
            }
        }
        for line in outcomes { print("  malformed: \(line)") }
        #expect(outcomes == [
            "mx-its-m1-2743db7c68f091ddc61dcd582febff2d.tif: 1 IFDs, 1 warnings",
            "mx-its-m1-5512ff2fc91566c07c8c8d3fd352a731.tif: 1 IFDs, 0 warnings",
            "mx-its-m1-76d5d8fd02d58b774f2bae6f7b763e3e.tif: 1 IFDs, 2 warnings",
            "mx-its-m12-42c19f8e79e582bef107f372f18a074b.tif: 1 IFDs, 2 warnings",
            "mx-its-m3-f0d7bcb90496c323c880a9773dfe93ff.tif: 1 IFDs, 1 warnings",
            "mx-its-m6-42c19f8e79e582bef107f372f18a074b.tif: EXIF: bad BigTIFF header: reserved field 56, expected 0 at byte 6",
            "mx-its-m8-f0d7bcb90496c323c880a9773dfe93ff.tif: 1 IFDs, 2 warnings",
        ])
    }
}
