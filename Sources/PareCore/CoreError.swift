/// The failures PareCore itself can report. Every case says where (a byte offset in the
/// input, or the size of a request) so that a decoder wrapping it can still name the place.
public enum CoreError: Error, Equatable, Sendable {
    /// A read of `needed` bytes at `offset` would pass the end of the data (`available` bytes).
    case outOfBounds(offset: Int, needed: Int, available: Int)
    /// Allocating `requested` more bytes would take the ledger over its limit.
    case limitExceeded(requested: Int, inUse: Int, limit: Int)
    /// A size computation (count × element size, width × height, …) overflowed `Int`.
    case sizeOverflow
    /// The byte source could not deliver data at `offset` (an I/O failure, not end of data).
    case readFailed(offset: Int)
}

extension CoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .outOfBounds(offset, needed, available):
            return "unexpected end of data: \(needed) byte(s) needed at byte \(offset), \(available) available"
        case let .limitExceeded(requested, inUse, limit):
            return "memory limit exceeded: \(requested) more bytes requested with \(inUse) in use, limit \(limit)"
        case .sizeOverflow:
            return "size overflow"
        case let .readFailed(offset):
            return "read failed at byte \(offset)"
        }
    }
}
