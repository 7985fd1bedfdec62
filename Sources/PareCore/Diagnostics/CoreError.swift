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
    /// The row sink refused row `row` (an encoder that cannot take the rows, a file that
    /// cannot be written): the decoder stopped there. The sink keeps its own error, which
    /// says why.
    case sinkStopped(row: Int)
}

#if !hasFeature(Embedded)
extension CoreError: CustomStringConvertible {}
#endif

extension CoreError {
    /// The reason, as the type's `description` (under Embedded Swift its short form,
    /// `caseFields.line`).
    public var description: MessageText {
        #if hasFeature(Embedded)
        return caseFields.line(stage: "")
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
        case let .sinkStopped(row):
            return "the row sink stopped the decode at row \(row)"
        }
        #endif
    }

    /// The case's name, its values in the order it declares them and its offset
    /// ("outOfBounds 2 0 at byte 1534" in the short form).
    public var caseFields: CaseFields {
        switch self {
        case let .outOfBounds(offset, needed, available): return CaseFields("outOfBounds", needed, available, at: offset)
        case let .limitExceeded(requested, inUse, limit): return CaseFields("limitExceeded", requested, inUse, limit)
        case .sizeOverflow: return CaseFields("sizeOverflow")
        case let .readFailed(offset): return CaseFields("readFailed", at: offset)
        case .cancelled: return CaseFields("cancelled")
        case let .sinkStopped(row): return CaseFields("sinkStopped", row)
        }
    }
}
