import PareCore
import CZlib

/// Everything that can go wrong reading or writing a PNG. Each case carries the byte offset
/// in the file where the problem was found (for chunks: the offset of the chunk's length
/// field), so that `description` gives one line: the stage, the reason, then "at byte N",
/// for example "PNG: CRC mismatch in chunk IDAT at byte 1234". Errors from the image data
/// (zlib, filter types, palette indices, missing scanlines) give the offset of the end of the
/// compressed bytes read so far, the nearest place the inflater's buffering allows.
public enum PNGError: Error, Equatable, Sendable {
    /// The byte source or the memory ledger failed (its own description names the offset or size).
    case core(CoreError)
    /// The first eight bytes are not the PNG signature (PNG 3rd ed. §5.2).
    case badSignature
    /// The file ends inside something that needs `needed` more bytes.
    case truncated(offset: Int, needed: Int, what: String)
    /// A chunk type byte outside A–Z / a–z (§5.3).
    case invalidChunkType(offset: Int)
    /// A chunk length over 2^31−1 (§5.3) or over `PNGOptions.maxChunkLength`.
    case chunkTooLong(chunk: String, offset: Int, length: Int, limit: Int)
    /// The stored CRC of a critical chunk differs from the computed one (§5.3).
    case crcMismatch(chunk: String, offset: Int)
    /// The first chunk is not IHDR (§5.6).
    case missingIHDR(offset: Int)
    /// A chunk appears where the ordering rules of §5.6 forbid it.
    case chunkOutOfOrder(chunk: String, offset: Int, reason: String)
    /// IHDR is the wrong length or holds a value §11.2.1 does not allow.
    case invalidIHDR(offset: Int, reason: String)
    /// PLTE is missing for colour type 3, forbidden for gray, or malformed (§11.2.2).
    case invalidPalette(offset: Int, reason: String)
    /// The image has no PLTE but its colour type needs one.
    case missingPLTE(offset: Int)
    /// IEND came before any IDAT.
    case missingIDAT(offset: Int)
    /// An unknown chunk with the critical bit set (§5.4): the image cannot be understood.
    case unknownCriticalChunk(chunk: String, offset: Int)
    /// zlib refused the compressed data (§10); `offset` is the compressed byte being read.
    case zlibDataError(offset: Int, message: String)
    /// The image data ended (the IDAT run or the zlib stream) before every scanline was read.
    case notEnoughImageData(offset: Int, rowsMissing: Int)
    /// A scanline starts with a filter type other than 0–4 (§7.3).
    case invalidFilterType(offset: Int, row: Int, filter: UInt8)
    /// A palette index at or past the number of PLTE entries (§11.2.2).
    case paletteIndexOutOfRange(offset: Int, row: Int, index: Int, entries: Int)
    /// A limit of `PNGOptions` was crossed: `what` names it.
    case limitExceeded(what: String, value: Int, limit: Int, offset: Int)
    /// A decode that ended without error handed the image builder no image: the decoder
    /// broke its own contract (it always starts the row stream). `offset` is the first IDAT.
    case noImage(offset: Int)
    /// The encoder was given a pixel format or setting it cannot write.
    case unsupportedEncoding(reason: String)
}

extension PNGError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .core(error):
            return "PNG: \(error)"
        case .badSignature:
            return "PNG: bad signature at byte 0"
        case let .truncated(offset, needed, what):
            return "PNG: unexpected end of file in \(what) (\(needed) more byte(s) needed) at byte \(offset)"
        case let .invalidChunkType(offset):
            return "PNG: invalid chunk type at byte \(offset)"
        case let .chunkTooLong(chunk, offset, length, limit):
            return "PNG: chunk \(chunk) length \(length) exceeds the limit \(limit) at byte \(offset)"
        case let .crcMismatch(chunk, offset):
            return "PNG: CRC mismatch in chunk \(chunk) at byte \(offset)"
        case let .missingIHDR(offset):
            return "PNG: first chunk is not IHDR at byte \(offset)"
        case let .chunkOutOfOrder(chunk, offset, reason):
            return "PNG: chunk \(chunk) out of order: \(reason) at byte \(offset)"
        case let .invalidIHDR(offset, reason):
            return "PNG: invalid IHDR: \(reason) at byte \(offset)"
        case let .invalidPalette(offset, reason):
            return "PNG: invalid PLTE: \(reason) at byte \(offset)"
        case let .missingPLTE(offset):
            return "PNG: palette image has no PLTE before IDAT at byte \(offset)"
        case let .missingIDAT(offset):
            return "PNG: IEND before any IDAT at byte \(offset)"
        case let .unknownCriticalChunk(chunk, offset):
            return "PNG: unknown critical chunk \(chunk) at byte \(offset)"
        case let .zlibDataError(offset, message):
            return "PNG: zlib data error in image data: \(message) at byte \(offset)"
        case let .notEnoughImageData(offset, rowsMissing):
            return "PNG: image data ends with \(rowsMissing) scanline(s) missing at byte \(offset)"
        case let .invalidFilterType(offset, row, filter):
            return "PNG: invalid filter type \(filter) on scanline \(row) at byte \(offset)"
        case let .paletteIndexOutOfRange(offset, row, index, entries):
            return "PNG: palette index \(index) out of range (\(entries) entries) on scanline \(row) at byte \(offset)"
        case let .limitExceeded(what, value, limit, offset):
            return "PNG: \(what) \(value) exceeds the limit \(limit) at byte \(offset)"
        case let .noImage(offset):
            return "PNG: the image data gave no image at byte \(offset)"
        case let .unsupportedEncoding(reason):
            return "PNG: cannot encode: \(reason)"
        }
    }
}

/// The version of the zlib library ParePNG was linked with.
public var zlibVersionString: String { String(cString: zlibVersion()) }

extension PNGError {
    /// The sort of failure, as for every codec's error (see `ErrorKind`).
    public var kind: ErrorKind {
        switch self {
        case let .core(error): return error.kind
        case .badSignature, .truncated, .invalidChunkType, .crcMismatch, .missingIHDR, .chunkOutOfOrder, .invalidIHDR,
             .invalidPalette, .missingPLTE, .missingIDAT, .zlibDataError, .notEnoughImageData, .invalidFilterType,
             .paletteIndexOutOfRange:
            return .damaged
        case .unknownCriticalChunk: return .unsupported
        case .noImage: return .damaged
        case .chunkTooLong, .limitExceeded: return .limit
        case .unsupportedEncoding: return .usage
        }
    }
}
