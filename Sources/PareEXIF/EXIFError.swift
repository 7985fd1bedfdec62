@_spi(Codec) import PareCore

/// Everything that can go wrong reading EXIF/TIFF metadata, each case with the absolute byte
/// offset where it was found. The same values serve as warnings when the reader carries on
/// with partial results (a broken IFD1 never loses IFD0's orientation). `description` is one
/// line: the stage, the reason, then "at byte N", for example
/// "EXIF: IFD1 lies outside the TIFF block at byte 70000".
public enum EXIFError: Error, Equatable, Sendable {
    /// A read passed the end of the data the reader was given.
    case core(CoreError)
    /// The TIFF header does not start with "II" or "MM" (TIFF 6.0 §2, Image File Header).
    case notTIFF(offset: Int)
    /// The byte-order mark is followed by something other than 42 (or BigTIFF's 43).
    case badMagic(offset: Int, value: Int)
    /// A BigTIFF header (version 43) whose offset size is not 8 or whose reserved field is
    /// not 0: a layout this reader does not know.
    case badBigTIFFHeader(offset: Int, reason: MessageText)
    /// An IFD pointer leads outside the TIFF block.
    case ifdOutOfBounds(ifd: MessageText, offset: Int)
    /// An IFD pointer leads back to an IFD already read.
    case ifdLoop(ifd: MessageText, offset: Int)
    /// More IFDs than `EXIFOptions.maxIFDs`.
    case tooManyIFDs(offset: Int, limit: Int)
    /// An IFD declares more entries than `EXIFOptions.maxEntriesPerIFD`.
    case tooManyEntries(ifd: MessageText, offset: Int, count: Int, limit: Int)
    /// An IFD's entry table runs past the end of the block (`read` entries fit), or entry
    /// `read` points outside the block and the entries from there on were dropped.
    case truncatedIFD(ifd: MessageText, offset: Int, declared: Int, read: Int)
    /// A field type outside 1…13 and 16…18; the entry is kept without a value.
    case unknownFieldType(ifd: MessageText, tag: UInt16, offset: Int, type: UInt16)
    /// A value's bytes lie outside the TIFF block; the entry is kept without a value.
    case valueOutOfBounds(ifd: MessageText, tag: UInt16, offset: Int)
    /// A value larger than `EXIFOptions.maxValueBytes` (or the total budget); kept without a value.
    case valueTooLarge(ifd: MessageText, tag: UInt16, offset: Int, limit: Int)
    /// A sub-IFD pointer (Exif, GPS, Interop) stored with a type that is not LONG or IFD (or
    /// BigTIFF's LONG8 or IFD8).
    case wrongPointerType(ifd: MessageText, tag: UInt16, offset: Int, type: UInt16)
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
    case badMPF(offset: Int, reason: MessageText)
    /// More MP entries than `EXIFOptions.maxMPFEntries`; the first ones were kept.
    case tooManyMPFEntries(offset: Int, count: Int, limit: Int)
    /// A gain map's metadata cannot be read, or the primary image announces a gain map that
    /// is not there.
    case badGainMap(offset: Int, reason: MessageText)
}

#if !hasFeature(Embedded)
extension EXIFError: CustomStringConvertible {}
#endif

extension EXIFError {
    /// The line, as the type's `description` (under Embedded Swift its short form,
    /// `caseFields.line`).
    public var description: MessageText {
        #if hasFeature(Embedded)
        return caseFields.line(stage: "EXIF: ")
        #else
        switch self {
        case let .core(error):
            return "EXIF: \(error.description)"
        case let .notTIFF(offset):
            return "EXIF: TIFF byte order is neither II nor MM at byte \(offset)"
        case let .badMagic(offset, value):
            return "EXIF: TIFF magic number \(value), expected 42, at byte \(offset)"
        case let .badBigTIFFHeader(offset, reason):
            return "EXIF: bad BigTIFF header: \(reason) at byte \(offset)"
        case let .ifdOutOfBounds(ifd, offset):
            return "EXIF: \(ifd) lies outside the TIFF block at byte \(offset)"
        case let .ifdLoop(ifd, offset):
            return "EXIF: IFD loop (\(ifd) points to an IFD already read) at byte \(offset)"
        case let .tooManyIFDs(offset, limit):
            return "EXIF: IFD count \(limit + 1) exceeds the limit \(limit) at byte \(offset)"
        case let .tooManyEntries(ifd, offset, count, limit):
            return "EXIF: \(ifd) entry count \(count) exceeds the limit \(limit) at byte \(offset)"
        case let .truncatedIFD(ifd, offset, declared, read):
            return "EXIF: \(ifd) declares \(declared) entries, only \(read) usable, at byte \(offset)"
        case let .unknownFieldType(ifd, tag, offset, type):
            return "EXIF: \(ifd) tag \(hex(tag)) has unknown field type \(type) at byte \(offset)"
        case let .valueOutOfBounds(ifd, tag, offset):
            return "EXIF: \(ifd) tag \(hex(tag)) value lies outside the TIFF block at byte \(offset)"
        case let .valueTooLarge(ifd, tag, offset, limit):
            return "EXIF: \(ifd) tag \(hex(tag)) value exceeds the limit of \(limit) bytes at byte \(offset)"
        case let .wrongPointerType(ifd, tag, offset, type):
            return "EXIF: \(ifd) tag \(hex(tag)) IFD pointer has field type \(type) at byte \(offset)"
        case let .thumbnailOutOfBounds(offset, length):
            return "EXIF: IFD1 thumbnail of \(length) bytes does not fit in the TIFF block at byte \(offset)"
        case let .notJPEG(offset):
            return "EXIF: no JPEG SOI marker at byte \(offset)"
        case let .truncatedSegment(offset, marker):
            return "EXIF: JPEG segment \(hex(0xFF00 | UInt16(marker))) runs past the end of the data at byte \(offset)"
        case let .strayBytes(offset, count):
            return "EXIF: \(count) stray bytes before the next JPEG marker at byte \(offset)"
        case let .tooManySegments(offset, limit):
            return "EXIF: JPEG segment count before SOS exceeds the limit \(limit) at byte \(offset)"
        case let .badMPF(offset, reason):
            return "EXIF: invalid MPF index: \(reason) at byte \(offset)"
        case let .tooManyMPFEntries(offset, count, limit):
            return "EXIF: MPF image count \(count) exceeds the limit \(limit) at byte \(offset)"
        case let .badGainMap(offset, reason):
            return "EXIF: gain map: \(reason) at byte \(offset)"
        }
        #endif
    }
}

