@_spi(Codec) import PareCore

/// Everything that can go wrong reading a GIF, each case with the byte offset in the file
/// where it was found. The same values serve as warnings (`GIFDecoder.warnings`) when the
/// decoder carries on: damage after the first frame, a missing trailer, image data cut off
/// when `GIFOptions.strict` is false. `description` is one line: the stage, the reason, then
/// "at byte N", for example "GIF: LZW code 4000 past the table's 300 entries at byte 812".
public enum GIFError: Error, Equatable, Sendable {
    /// The byte source or the memory ledger failed (its own description names the offset or size).
    case core(CoreError)
    /// The first six bytes are neither "GIF87a" nor "GIF89a" (GIF89a §17).
    case badSignature
    /// The file ends inside `what`, which needed `needed` more bytes.
    case truncated(offset: Int, needed: Int, what: MessageText)
    /// A byte that introduces no known block (0x21 extension, 0x2C image, 0x3B trailer;
    /// GIF89a §15 and Appendix B) where a block must start.
    case unexpectedBlock(offset: Int, byte: UInt8)
    /// The trailer (or the end of the file) came before any image descriptor (§20).
    case noImage(offset: Int)
    /// The canvas (the logical screen grown to hold the first frame) has no pixels.
    case emptyImage(offset: Int)
    /// The LZW minimum code size byte is outside 2…8 (§22; Appendix F). Pillow and
    /// ImageMagick refuse 1 as well.
    case badCodeSize(offset: Int, size: Int)
    /// A code greater than the next free table entry (Appendix F): the data is not LZW.
    /// `offset` is the data byte holding the code's last bit.
    case codeOutOfRange(offset: Int, code: Int, tableSize: Int)
    /// The first code after a clear code is the next free entry, which has no string yet.
    case codeWithoutPredecessor(offset: Int, code: Int)
    /// The image data ended (end code, or the sub-blocks' terminator) with `pixelsMissing`
    /// of the frame's pixels not yet decoded.
    case notEnoughImageData(offset: Int, pixelsMissing: Int)
    /// A limit of `GIFOptions` was crossed: `what` names it.
    case limitExceeded(what: MessageText, value: Int, limit: Int, offset: Int)
    /// A Graphic Control Extension whose first sub-block is shorter than its 4 bytes
    /// (§23); it is ignored.
    case shortGraphicControl(offset: Int, size: Int)
    /// The file ends after its last frame without the trailer byte 0x3B (§27).
    case missingTrailer(offset: Int)
}

#if !hasFeature(Embedded)
extension GIFError: CustomStringConvertible {}
#endif

extension GIFError {
    /// The line, as the type's `description` (under Embedded Swift its short form,
    /// `caseFields.line`).
    public var description: MessageText {
        #if hasFeature(Embedded)
        return caseFields.line(stage: "GIF: ")
        #else
        switch self {
        case let .core(error):
            return "GIF: \(error.description)"
        case .badSignature:
            return "GIF: signature is neither GIF87a nor GIF89a at byte 0"
        case let .truncated(offset, needed, what):
            return "GIF: unexpected end of file in \(what) (\(needed) more byte(s) needed) at byte \(offset)"
        case let .unexpectedBlock(offset, byte):
            return "GIF: byte \(byte) introduces no block at byte \(offset)"
        case let .noImage(offset):
            return "GIF: no image descriptor before the end at byte \(offset)"
        case let .emptyImage(offset):
            return "GIF: the logical screen and the first frame are empty at byte \(offset)"
        case let .badCodeSize(offset, size):
            return "GIF: LZW minimum code size \(size) is outside 2...8 at byte \(offset)"
        case let .codeOutOfRange(offset, code, tableSize):
            return "GIF: LZW code \(code) past the table's \(tableSize) entries at byte \(offset)"
        case let .codeWithoutPredecessor(offset, code):
            return "GIF: LZW code \(code) right after a clear code has no string at byte \(offset)"
        case let .notEnoughImageData(offset, pixelsMissing):
            return "GIF: image data ends with \(pixelsMissing) pixel(s) missing at byte \(offset)"
        case let .limitExceeded(what, value, limit, offset):
            return "GIF: \(what) \(value) exceeds the limit \(limit) at byte \(offset)"
        case let .shortGraphicControl(offset, size):
            return "GIF: graphic control extension of \(size) byte(s), expected 4, ignored at byte \(offset)"
        case let .missingTrailer(offset):
            return "GIF: file ends without the trailer at byte \(offset)"
        }
        #endif
    }
}

extension GIFError {
    /// The case's name, its values in the order it declares them and its offset, for the
    /// short form (see `CaseFields`). A wrapped core error gives its own.
    public var caseFields: CaseFields {
        switch self {
        case let .core(error): return error.caseFields
        case .badSignature: return CaseFields("badSignature", at: 0)
        case let .truncated(offset, needed, what): return CaseFields("truncated", text: what, needed, at: offset)
        case let .unexpectedBlock(offset, byte): return CaseFields("unexpectedBlock", Int(byte), at: offset)
        case let .noImage(offset): return CaseFields("noImage", at: offset)
        case let .emptyImage(offset): return CaseFields("emptyImage", at: offset)
        case let .badCodeSize(offset, size): return CaseFields("badCodeSize", size, at: offset)
        case let .codeOutOfRange(offset, code, tableSize): return CaseFields("codeOutOfRange", code, tableSize, at: offset)
        case let .codeWithoutPredecessor(offset, code): return CaseFields("codeWithoutPredecessor", code, at: offset)
        case let .notEnoughImageData(offset, missing): return CaseFields("notEnoughImageData", missing, at: offset)
        case let .limitExceeded(what, value, limit, offset):
            return CaseFields("limitExceeded", text: what, value, limit, at: offset)
        case let .shortGraphicControl(offset, size): return CaseFields("shortGraphicControl", size, at: offset)
        case let .missingTrailer(offset): return CaseFields("missingTrailer", at: offset)
        }
    }

    /// The sort of failure, as for every codec's error (see `ErrorKind`).
    public var kind: ErrorKind {
        switch self {
        case let .core(error): return error.kind
        case .limitExceeded: return .limit
        case .badSignature, .truncated, .unexpectedBlock, .noImage, .emptyImage, .badCodeSize, .codeOutOfRange,
             .codeWithoutPredecessor, .notEnoughImageData, .shortGraphicControl, .missingTrailer:
            return .damaged
        }
    }

    /// A `CoreError.outOfBounds` (the source ended) as `truncated` in `what`; others wrapped.
    static func from(_ error: CoreError, in what: MessageText) -> GIFError {
        if case let .outOfBounds(offset, needed, _) = error { return .truncated(offset: offset, needed: needed, what: what) }
        return .core(error)
    }
}
