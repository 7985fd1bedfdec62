@_spi(Codec) import PareCore

/// Everything that can stop a JPEG decode, each case with the byte offset where it was found.
/// `description` is one line: the stage, the reason, then the offset, for example
/// "JPEG: invalid Huffman code in scan 1 at byte 48213" (the only lines without an offset are
/// the ledger's refusals and size overflows, which belong to no place in the file).
public enum JPEGError: Error, Equatable, Sendable {
    /// Reading the input failed (end of data inside a marker segment, an I/O error) or the
    /// ledger refused an allocation.
    case core(CoreError)
    /// The input does not start with SOI (T.81 B.2.1).
    case notJPEG(offset: Int)
    /// A coding process this decoder does not implement (T.81 Table B.1), named.
    case unsupported(process: JPEGProcess, offset: Int)
    /// A feature outside the baseline decoder: a sample precision other than 8, DNL, a
    /// colour model it cannot convert, non-integral sampling ratios.
    case unsupportedFeature(feature: MessageText, offset: Int)
    /// A marker segment whose contents break T.81 Annex B (a bad length, a zero dimension, a
    /// table id out of range…).
    case invalidSegment(marker: UInt8, offset: Int, reason: MessageText)
    /// A Huffman table whose code lengths cannot form a prefix code (T.81 C.2).
    case invalidHuffmanTable(offset: Int, reason: MessageText)
    /// A scan refers to a table that was never defined.
    case missingTable(kind: MessageText, id: Int, offset: Int)
    /// The file ended, or EOI came, before any scan.
    case missingScan(offset: Int)
    /// A marker where T.81 B.2 does not allow one.
    case unexpectedMarker(marker: UInt8, offset: Int)
    /// A size or count over a limit of `JPEGOptions`.
    case limitExceeded(what: MessageText, value: Int, limit: Int, offset: Int)
    /// `JPEGOptions.strict` is set and the decoder met something it would otherwise repair.
    /// Its description is the warning's own line.
    case strict(JPEGWarning)
}

#if !hasFeature(Embedded)
extension JPEGError: CustomStringConvertible {}
extension JPEGWarning: CustomStringConvertible {}
#endif

extension JPEGError {
    /// The line, as the type's `description` (under Embedded Swift its short form,
    /// `caseFields.line`: a strict decode's error reads as the warning it refused).
    public var description: MessageText {
        #if hasFeature(Embedded)
        return caseFields.line(stage: "JPEG: ")
        #else
        switch self {
        case let .core(error):
            return "JPEG: \(error.description)"
        case let .notJPEG(offset):
            return "JPEG: not a JPEG file (no SOI marker) at byte \(offset)"
        case let .unsupported(process, offset):
            return "JPEG: unsupported coding process: \(process.name) at byte \(offset)"
        case let .unsupportedFeature(feature, offset):
            return "JPEG: unsupported feature: \(feature) at byte \(offset)"
        case let .invalidSegment(marker, offset, reason):
            return "JPEG: invalid \(markerName(marker)) segment: \(reason) at byte \(offset)"
        case let .invalidHuffmanTable(offset, reason):
            return "JPEG: invalid Huffman table: \(reason) at byte \(offset)"
        case let .missingTable(kind, id, offset):
            return "JPEG: scan uses undefined \(kind) table \(id) at byte \(offset)"
        case let .missingScan(offset):
            return "JPEG: no image data (no SOS before the end) at byte \(offset)"
        case let .unexpectedMarker(marker, offset):
            return "JPEG: unexpected marker \(markerName(marker)) at byte \(offset)"
        case let .limitExceeded(what, value, limit, offset):
            return "JPEG: \(what) \(value) exceeds the limit \(limit) at byte \(offset)"
        case let .strict(warning):
            return "JPEG: \(warning.message) at byte \(warning.offset)"
        }
        #endif
    }
}

extension JPEGError {
    /// The case's name, its values in the order it declares them (a marker or a coding
    /// process by its name, on the board its code) and its offset, for the short form. A
    /// wrapped core error or warning gives its own.
    public var caseFields: CaseFields {
        switch self {
        case let .core(error): return error.caseFields
        case let .notJPEG(offset): return CaseFields("notJPEG", at: offset)
        case let .unsupported(process, offset): return CaseFields("unsupported", text: process.name, at: offset)
        case let .unsupportedFeature(feature, offset): return CaseFields("unsupportedFeature", text: feature, at: offset)
        case let .invalidSegment(marker, offset, reason):
            return CaseFields("invalidSegment", text: "\(markerName(marker)) \(reason)", at: offset)
        case let .invalidHuffmanTable(offset, reason): return CaseFields("invalidHuffmanTable", text: reason, at: offset)
        case let .missingTable(kind, id, offset): return CaseFields("missingTable", text: kind, id, at: offset)
        case let .missingScan(offset): return CaseFields("missingScan", at: offset)
        case let .unexpectedMarker(marker, offset): return CaseFields("unexpectedMarker", text: markerName(marker), at: offset)
        case let .limitExceeded(what, value, limit, offset): return CaseFields("limitExceeded", text: what, value, limit, at: offset)
        case let .strict(warning): return warning.caseFields
        }
    }
}

