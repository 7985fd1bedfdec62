import PareCore

/// One directory entry (TIFF 6.0 §2, "IFD Entry"): a tag, a field type, a count and the
/// value's bytes as stored. Unknown tags and types are kept so that tools can show them.
public struct IFDEntry: Sendable {
    public let tag: UInt16
    /// The raw field type; `fieldType` is nil for values outside 1…13.
    public let type: UInt16
    public let count: UInt32
    /// The absolute offset of the value's bytes: inside the entry itself when they fit in
    /// four bytes, else where the entry's offset field points.
    public let valueOffset: Int
    /// The value's bytes in the block's byte order; nil when the type is unknown, the bytes
    /// lie outside the block or they exceed the size limits (a warning says which).
    public let value: [UInt8]?
    public let byteOrder: ByteOrder
    /// The Exif/TIFF name of the tag in its IFD ("Orientation", "ExifImageWidth"), if known.
    public let name: String?

    public var fieldType: TIFFFieldType? { TIFFFieldType(rawValue: type) }

    /// How many values can be decoded from `value`.
    public var valueCount: Int {
        guard let value, let fieldType else { return 0 }
        return value.count / fieldType.size
    }

    /// Value `index` of an integer type, widened (LONG needs more than a 32-bit Int).
    public func integer(at index: Int = 0) -> Int64? {
        guard let fieldType, fieldType.isInteger, index >= 0, index < valueCount else { return nil }
        let start = index * fieldType.size
        switch fieldType {
        case .byte: return Int64(value![start])
        case .sbyte: return Int64(Int8(bitPattern: value![start]))
        case .short: return Int64(word(start))
        case .sshort: return Int64(Int16(bitPattern: word(start)))
        case .long, .ifd: return Int64(longWord(start))
        case .slong: return Int64(Int32(bitPattern: longWord(start)))
        default: return nil
        }
    }

    /// Value `index` of a RATIONAL or SRATIONAL.
    public func rational(at index: Int = 0) -> (numerator: Int64, denominator: Int64)? {
        guard let fieldType, index >= 0, index < valueCount else { return nil }
        let start = index * 8
        switch fieldType {
        case .rational: return (Int64(longWord(start)), Int64(longWord(start + 4)))
        case .srational:
            return (Int64(Int32(bitPattern: longWord(start))), Int64(Int32(bitPattern: longWord(start + 4))))
        default: return nil
        }
    }

    /// Value `index` of any numeric type as a Double; nil for a zero denominator.
    public func double(at index: Int = 0) -> Double? {
        guard let fieldType, index >= 0, index < valueCount else { return nil }
        switch fieldType {
        case .rational, .srational:
            guard let r = rational(at: index), r.denominator != 0 else { return nil }
            return Double(r.numerator) / Double(r.denominator)
        case .float: return Double(Float(bitPattern: longWord(index * 4)))
        case .double:
            let hi = UInt64(longWord(index * 8)), lo = UInt64(longWord(index * 8 + 4))
            return Double(bitPattern: byteOrder == .bigEndian ? hi << 32 | lo : lo << 32 | hi)
        case .ascii, .undefined: return nil
        default: return integer(at: index).map { Double($0) }
        }
    }

    /// An ASCII value up to its first NUL (Exif 2.32 §4.6.2: NUL-terminated), without the
    /// trailing spaces cameras pad fixed-width fields with. Invalid UTF-8 is repaired.
    public var string: String? {
        guard fieldType == .ascii, let value else { return nil }
        var end = value.firstIndex(of: 0) ?? value.count
        while end > 0 && value[end - 1] == 0x20 { end -= 1 }
        return String(decoding: value[0 ..< end], as: UTF8.self)
    }

    private func word(_ start: Int) -> UInt16 {
        let a = UInt16(value![start]), b = UInt16(value![start + 1])
        return byteOrder == .bigEndian ? a << 8 | b : b << 8 | a
    }

    private func longWord(_ start: Int) -> UInt32 {
        let a = UInt32(word(start)), b = UInt32(word(start + 2))
        return byteOrder == .bigEndian ? a << 16 | b : b << 16 | a
    }
}

/// One Image File Directory, named as ExifTool's groups are ("IFD0", "IFD1", "ExifIFD",
/// "GPS", "InteropIFD", "MPF0"), so that its entries can be compared tag by tag.
public struct IFD: Sendable {
    public let name: String
    /// The absolute offset of the directory's entry count.
    public let offset: Int
    public let entries: [IFDEntry]
    /// The raw "next IFD" field (relative to the TIFF header), 0 at the end of the chain.
    public let nextIFD: UInt32

    /// The first entry with `tag`.
    public func entry(_ tag: UInt16) -> IFDEntry? {
        entries.first { $0.tag == tag }
    }
}
