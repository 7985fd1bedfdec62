import Foundation
import PareCore
import PareEXIF
import Testing
import TestSupport

/// Builds BigTIFF blocks (version 43: 8-byte offsets and counts, 20-byte entries) in either
/// byte order, for the hand-made cases.
struct BigTIFFBuilder {
    var order: ByteOrder
    var bytes: [UInt8]

    /// The 16-byte header pointing at IFD0, which starts right after it unless told.
    init(order: ByteOrder, offsetSize: UInt16 = 8, reserved: UInt16 = 0, ifd0: UInt64 = 16) {
        self.order = order
        bytes = order == .littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        short(43); short(offsetSize); short(reserved); quad(ifd0)
    }

    mutating func unsigned(_ v: UInt64, size: Int) {
        let big = (0 ..< size).map { UInt8((v >> (8 * UInt64(size - 1 - $0))) & 0xFF) }
        bytes += order == .bigEndian ? big : big.reversed()
    }

    mutating func short(_ v: UInt16) { unsigned(UInt64(v), size: 2) }
    mutating func quad(_ v: UInt64) { unsigned(v, size: 8) }

    /// An IFD at the current end: entries (tag, type, count, and the 8-byte value field as
    /// raw bytes in the block's order, left-aligned), then the next-IFD offset.
    mutating func ifd(_ entries: [(tag: UInt16, type: UInt16, count: UInt64, field: [UInt8])], next: UInt64 = 0) {
        quad(UInt64(entries.count))
        for entry in entries {
            short(entry.tag); short(entry.type); quad(entry.count)
            bytes += entry.field + [UInt8](repeating: 0, count: 8 - entry.field.count)
        }
        quad(next)
    }

    /// `v` as `size` bytes in the block's order, for an entry's value field.
    func field(_ v: UInt64, size: Int) -> [UInt8] {
        let big = (0 ..< size).map { UInt8((v >> (8 * UInt64(size - 1 - $0))) & 0xFF) }
        return order == .bigEndian ? big : big.reversed()
    }
}

@Suite struct BigTIFFTests {
    static let orders: [ByteOrder] = [.littleEndian, .bigEndian]

    /// IFD0 at 16: Orientation (SHORT), ImageWidth (LONG8), an ExifIFD pointer (IFD8), a
    /// Make of 12 characters stored after the IFD, and IFD1 through the next-IFD field.
    static func sample(_ order: ByteOrder) -> [UInt8] {
        var b = BigTIFFBuilder(order: order)
        let entries = 4, ifd0Size = 8 + 20 * entries + 8
        let make = 16 + ifd0Size, exif = make + 12, ifd1 = exif + 8 + 20 + 8
        b.ifd([(0x010F, 2, 12, b.field(UInt64(make), size: 8)),
               (0x0100, 16, 1, b.field(5_000_000_000, size: 8)),
               (0x0112, 3, 1, b.field(6, size: 2)),
               (0x8769, 18, 1, b.field(UInt64(exif), size: 8))], next: UInt64(ifd1))
        b.bytes += Array("BigTIFF cam\0".utf8)
        b.ifd([(0xA002, 4, 1, b.field(4000, size: 4))])
        b.ifd([(0x0101, 17, 1, b.field(UInt64(bitPattern: -7), size: 8))])
        return b.bytes
    }

    @Test(arguments: orders)
    func readsEveryLayoutElement(order: ByteOrder) throws {
        let bytes = Self.sample(order)
        let metadata = try EXIFReader.readTIFF(bytes, baseOffset: 100)
        #expect(metadata.warnings.isEmpty)
        #expect(metadata.byteOrder == order)
        #expect(metadata.ifds.map(\.name) == ["IFD0", "ExifIFD", "IFD1"])
        #expect(metadata.orientation == .right && metadata.rawOrientation == 6)
        #expect(metadata.make == "BigTIFF cam")
        #expect(metadata.pixelWidth == 4000)
        let ifd0 = try #require(metadata.ifd("IFD0"))
        #expect(ifd0.offset == 116)
        #expect(ifd0.entry(0x0100)?.fieldType == .long8)
        #expect(ifd0.entry(0x0100)?.integer() == 5_000_000_000)
        #expect(ifd0.entry(0x0100)?.count == 1)
        // Values inline in the 8-byte field sit at the entry + 12; others where they point.
        #expect(ifd0.entry(0x0112)?.valueOffset == 116 + 8 + 2 * 20 + 12)
        #expect(ifd0.entry(0x010F)?.valueOffset == 100 + 16 + 96)
        #expect(ifd0.entry(0x8769)?.fieldType == .ifd8)
        #expect(metadata.ifd("IFD1")?.entry(0x0101)?.fieldType == .slong8)
        #expect(metadata.ifd("IFD1")?.entry(0x0101)?.integer() == -7)
        #expect(ifd0.nextIFD == UInt64(16 + 96 + 12 + 36))
    }

