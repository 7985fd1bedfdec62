/// The field types of a TIFF directory entry (TIFF 6.0 §2 "Types", plus IFD = 13 from
/// TIFF Technical Note 1), with the size of one value of each.
public enum TIFFFieldType: UInt16, Sendable, Equatable {
    case byte = 1
    case ascii = 2
    case short = 3
    case long = 4
    case rational = 5
    case sbyte = 6
    case undefined = 7
    case sshort = 8
    case slong = 9
    case srational = 10
    case float = 11
    case double = 12
    case ifd = 13

    /// Bytes per value: the entry's byte count is this times its count.
    public var size: Int {
        switch self {
        case .byte, .ascii, .sbyte, .undefined: return 1
        case .short, .sshort: return 2
        case .long, .slong, .float, .ifd: return 4
        case .rational, .srational, .double: return 8
        }
    }

    /// True for the types that hold whole numbers.
    public var isInteger: Bool {
        switch self {
        case .byte, .short, .long, .sbyte, .sshort, .slong, .ifd: return true
        default: return false
        }
    }
}
