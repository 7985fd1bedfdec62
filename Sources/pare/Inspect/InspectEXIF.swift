import PareCore
import PareEXIF

/// The IFD tree of a TIFF block (TIFF 6.0 §2; Exif 2.32 §4.6): each directory with its
/// offset and entries, each entry with its tag (named where PareEXIF knows it), field
/// type, count and value. Long values are cut to their first 16 bytes or values, with the
/// full size said.
enum InspectEXIF {
    /// An embedded image's place, size and encoding, as `pare exif` and `pare inspect` show it.
    static func json(_ thumbnail: EmbeddedImage) -> JSONValue {
        var object = JSONObjectBuilder()
        object.add("offset", thumbnail.offset)
        object.add("length", thumbnail.length)
        object.add("width", thumbnail.width)
        object.add("height", thumbnail.height)
        object.add("encoding", thumbnail.encoding == .jpeg ? "jpeg" : "uncompressed")
        return object.value
    }

    static func report(_ metadata: EXIFMetadata) -> JSONValue {
        var object = JSONObjectBuilder()
        object.add("byteOrder", metadata.byteOrder == .littleEndian ? "II (little-endian)" : "MM (big-endian)")
        object.add("tiffHeaderOffset", metadata.tiffHeaderOffset)
        object.add("orientation", metadata.rawOrientation)
        if let thumbnail = metadata.thumbnail { object.add("thumbnail", json(thumbnail)) }
        object.add("ifds", .array(metadata.ifds.map(ifd)))
        object.add("warnings", .array(metadata.warnings.map { .string("\($0)") }))
        return object.value
    }

    static func ifd(_ ifd: IFD) -> JSONValue {
        var object = JSONObjectBuilder()
        object.add("name", ifd.name)
        object.add("offset", ifd.offset)
        object.add("entryCount", ifd.entries.count)
        object.add("nextIFD", Int(clamping: ifd.nextIFD))
        object.add("entries", .array(ifd.entries.map(entry)))
        return object.value
    }

    static func entry(_ entry: IFDEntry) -> JSONValue {
        var object = JSONObjectBuilder()
        object.add("tag", entry.name ?? hex16(entry.tag))
        object.add("id", hex16(entry.tag))
        object.add("type", typeName(entry.type))
        object.add("count", Int(clamping: entry.count))
        object.add("value", value(entry))
        return object.value
    }

    /// ASCII as text; integers and floating point as numbers; rationals as "n/d"; bytes of
    /// UNDEFINED (and long BYTE) values in hex.
    static func value(_ entry: IFDEntry) -> JSONValue {
        guard let bytes = entry.value, let type = entry.fieldType else { return .null }
        if type == .ascii { return .string(abbreviated(entry.string ?? "")) }
        if type == .undefined || (type == .byte && bytes.count > 16) {
            return .string(hexPreview(bytes))
        }
        let count = entry.valueCount
        let shown = min(count, 16)
        var items: [JSONValue] = []
        for index in 0 ..< shown {
            if type.isInteger, let n = entry.integer(at: index) {
                items.append(.int(Int(clamping: n)))
            } else if let r = entry.rational(at: index) {
                items.append(.string("\(r.numerator)/\(r.denominator)"))
            } else if let d = entry.double(at: index) {
                items.append(.double(d))
            } else {
                items.append(.null)
            }
        }
        if count > shown { items.append(.string("…(\(count) values)")) }
        return items.count == 1 ? items[0] : .array(items)
    }

    /// The first 16 bytes in hex, and the full length when there are more.
    static func hexPreview(_ bytes: [UInt8]) -> String {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
        let shown = bytes.prefix(16).map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined(separator: " ")
        return bytes.count > 16 ? shown + " …(\(bytes.count) bytes)" : shown
    }

    static func abbreviated(_ text: String, limit: Int = 200) -> String {
        let count = text.count
        return count > limit ? String(text.prefix(limit)) + "…(\(count) characters)" : text
    }

    static func typeName(_ type: UInt16) -> String {
        switch TIFFFieldType(rawValue: type) {
        case .byte: return "BYTE"
        case .ascii: return "ASCII"
        case .short: return "SHORT"
        case .long: return "LONG"
        case .rational: return "RATIONAL"
        case .sbyte: return "SBYTE"
        case .undefined: return "UNDEFINED"
        case .sshort: return "SSHORT"
        case .slong: return "SLONG"
        case .srational: return "SRATIONAL"
        case .float: return "FLOAT"
        case .double: return "DOUBLE"
        case .ifd: return "IFD"
        case .long8: return "LONG8"
        case .slong8: return "SLONG8"
        case .ifd8: return "IFD8"
        case nil: return "type \(type)"
        }
    }

    static func hex16(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    static func hex8(_ value: UInt8) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" : "") + digits
    }
}
