@_spi(Codec) import PareCore
import PareEXIF

/// Everything that can go wrong decoding a TIFF image, each case with the absolute byte
/// offset where it was found: for a tag, the offset of its value; for image data, the offset
/// of the strip's or tile's bytes. Cases that a lenient decode survives (`truncatedData`,
/// `compressedDataError` after the first row) are also its warnings. `description` is one
/// line: "TIFF: strip 3 lies past the end of the file (offset 90000, file 4096 bytes) at byte 1234".
public enum TIFFError: Error, Equatable, Sendable {
    /// The byte source or the memory ledger failed.
    case core(CoreError)
    /// The header or the IFD chain is unreadable (TIFF 6.0 §2), as PareEXIF's IFD reader
    /// reports it; also the IFD reader's warnings (an entry whose value lies outside the file).
    case structure(EXIFError)
    /// A tag the image cannot be decoded without is absent (TIFF 6.0 §8 lists them).
    case missingTag(tag: UInt16, name: MessageText, offset: Int)
    /// A tag's value is not one TIFF 6.0 allows, or disagrees with another tag.
    case invalidTag(tag: UInt16, name: MessageText, offset: Int, reason: MessageText)
    /// A valid TIFF feature Pare does not decode (floating-point samples, CIELab, …): `what`
    /// names it, `value` is the tag's value.
    case unsupported(what: MessageText, value: Int, offset: Int)
    /// A size crosses one of `TIFFOptions`' limits: `what` names it.
    case limitExceeded(what: MessageText, value: Int, limit: Int, offset: Int)
    /// Strip or tile `index` starts past the end of the file: `pointer` is where it claims
    /// to be, `offset` the entry of StripOffsets/TileOffsets that says so.
    case segmentOutOfBounds(index: Int, pointer: Int, fileSize: Int, offset: Int)
    /// The image data ends early: the file is cut off inside strip or tile `index`, or its
    /// compressed data ends before its last row; `rows` image rows were decoded before it.
    case truncatedData(index: Int, rows: Int, offset: Int)
    /// The decompressor refused the data of strip or tile `index` (a bad LZW code, a zlib or
    /// JPEG error, a fax code that is no code): `rows` image rows were decoded before it.
    case compressedDataError(index: Int, rows: Int, offset: Int, reason: MessageText)
    /// A decode that ended without error handed the image builder no image.
    case noImage(offset: Int)
}

#if !hasFeature(Embedded)
extension TIFFError: CustomStringConvertible {}
#endif

extension TIFFError {
    /// The line, as the type's `description` (under Embedded Swift its short form,
    /// `caseFields.line`).
    public var description: MessageText {
        #if hasFeature(Embedded)
        return caseFields.line(stage: "TIFF: ")
        #else
        switch self {
        case let .core(error):
            return "TIFF: \(error.description)"
        case let .structure(error):
            return "TIFF: \(error.description.dropFirst("EXIF: ".count))"
        case let .missingTag(tag, name, offset):
            return "TIFF: required tag \(name) (\(tag)) is missing from the IFD at byte \(offset)"
        case let .invalidTag(tag, name, offset, reason):
            return "TIFF: tag \(name) (\(tag)) is invalid: \(reason) at byte \(offset)"
        case let .unsupported(what, value, offset):
            return "TIFF: unsupported \(what) \(value) at byte \(offset)"
        case let .limitExceeded(what, value, limit, offset):
            return "TIFF: \(what) \(value) exceeds the limit \(limit) at byte \(offset)"
        case let .segmentOutOfBounds(index, pointer, fileSize, offset):
            return "TIFF: strip/tile \(index) lies past the end of the file (offset \(pointer), file \(fileSize) bytes) at byte \(offset)"
        case let .truncatedData(index, rows, offset):
            return "TIFF: image data ends early in strip/tile \(index) after \(rows) row(s) at byte \(offset)"
        case let .compressedDataError(index, rows, offset, reason):
            return "TIFF: bad compressed data in strip/tile \(index) after \(rows) row(s): \(reason) at byte \(offset)"
        case let .noImage(offset):
            return "TIFF: the image data gave no image at byte \(offset)"
        }
        #endif
    }

    /// The case's name, its values in the order it declares them and its offset (see
    /// `CaseFields`). A wrapped core or IFD error gives its own.
    public var caseFields: CaseFields {
        switch self {
        case let .core(error): return error.caseFields
        case let .structure(error): return error.caseFields
        case let .missingTag(tag, name, offset): return CaseFields("missingTag", text: name, Int(tag), at: offset)
        case let .invalidTag(tag, name, offset, reason):
            return CaseFields("invalidTag", text: "\(name) \(reason)", Int(tag), at: offset)
        case let .unsupported(what, value, offset): return CaseFields("unsupported", text: what, value, at: offset)
        case let .limitExceeded(what, value, limit, offset):
            return CaseFields("limitExceeded", text: what, value, limit, at: offset)
        case let .segmentOutOfBounds(index, pointer, fileSize, offset):
            return CaseFields("segmentOutOfBounds", index, pointer, fileSize, at: offset)
        case let .truncatedData(index, rows, offset): return CaseFields("truncatedData", index, rows, at: offset)
        case let .compressedDataError(index, rows, offset, reason):
            return CaseFields("compressedDataError", text: reason, index, rows, at: offset)
        case let .noImage(offset): return CaseFields("noImage", at: offset)
        }
    }

    /// The sort of failure, as for every codec's error (see `ErrorKind`).
    public var kind: ErrorKind {
        switch self {
        case let .core(error): return error.kind
        case let .structure(error): return error.kind
        case .missingTag, .invalidTag, .segmentOutOfBounds, .truncatedData, .compressedDataError, .noImage: return .damaged
        case .unsupported: return .unsupported
        case .limitExceeded: return .limit
        }
    }

    /// True for damage a lenient decode (`TIFFOptions.strict` false) survives, keeping the
    /// rows before it.
    public var isImageDataDamage: Bool {
        switch self {
        case .truncatedData, .compressedDataError: return true
        default: return false
        }
    }
}
