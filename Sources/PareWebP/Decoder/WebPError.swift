@_spi(Codec) import PareCore

/// Everything that can stop a WebP decode, each case with the byte offset in the file where it
/// was found. `description` is one line: the stage, the reason, then the offset, for example
/// "WebP: invalid VP8L stream: prefix code is not complete at byte 37".
public enum WebPError: Error, Equatable, Sendable {
    /// Reading the input failed or the ledger refused an allocation.
    case core(CoreError)
    /// The first twelve bytes are not `RIFF` size `WEBP` (WebP container §"RIFF header").
    case notWebP(offset: Int)
    /// The file ends inside `what`, which needs `needed` more bytes.
    case truncated(what: MessageText, offset: Int, needed: Int)
    /// A chunk whose header or contents break the container's rules.
    case invalidChunk(fourCC: MessageText, offset: Int, reason: MessageText)
    /// No `VP8 `, `VP8L` or `ANMF` chunk holds an image.
    case missingImage(offset: Int)
    /// A lossy bitstream that breaks RFC 6386.
    case invalidVP8(offset: Int, reason: MessageText)
    /// A lossless bitstream that breaks the WebP Lossless Bitstream Specification.
    case invalidVP8L(offset: Int, reason: MessageText)
    /// An `ALPH` chunk that cannot be decoded.
    case invalidAlpha(offset: Int, reason: MessageText)
    /// Valid WebP that this decoder does not implement.
    case unsupported(feature: MessageText, offset: Int)
    /// A size or count over a limit of `WebPOptions`.
    case limitExceeded(what: MessageText, value: Int, limit: Int, offset: Int)
    /// `WebPOptions.strict` is set and the decoder met damage it would otherwise survive.
    case strict(WebPWarning)
}

/// Damage the decoder survives, reported so that callers can tell a clean decode from a
/// patched one. `WebPOptions.strict` turns each into an error.
public enum WebPWarning: Equatable, Sendable {
    /// The image data ended early: rows from `row` on are missing (black, or transparent
    /// where there is alpha) and the data ran out at `offset`.
    case truncated(row: Int, offset: Int)
    /// The alpha data could not be decoded; the picture is opaque from `row` on.
    case alphaDamaged(row: Int, offset: Int)

    public var offset: Int {
        switch self {
        case let .truncated(_, offset), let .alphaDamaged(_, offset): return offset
        }
    }

    var message: MessageText {
        switch self {
        case let .truncated(row, _): return "image data ends early, rows from \(row) on are missing"
        case let .alphaDamaged(row, _): return "alpha data is damaged, opaque from row \(row) on"
        }
    }

    /// The case's name, its values and its offset, for the short form.
    public var caseFields: CaseFields {
        switch self {
        case let .truncated(row, offset): return CaseFields("truncated", row, at: offset)
        case let .alphaDamaged(row, offset): return CaseFields("alphaDamaged", row, at: offset)
        }
    }

    /// The line, as the type's `description`.
    public var description: MessageText {
        #if hasFeature(Embedded)
        return caseFields.line(stage: "WebP: ")
        #else
        return "WebP: \(message) at byte \(offset)"
        #endif
    }
}

#if !hasFeature(Embedded)
extension WebPError: CustomStringConvertible {}
extension WebPWarning: CustomStringConvertible {}
#endif

extension WebPError {
    /// The line, as the type's `description` (under Embedded Swift its short form).
    public var description: MessageText {
        #if hasFeature(Embedded)
        return caseFields.line(stage: "WebP: ")
        #else
        switch self {
        case let .core(error): return "WebP: \(error.description)"
        case let .notWebP(offset): return "WebP: not a WebP file (no RIFF/WEBP header) at byte \(offset)"
        case let .truncated(what, offset, needed):
            return "WebP: unexpected end of file in \(what) (\(needed) more byte(s) needed) at byte \(offset)"
        case let .invalidChunk(fourCC, offset, reason): return "WebP: invalid \(fourCC) chunk: \(reason) at byte \(offset)"
        case let .missingImage(offset): return "WebP: no image chunk (VP8, VP8L or ANMF) at byte \(offset)"
        case let .invalidVP8(offset, reason): return "WebP: invalid VP8 stream: \(reason) at byte \(offset)"
        case let .invalidVP8L(offset, reason): return "WebP: invalid VP8L stream: \(reason) at byte \(offset)"
        case let .invalidAlpha(offset, reason): return "WebP: invalid ALPH chunk: \(reason) at byte \(offset)"
        case let .unsupported(feature, offset): return "WebP: unsupported: \(feature) at byte \(offset)"
        case let .limitExceeded(what, value, limit, offset):
            return "WebP: \(what) \(value) exceeds the limit \(limit) at byte \(offset)"
        case let .strict(warning): return "WebP: \(warning.message) at byte \(warning.offset)"
        }
        #endif
    }

    /// The case's name, its values in the order it declares them and its offset.
    public var caseFields: CaseFields {
        switch self {
        case let .core(error): return error.caseFields
        case let .notWebP(offset): return CaseFields("notWebP", at: offset)
        case let .truncated(what, offset, needed): return CaseFields("truncated", text: what, needed, at: offset)
        case let .invalidChunk(fourCC, offset, reason):
            return CaseFields("invalidChunk", text: "\(fourCC) \(reason)", at: offset)
        case let .missingImage(offset): return CaseFields("missingImage", at: offset)
        case let .invalidVP8(offset, reason): return CaseFields("invalidVP8", text: reason, at: offset)
        case let .invalidVP8L(offset, reason): return CaseFields("invalidVP8L", text: reason, at: offset)
        case let .invalidAlpha(offset, reason): return CaseFields("invalidAlpha", text: reason, at: offset)
        case let .unsupported(feature, offset): return CaseFields("unsupported", text: feature, at: offset)
        case let .limitExceeded(what, value, limit, offset):
            return CaseFields("limitExceeded", text: what, value, limit, at: offset)
        case let .strict(warning): return warning.caseFields
        }
    }

    /// The sort of failure, as for every codec's error (see `ErrorKind`).
    public var kind: ErrorKind {
        switch self {
        case let .core(error): return error.kind
        case .notWebP, .truncated, .invalidChunk, .missingImage, .invalidVP8, .invalidVP8L, .invalidAlpha, .strict:
            return .damaged
        case .unsupported: return .unsupported
        case .limitExceeded: return .limit
        }
    }

    /// The byte offset the error names, nil for the ledger's refusals.
    public var offset: Int? { caseFields.offset }
}