extension JPEGWarning {
    /// The case's name, its values and its offset, for the short form (see `JPEGError.caseFields`).
    public var caseFields: CaseFields {
        switch self {
        case let .truncated(scan, offset): return CaseFields("truncated", scan, at: offset)
        case let .extraneousBytes(count, marker, offset):
            return CaseFields("extraneousBytes", text: markerName(marker), count, at: offset)
        case let .restartResync(expected, found, offset):
            return CaseFields("restartResync", text: "\(markerName(expected)) \(markerName(found))", at: offset)
        case let .invalidHuffmanCode(scan, offset): return CaseFields("invalidHuffmanCode", scan, at: offset)
        case let .componentNotCoded(id, offset): return CaseFields("componentNotCoded", id, at: offset)
        case let .unknownAdobeTransform(value, offset): return CaseFields("unknownAdobeTransform", value, at: offset)
        }
    }
}

/// Damage the decoder repairs the way libjpeg and browsers do, reported so that callers can
/// tell a clean decode from a patched one. `JPEGOptions.strict` turns each into an error.
public enum JPEGWarning: Equatable, Sendable {
    /// The entropy-coded data ended (end of file or a marker) before the scan's last MCU;
    /// the rest of the image comes out mid-gray.
    case truncated(scan: Int, offset: Int)
    /// Bytes that are neither a marker nor entropy-coded data were skipped before a marker.
    case extraneousBytes(count: Int, marker: UInt8, offset: Int)
    /// A restart marker was missing or out of order; decoding resynchronised (T.81 E.2.4).
    case restartResync(expected: UInt8, found: UInt8, offset: Int)
    /// A bit pattern that is no code of the table; the symbol was read as 0 (T.81 F.2.2.3).
    case invalidHuffmanCode(scan: Int, offset: Int)
    /// A component never appeared in any scan before EOI; it decodes as mid-level.
    case componentNotCoded(id: Int, offset: Int)
    /// An Adobe APP14 transform value other than 0, 1 or 2; read as YCbCr/YCCK.
    case unknownAdobeTransform(value: Int, offset: Int)

    public var offset: Int {
        switch self {
        case let .truncated(_, offset), let .extraneousBytes(_, _, offset), let .restartResync(_, _, offset),
             let .invalidHuffmanCode(_, offset), let .componentNotCoded(_, offset),
             let .unknownAdobeTransform(_, offset):
            return offset
        }
    }

    var message: MessageText {
        switch self {
        case let .truncated(scan, _):
            return "data of scan \(scan) ends early, the rest is filled with gray"
        case let .extraneousBytes(count, marker, _):
            return "\(count) extraneous bytes before marker \(markerName(marker))"
        case let .restartResync(expected, found, _):
            return "expected \(markerName(expected)), found \(markerName(found)); resynchronised"
        case let .invalidHuffmanCode(scan, _):
            return "invalid Huffman code in scan \(scan)"
        case let .componentNotCoded(id, _):
            return "component \(id) has no scan"
        case let .unknownAdobeTransform(value, _):
            return "unknown Adobe transform \(value)"
        }
    }
}

extension JPEGWarning {
    /// The line, as the type's `description` (under Embedded Swift its short form,
    /// `caseFields.line`).
    public var description: MessageText {
        #if hasFeature(Embedded)
        return caseFields.line(stage: "JPEG: ")
        #else
        return "JPEG: \(message) at byte \(offset)"
        #endif
    }
}

/// "SOF0", "RST3", "APP1"… or the hex code for the rest, for messages (on the board always
/// the hex code, "0xFFC4": the names are 400 B of flash).
func markerName(_ code: UInt8) -> MessageText {
    #if hasFeature(Embedded)
    return "0xFF\(MessageText.hex(code, digits: 2))"
    #else
    switch code {
    case 0xC0 ... 0xC3, 0xC5 ... 0xC7, 0xC9 ... 0xCB, 0xCD ... 0xCF: return "SOF\(code - 0xC0)"
    case 0xC4: return "DHT"
    case 0xCC: return "DAC"
    case 0xD0 ... 0xD7: return "RST\(code - 0xD0)"
    case 0xD8: return "SOI"
    case 0xD9: return "EOI"
    case 0xDA: return "SOS"
    case 0xDB: return "DQT"
    case 0xDC: return "DNL"
    case 0xDD: return "DRI"
    case 0xE0 ... 0xEF: return "APP\(code - 0xE0)"
    case 0xFE: return "COM"
    default: return "0xFF\(MessageText.hex(code, digits: 2))"
    }
    #endif
}

extension JPEGError {
    /// The sort of failure, as for every codec's error (see `ErrorKind`).
    public var kind: ErrorKind {
        switch self {
        case let .core(error): return error.kind
        case .notJPEG, .invalidSegment, .invalidHuffmanTable, .missingTable, .missingScan, .unexpectedMarker, .strict:
            return .damaged
        case .unsupported, .unsupportedFeature: return .unsupported
        case .limitExceeded: return .limit
        }
    }
}