    @Test(arguments: orders)
    func headerErrorsAreTyped(order: ByteOrder) {
        let four = BigTIFFBuilder(order: order, offsetSize: 4).bytes
        #expect(throws: EXIFError.badBigTIFFHeader(offset: 4, reason: "offset size 4, expected 8")) {
            try EXIFReader.readTIFF(four + [UInt8](repeating: 0, count: 16), baseOffset: 0)
        }
        let reserved = BigTIFFBuilder(order: order, reserved: 1).bytes
        #expect(throws: EXIFError.badBigTIFFHeader(offset: 6, reason: "reserved field 1, expected 0")) {
            try EXIFReader.readTIFF(reserved + [UInt8](repeating: 0, count: 16), baseOffset: 0)
        }
        // A header cut anywhere is an error naming the 16 bytes it needs.
        let whole = BigTIFFBuilder(order: order).bytes
        for n in 4 ..< 16 {
            #expect(throws: EXIFError.core(.outOfBounds(offset: 0, needed: 16, available: n))) {
                try EXIFReader.readTIFF(Array(whole.prefix(n)), baseOffset: 0)
            }
        }
        // IFD0 beyond 4 GiB: a pointer no classic TIFF can hold, outside the block.
        let far = BigTIFFBuilder(order: order, ifd0: 1 << 40).bytes
        #expect(throws: EXIFError.ifdOutOfBounds(ifd: "IFD0", offset: 1 << 40)) {
            try EXIFReader.readTIFF(far, baseOffset: 0)
        }
    }

    /// IFD1 strips whose 64-bit offsets and counts sum past Int64 (a run that ends beyond
    /// any file) give an out-of-bounds warning and no thumbnail, and IFD0 still reads.
    @Test(arguments: orders)
    func stripRunsPastInt64AreOutOfBounds(order: ByteOrder) throws {
        func block(type: UInt16, offsets: [Int64], counts: [Int64]) -> [UInt8] {
            var b = BigTIFFBuilder(order: order)
            let ifd1 = 16 + 36, values = ifd1 + 8 + 3 * 20 + 8
            func field(_ list: [Int64], at: Int) -> [UInt8] {
                list.count == 1 ? b.field(UInt64(bitPattern: list[0]), size: 8) : b.field(UInt64(at), size: 8)
            }
            b.ifd([(0x0112, 3, 1, b.field(1, size: 2))], next: UInt64(ifd1))
            b.ifd([(0x0103, 3, 1, b.field(1, size: 2)),
                   (0x0111, type, UInt64(offsets.count), field(offsets, at: values)),
                   (0x0117, type, UInt64(counts.count), field(counts, at: values + 8 * offsets.count))])
            for v in (offsets.count > 1 ? offsets : []) + (counts.count > 1 ? counts : []) {
                b.quad(UInt64(bitPattern: v))
            }
            return b.bytes
        }
        // LONG8: one strip that starts 16 bytes short of Int64.max and is 32 long.
        let far = try EXIFReader.readTIFF(block(type: 16, offsets: [Int64.max - 15], counts: [32]), baseOffset: 0)
        #expect(far.orientation == .up)
        #expect(far.thumbnail == nil)
        #expect(far.warnings == [.thumbnailOutOfBounds(offset: Int(Int64.max - 15), length: Int.max)])
        // SLONG8: two contiguous strips from Int64.min whose total length exceeds Int64.max.
        let wide = try EXIFReader.readTIFF(block(type: 17, offsets: [Int64.min, -1], counts: [Int64.max, 2]),
                                           baseOffset: 0)
        #expect(wide.thumbnail == nil)
        #expect(wide.warnings == [.thumbnailOutOfBounds(offset: 0, length: Int.max)])
    }

    /// The limits of `EXIFOptions` hold whatever the width of the counts.
    @Test(arguments: orders)
    func limitsHoldForEightByteCounts(order: ByteOrder) throws {
        // An entry count of 2^40: refused before anything is sized from it.
        var huge = BigTIFFBuilder(order: order)
        huge.quad(1 << 40)
        #expect(throws: EXIFError.tooManyEntries(ifd: "IFD0", offset: 16, count: 1 << 40, limit: 1024)) {
            try EXIFReader.readTIFF(huge.bytes, baseOffset: 0)
        }
        // A value count whose byte count overflows 64 bits, and one just over the value
        // limit: each entry is kept without a value, with a warning; Orientation survives.
        var b = BigTIFFBuilder(order: order)
        b.ifd([(0x010F, 16, 1 << 62, b.field(64, size: 8)),
               (0x0110, 2, 65_537, b.field(64, size: 8)),
               (0x0112, 3, 1, b.field(3, size: 2))])
        b.bytes += [UInt8](repeating: 0x41, count: 65_537)
        let metadata = try EXIFReader.readTIFF(b.bytes, baseOffset: 0)
        #expect(metadata.orientation == .down)
        #expect(metadata.ifd("IFD0")?.entries.count == 3)
        #expect(metadata.warnings == [.valueTooLarge(ifd: "IFD0", tag: 0x010F, offset: 24, limit: 65_536),
                                      .valueTooLarge(ifd: "IFD0", tag: 0x0110, offset: 44, limit: 65_536)])
        // IFD loops through 8-byte next-IFD fields are caught.
        var loop = BigTIFFBuilder(order: order)
        loop.ifd([(0x0112, 3, 1, loop.field(1, size: 2))], next: 16)
        let looped = try EXIFReader.readTIFF(loop.bytes, baseOffset: 0)
        #expect(looped.warnings == [.ifdLoop(ifd: "IFD1", offset: 16)])
        // A table that runs past the block.
        var cut = BigTIFFBuilder(order: order)
        cut.quad(3)
        cut.bytes += [UInt8](repeating: 0, count: 45)
        #expect(throws: EXIFError.truncatedIFD(ifd: "IFD0", offset: 16, declared: 3, read: 2)) {
            try EXIFReader.readTIFF(cut.bytes, baseOffset: 0)
        }
    }

    // MARK: - Against ExifTool

    static func reference(_ path: String) -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: path),
              let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return nil }
        return list.first
    }

    /// Every IFD0, Exif and IFD1 value ExifTool prints as a number or text (ExifTool calls a
    /// BigTIFF's Exif IFD "ExifOffset"), compared with ours; returns how many were compared.
    static func compare(_ path: String, _ ref: [String: Any]) throws -> Int {
        let bytes = try #require(FileSystem.read(path))
        let metadata = try EXIFReader.readTIFFFile(MemoryByteSource(bytes))
        #expect(metadata.warnings.isEmpty, "\(path)")
        var compared = 0
        for (key, expected) in ref.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: ":")
            guard parts.count == 2, ["IFD0", "IFD1", "ExifOffset"].contains(parts[0]) else { continue }
            let ifdName = parts[0] == "ExifOffset" ? "ExifIFD" : String(parts[0])
            guard let ifd = metadata.ifd(ifdName),
                  let entry = ifd.entries.first(where: { exifToolName($0.name) == String(parts[1]) }) else {
                if "\(expected)".hasPrefix("(Binary data") { continue }
                Issue.record("\(path): \(key) missing")
                continue
            }
            let ours: String
            if let text = entry.string {
                ours = text
            } else if entry.fieldType == .rational || entry.fieldType == .srational {
                ours = entry.double().map { $0 == $0.rounded() ? "\(Int($0))" : "\($0)" } ?? "-"
            } else {
                ours = (0 ..< entry.valueCount).compactMap { entry.integer(at: $0).map { "\($0)" } }.joined(separator: " ")
            }
            #expect(ours == "\(expected)", "\(path): \(key)")
            compared += 1
        }
        return compared
    }

    /// ExifTool's names where they differ from the TIFF names ours follow.
    static func exifToolName(_ name: String?) -> String? {
        switch name {
        case "DateTime": return "ModifyDate"
        case "PixelXDimension": return "ExifImageWidth"
        case "PixelYDimension": return "ExifImageHeight"
        default: return name
        }
    }

    @Test(arguments: ["fx-bigtiff-II", "fx-bigtiff-MM"])
    func fixturesAgreeWithExifTool(stem: String) throws {
        let folder = Corpus.fixtures + "/bigtiff"
        let ref = try #require(Self.reference("\(folder)/\(stem).json"))
        let compared = try Self.compare("\(folder)/\(stem).tif", ref)
        #expect(compared == 30)
        let metadata = try EXIFReader.readTIFFFile(MemoryByteSource(try #require(FileSystem.read("\(folder)/\(stem).tif"))))
        #expect(metadata.byteOrder == (stem.hasSuffix("II") ? .littleEndian : .bigEndian))
        #expect(metadata.rawOrientation == ref["IFD0:Orientation"] as? Int)
        #expect(metadata.imageWidth == ref["IFD0:ImageWidth"] as? Int)
        #expect(metadata.imageHeight == ref["IFD0:ImageHeight"] as? Int)
    }

    @Test(.requiresCorpus) func corpusFileAgreesWithExifTool() throws {
        let root = Corpus.path
        let ref = try #require(Self.reference("\(root)/exif/ref/mx-BigTIFF.json"))
        #expect(try Self.compare("\(root)/exif/tiff/mx-BigTIFF.tif", ref) == 8)
    }
}
