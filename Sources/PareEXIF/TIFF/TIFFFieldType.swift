import PareCore

/// The field types of a TIFF directory entry (TIFF 6.0 §2 "Types", plus IFD = 13 from
/// TIFF Technical Note 1 and BigTIFF's 64-bit LONG8, SLONG8 and IFD8 = 16…18), with the size
/// of one value of each.
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
    case long8 = 16
    case slong8 = 17
    case ifd8 = 18

    /// Bytes per value: the entry's byte count is this times its count.
    public var size: Int {
        switch self {
        case .byte, .ascii, .sbyte, .undefined: return 1
        case .short, .sshort: return 2
        case .long, .slong, .float, .ifd: return 4
        case .rational, .srational, .double, .long8, .slong8, .ifd8: return 8
        }
    }

    /// True for the types that hold whole numbers.
    public var isInteger: Bool {
        switch self {
        case .byte, .short, .long, .sbyte, .sshort, .slong, .ifd, .long8, .slong8, .ifd8: return true
        default: return false
        }
    }

    /// True for the types that hold whole numbers without a sign.
    var isUnsignedInteger: Bool {
        switch self {
        case .byte, .short, .long, .ifd, .long8, .ifd8: return true
        default: return false
        }
    }

    /// True for the types a sub-IFD pointer may have (TIFF Technical Note 1: LONG or IFD;
    /// BigTIFF adds LONG8 and IFD8).
    var isPointer: Bool {
        switch self {
        case .long, .ifd, .long8, .ifd8: return true
        default: return false
        }
    }
}

extension ByteOrder {
    /// The unsigned integer of `size` bytes (1, 2, 4 or 8) at `at`, in this byte order.
    func unsigned(_ bytes: [UInt8], at: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0 ..< size {
            let byte = UInt64(bytes[self == .bigEndian ? at + i : at + size - 1 - i])
            value = value << 8 | byte
        }
        return value
    }
}
