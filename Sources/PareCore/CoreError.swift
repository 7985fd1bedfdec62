/// The failures PareCore itself can report. Every case says where (a byte offset in the
/// input, or the size of a request) so that a decoder wrapping it can still name the place.
/// `description` is the reason, ending in "at byte N" where there is an offset; a decoder's
/// error that wraps it puts its stage in front ("JPEG: unexpected end of data … at byte N").
public enum CoreError: Error, Equatable, Sendable {
    /// A read of `needed` bytes at `offset` would pass the end of the data (`available` bytes).
    case outOfBounds(offset: Int, needed: Int, available: Int)
    /// Allocating `requested` more bytes would take the ledger over its limit.
    case limitExceeded(requested: Int, inUse: Int, limit: Int)
    /// A size computation (count × element size, width × height, …) overflowed `Int`.
    case sizeOverflow
    /// The byte source could not deliver data at `offset` (an I/O failure, not end of data).
    case readFailed(offset: Int)
    /// The job's `CancellationCheck` said stop; the decoder gave back what it held and
    /// returned between two MCU rows or scanline batches.
    case cancelled
}

#if !hasFeature(Embedded)
extension CoreError: CustomStringConvertible {}
#endif

extension CoreError {
    /// The reason, as the type's `description` (under Embedded Swift a `StaticMessage` in
    /// the board's short form, `boardLine`).
    public var description: MessageText {
        #if hasFeature(Embedded)
        return boardLine
        #else
        switch self {
        case let .outOfBounds(offset, needed, available):
            return "unexpected end of data (\(needed) byte(s) needed, \(available) available) at byte \(offset)"
        case let .limitExceeded(requested, inUse, limit):
            return "memory limit \(limit) exceeded: \(requested) more bytes requested with \(inUse) in use"
        case .sizeOverflow:
            return "size computation overflows"
        case let .readFailed(offset):
            return "read failed at byte \(offset)"
        case .cancelled:
            return "cancelled"
        }
        #endif
    }
}

#if hasFeature(Embedded)
extension CoreError {
    /// The board's form of the reason: the case's name, its values in the order they are
    /// declared, and the offset, in a few bytes of flash instead of the host's sentence
    /// ("outOfBounds 2 0 at byte 1534"). Every error type has one, written as its
    /// `description`'s switch is, so that a new case cannot miss it.
    public var boardLine: StaticMessage {
        switch self {
        case let .outOfBounds(offset, needed, available): return "outOfBounds \(needed) \(available) at byte \(offset)"
        case let .limitExceeded(requested, inUse, limit): return "limitExceeded \(requested) \(inUse) \(limit)"
        case .sizeOverflow: return "sizeOverflow"
        case let .readFailed(offset): return "readFailed at byte \(offset)"
        case .cancelled: return "cancelled"
        }
    }
}
#endif
