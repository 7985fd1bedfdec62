import PareCore

/// Everything that can go wrong reading EXIF/TIFF metadata, each case with the absolute byte
/// offset where it was found. The same values serve as warnings when the reader carries on
/// with partial results (a broken IFD1 never loses IFD0's orientation).
public enum EXIFError: Error, Equatable, Sendable {
    /// A read passed the end of the data the reader was given.
    case core(CoreError)
    /// The TIFF header does not start with "II" or "MM" (TIFF 6.0 §2, Image File Header).
    case notTIFF(offset: Int)
    /// The byte-order mark is followed by something other than 42.
    case badMagic(offset: Int, value: Int)
    /// Version 43: BigTIFF's 8-byte offsets are not read.
    case unsupportedBigTIFF(offset: Int)
    /// An IFD pointer leads outside the TIFF block.
    case ifdOutOfBounds(ifd: String, offset: Int)
    /// An IFD pointer leads back to an IFD already read.
    case ifdLoop(ifd: String, offset: Int)
    /// More IFDs than `EXIFOptions.maxIFDs`.
    case tooManyIFDs(offset: Int, limit: Int)
    /// An IFD declares more entries than `EXIFOptions.maxEntriesPerIFD`.
    case tooManyEntries(ifd: String, offset: Int, count: Int, limit: Int)
    /// An IFD's entry table runs past the end of the block (`read` entries fit), or entry
    /// `read` points outside the block and the entries from there on were dropped.
    case truncatedIFD(ifd: String, offset: Int, declared: Int, read: Int)
    /// A field type outside 1…13; the entry is kept without a value.
    case unknownFieldType(ifd: String, tag: UInt16, offset: Int, type: UInt16)
    /// A value's bytes lie outside the TIFF block; the entry is kept without a value.
    case valueOutOfBounds(ifd: String, tag: UInt16, offset: Int)
    /// A value larger than `EXIFOptions.maxValueBytes` (or the total budget); kept without a value.
    case valueTooLarge(ifd: String, tag: UInt16, offset: Int, limit: Int)
    /// A sub-IFD pointer (Exif, GPS, Interop) stored with a type that is not LONG or IFD.
    case wrongPointerType(ifd: String, tag: UInt16, offset: Int, type: UInt16)
    /// The IFD1 thumbnail's offset and length do not fit in the TIFF block.
    case thumbnailOutOfBounds(offset: Int, length: Int)
    /// The input does not start with a JPEG SOI marker.
    case notJPEG(offset: Int)
    /// A JPEG marker segment's length runs past the end of the input (or is below 2).
    case truncatedSegment(offset: Int, marker: UInt8)
    /// Bytes that are not a marker between JPEG segments (skipped).
    case strayBytes(offset: Int, count: Int)
    /// More marker segments before SOS than `EXIFOptions.maxSegments`; the walk stops there.
    case tooManySegments(offset: Int, limit: Int)
    /// The MP Index IFD has no usable MP Entry list, or an entry is unusable.
    case badMPF(offset: Int, reason: String)
    /// More MP entries than `EXIFOptions.maxMPFEntries`; the first ones were kept.
    case tooManyMPFEntries(offset: Int, count: Int, limit: Int)
}

extension EXIFError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .core(error):
            return "EXIF: \(error)"
        case let .notTIFF(offset):
            return "EXIF: TIFF header at byte \(offset): byte order is neither II nor MM"
        case let .badMagic(offset, value):
            return "EXIF: TIFF header at byte \(offset): magic number \(value), expected 42"
        case let .unsupportedBigTIFF(offset):
            return "EXIF: TIFF header at byte \(offset): BigTIFF (version 43) is not supported"
        case let .ifdOutOfBounds(ifd, offset):
            return "EXIF: \(ifd) at byte \(offset): outside the TIFF block"
        case let .ifdLoop(ifd, offset):
            return "EXIF: IFD loop at byte \(offset) (\(ifd) points to an IFD already read)"
        case let .tooManyIFDs(offset, limit):
            return "EXIF: IFD at byte \(offset): more than \(limit) IFDs"
        case let .tooManyEntries(ifd, offset, count, limit):
            return "EXIF: \(ifd) at byte \(offset): \(count) entries, limit \(limit)"
        case let .truncatedIFD(ifd, offset, declared, read):
            return "EXIF: \(ifd) at byte \(offset): \(declared) entries declared, only \(read) usable"
        case let .unknownFieldType(ifd, tag, offset, type):
            return "EXIF: \(ifd) tag \(hex(tag)) at byte \(offset): unknown field type \(type)"
        case let .valueOutOfBounds(ifd, tag, offset):
            return "EXIF: \(ifd) tag \(hex(tag)) at byte \(offset): value outside the TIFF block"
        case let .valueTooLarge(ifd, tag, offset, limit):
            return "EXIF: \(ifd) tag \(hex(tag)) at byte \(offset): value larger than \(limit) bytes"
        case let .wrongPointerType(ifd, tag, offset, type):
            return "EXIF: \(ifd) tag \(hex(tag)) at byte \(offset): IFD pointer has field type \(type)"
        case let .thumbnailOutOfBounds(offset, length):
            return "EXIF: IFD1 thumbnail at byte \(offset): \(length) bytes do not fit in the TIFF block"
        case let .notJPEG(offset):
            return "EXIF: JPEG at byte \(offset): no SOI marker"
        case let .truncatedSegment(offset, marker):
            return "EXIF: JPEG segment \(hex(0xFF00 | UInt16(marker))) at byte \(offset): runs past the end of the data"
        case let .strayBytes(offset, count):
            return "EXIF: JPEG at byte \(offset): \(count) stray bytes before the next marker"
        case let .tooManySegments(offset, limit):
            return "EXIF: JPEG segment at byte \(offset): more than \(limit) segments before SOS"
        case let .badMPF(offset, reason):
            return "EXIF: MPF at byte \(offset): \(reason)"
        case let .tooManyMPFEntries(offset, count, limit):
            return "EXIF: MPF at byte \(offset): \(count) images, limit \(limit)"
        }
    }
}

/// "0x0112": how tags are named in messages and where no name is known.
func hex(_ value: UInt16) -> String {
    let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
    var text = "0x"
    for shift in stride(from: 12, through: 0, by: -4) {
        text.append(digits[Int((value >> UInt16(shift)) & 0xF)])
    }
    return text
}
