import PareCore

/// One directory entry (TIFF 6.0 §2, "IFD Entry"): a tag, a field type, a count and the
/// value's bytes as stored. Unknown tags and types are kept so that tools can show them.
public struct IFDEntry: Sendable {
    public let tag: UInt16
    /// The raw field type; `fieldType` is nil for values outside 1…13 and 16…18.
    public let type: UInt16
    /// The number of values (32 bits in TIFF, 64 in BigTIFF).
    public let count: UInt64
    /// The absolute offset of the value's bytes: inside the entry itself when they fit in
    /// its value field (four bytes, eight in BigTIFF), else where that field points.
    public let valueOffset: Int
    /// The value's bytes in the block's byte order; nil when the type is unknown, the bytes
    /// lie outside the block or they exceed the size limits (a warning says which).
    public let value: [UInt8]?
    public let byteOrder: ByteOrder
    /// The list that names the tags of the entry's IFD.
    let names: TagNames.Table
    /// The Exif/TIFF name of the tag in its IFD ("Orientation", "ExifImageWidth"), if known.
    public var name: MessageText? { TagNames.name(for: tag, in: names) }

    public var fieldType: TIFFFieldType? { TIFFFieldType(rawValue: type) }

    /// How many values can be decoded from `value`.
    public var valueCount: Int {
        guard let value, let fieldType else { return 0 }
        return value.count / fieldType.size
    }

    /// Value `index` of an integer type, widened (LONG needs more than a 32-bit Int); nil for
    /// a LONG8 or IFD8 above `Int64.max`.
    public func integer(at index: Int = 0) -> Int64? {
        guard let fieldType, fieldType.isInteger, index >= 0, index < valueCount else { return nil }
        let size = fieldType.size
        let bits = unsigned(index * size, size)
        if fieldType.isUnsignedInteger { return Int64(exactly: bits) }
        // SBYTE, SSHORT, SLONG, SLONG8: two's complement in `size` bytes, widened by
        // flipping the sign bit and subtracting its weight.
        let sign = UInt64(1) << (8 * size - 1)
        return Int64(bitPattern: (bits ^ sign) &- sign)
    }

    /// Value `index` of an unsigned integer type (BYTE, SHORT, LONG, IFD, LONG8, IFD8).
    public func unsignedInteger(at index: Int = 0) -> UInt64? {
        guard let fieldType, fieldType.isUnsignedInteger, index >= 0, index < valueCount else { return nil }
        return unsigned(index * fieldType.size, fieldType.size)
    }

    /// Value `index` of a RATIONAL or SRATIONAL.
    public func rational(at index: Int = 0) -> (numerator: Int64, denominator: Int64)? {
        guard let fieldType, index >= 0, index < valueCount else { return nil }
        let start = index * 8
        switch fieldType {
        case .rational: return (Int64(unsigned(start, 4)), Int64(unsigned(start + 4, 4)))
        case .srational:
            return (Int64(Int32(truncatingIfNeeded: unsigned(start, 4))), Int64(Int32(truncatingIfNeeded: unsigned(start + 4, 4))))
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
        case .float: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: unsigned(index * 4, 4))))
        case .double: return Double(bitPattern: unsigned(index * 8, 8))
        case .ascii, .undefined: return nil
        default: return integer(at: index).map { Double($0) }
        }
    }

    #if !hasFeature(Embedded)
    /// An ASCII value up to its first NUL (Exif 2.32 §4.6.2: NUL-terminated), without the
    /// trailing spaces cameras pad fixed-width fields with. Invalid UTF-8 is repaired.
    /// (Not under Embedded Swift, where a program that wants text reads `value`'s bytes:
    /// `String` and its Unicode code would be most of a firmware's standard library.)
    public var string: String? {
        guard fieldType == .ascii, let value else { return nil }
        var end = value.firstIndex(of: 0) ?? value.count
        while end > 0 && value[end - 1] == 0x20 { end -= 1 }
        return String(decoding: value[0 ..< end], as: UTF8.self)
    }
    #endif

    private func unsigned(_ start: Int, _ size: Int) -> UInt64 {
        byteOrder.unsigned(value!, at: start, size: size)
    }
}

/// One Image File Directory, named as ExifTool's groups are ("IFD0", "IFD1", "ExifIFD",
/// "GPS", "InteropIFD", "MPF0"), so that its entries can be compared tag by tag.
public struct IFD: Sendable {
    public let name: MessageText
    /// The absolute offset of the directory's entry count.
    public let offset: Int
    public let entries: [IFDEntry]
    /// The raw "next IFD" field (relative to the TIFF header; 64 bits in BigTIFF), 0 at the
    /// end of the chain.
    public let nextIFD: UInt64

    /// The first entry with `tag`.
    public func entry(_ tag: UInt16) -> IFDEntry? {
        entries.first { $0.tag == tag }
    }

    /// The first value of the entry with `tag`, when it is an integer that fits an `Int`.
    func integer(_ tag: UInt16) -> Int? {
        integer64(tag).flatMap { Int(exactly: $0) }
    }

    /// The first value of the entry with `tag`, when it is an integer (as `IFDEntry.integer`).
    /// Out of line: each lookup inlined copied the entry out and destroyed it again.
    @inline(never)
    func integer64(_ tag: UInt16) -> Int64? {
        entry(tag)?.integer()
    }

    /// True when the IFD is named `name`. The names are ASCII and Pare's own, so their UTF-8
    /// bytes are compared: String's `==` compares canonical equivalence, which links
    /// Unicode normalisation tables (32 KB) into an Embedded build.
    public func isNamed(_ name: MessageText) -> Bool {
        #if hasFeature(Embedded)
        self.name == name
        #else
        self.name.utf8.elementsEqual(name.utf8)
        #endif
    }
}