extension EXIFError {
    /// The case's name, its values in the order it declares them (the IFD's name first) and
    /// its offset, for the short form (see `CaseFields`). A wrapped core error gives its own.
    public var caseFields: CaseFields {
        switch self {
        case let .core(error): return error.caseFields
        case let .notTIFF(offset): return CaseFields("notTIFF", at: offset)
        case let .badMagic(offset, value): return CaseFields("badMagic", value, at: offset)
        case let .badBigTIFFHeader(offset, reason): return CaseFields("badBigTIFFHeader", text: reason, at: offset)
        case let .ifdOutOfBounds(ifd, offset): return CaseFields("ifdOutOfBounds", text: ifd, at: offset)
        case let .ifdLoop(ifd, offset): return CaseFields("ifdLoop", text: ifd, at: offset)
        case let .tooManyIFDs(offset, limit): return CaseFields("tooManyIFDs", limit, at: offset)
        case let .tooManyEntries(ifd, offset, count, limit): return CaseFields("tooManyEntries", text: ifd, count, limit, at: offset)
        case let .truncatedIFD(ifd, offset, declared, read): return CaseFields("truncatedIFD", text: ifd, declared, read, at: offset)
        case let .unknownFieldType(ifd, tag, offset, type):
            return CaseFields("unknownFieldType", text: ifd, Int(tag), Int(type), at: offset)
        case let .valueOutOfBounds(ifd, tag, offset): return CaseFields("valueOutOfBounds", text: ifd, Int(tag), at: offset)
        case let .valueTooLarge(ifd, tag, offset, limit): return CaseFields("valueTooLarge", text: ifd, Int(tag), limit, at: offset)
        case let .wrongPointerType(ifd, tag, offset, type):
            return CaseFields("wrongPointerType", text: ifd, Int(tag), Int(type), at: offset)
        case let .thumbnailOutOfBounds(offset, length): return CaseFields("thumbnailOutOfBounds", length, at: offset)
        case let .notJPEG(offset): return CaseFields("notJPEG", at: offset)
        case let .truncatedSegment(offset, marker): return CaseFields("truncatedSegment", Int(marker), at: offset)
        case let .strayBytes(offset, count): return CaseFields("strayBytes", count, at: offset)
        case let .tooManySegments(offset, limit): return CaseFields("tooManySegments", limit, at: offset)
        case let .badMPF(offset, reason): return CaseFields("badMPF", text: reason, at: offset)
        case let .tooManyMPFEntries(offset, count, limit): return CaseFields("tooManyMPFEntries", count, limit, at: offset)
        case let .badGainMap(offset, reason): return CaseFields("badGainMap", text: reason, at: offset)
        }
    }
}

extension [EXIFError] {
    /// Appends `warning`: one call where a reader keeps a warning (the array's growth code
    /// inlined at each of them was most of the place's code).
    @inline(never)
    mutating func warn(_ warning: EXIFError) {
        append(warning)
    }
}

/// "0x0112": how tags are named in messages and where no name is known.
func hex(_ value: UInt16) -> MessageText {
    "0x\(MessageText.hex(value, digits: 4))"
}

extension EXIFError {
    /// The sort of failure, as for every codec's error (see `ErrorKind`).
    public var kind: ErrorKind {
        switch self {
        case let .core(error): return error.kind
        case .tooManyIFDs, .tooManyEntries, .valueTooLarge, .tooManySegments, .tooManyMPFEntries: return .limit
        case .notTIFF, .badMagic, .badBigTIFFHeader, .ifdOutOfBounds, .ifdLoop, .truncatedIFD, .unknownFieldType, .valueOutOfBounds,
             .wrongPointerType, .thumbnailOutOfBounds, .notJPEG, .truncatedSegment, .strayBytes, .badMPF,
             .badGainMap:
            return .damaged
        }
    }
}
