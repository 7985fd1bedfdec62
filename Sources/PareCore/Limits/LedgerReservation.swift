/// Bytes recorded in a `MemoryLedger` for storage that is not a `LedgerBuffer` (Swift arrays
/// a decoder appends to, tables made on first use), given back when the owner lets go of it.
/// Grow it before the storage grows, so that a refused request never touches the heap.
public final class LedgerReservation {
    public private(set) var bytes = 0
    public let ledger: MemoryLedger

    public init(ledger: MemoryLedger) { self.ledger = ledger }

    /// Records `more` bytes, or throws `limitExceeded` without recording anything.
    public func grow(bytes more: Int) throws(CoreError) {
        try ledger.reserve(bytes: more)
        bytes += more
        ledger.noteAllocated()
    }

    deinit { ledger.release(bytes: bytes) }
}
