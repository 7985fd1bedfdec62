/// Counts every buffer the library allocates, and refuses allocations past a limit.
///
/// This is Pare's allocation-counting hook and part of its public API: a caller creates one
/// ledger per job (one image), passes it to the decoders and the resampler, and afterwards
/// reads `peakBytes` and `allocationCount` to see what the job cost. Tests use it to prove
/// the streaming footprint; servers use `limit` to cap what one upload may take.
///
/// Buffers come from `allocate(_:count:)` as `LedgerBuffer`s, which give their bytes back
/// when released. Memory that other code allocates on our behalf (zlib's state) is recorded
/// with `reserve(bytes:)` / `release(bytes:)`. A ledger is not thread-safe: one job, one
/// thread, one ledger.
public final class MemoryLedger {
    /// The most bytes that may be outstanding at once; `nil` for no limit.
    public let limit: Int?
    /// Bytes outstanding now.
    public private(set) var currentBytes: Int = 0
    /// The most bytes that were ever outstanding at once.
    public private(set) var peakBytes: Int = 0
    /// How many allocations (buffers and reservations) were made.
    public private(set) var allocationCount: Int = 0
    /// Called after every successful allocation, with the ledger's new state. Tests use it to
    /// sample the process heap at the moments the ledger's own count is highest.
    public var afterAllocation: ((MemoryLedger) -> Void)?

    public init(limit: Int? = nil) {
        self.limit = limit
    }

    /// Records `bytes` as allocated, or throws `limitExceeded` without recording anything.
    /// Call it before allocating, so that a refused request never touches the heap.
    public func reserve(bytes: Int) throws(CoreError) {
        precondition(bytes >= 0, "negative reservation")
        let (total, overflow) = currentBytes.addingReportingOverflow(bytes)
        if overflow { throw .sizeOverflow }
        if let limit, total > limit {
            throw .limitExceeded(requested: bytes, inUse: currentBytes, limit: limit)
        }
        currentBytes = total
        if total > peakBytes { peakBytes = total }
        allocationCount += 1
    }

    /// Tells the `afterAllocation` observer that memory recorded with `reserve(bytes:)` now
    /// really exists. Call it right after the allocation that the reservation stands for.
    public func noteAllocated() {
        afterAllocation?(self)
    }

    /// Records that `bytes` more than are outstanding now were held at one moment, by work
    /// that counted them in ledgers of its own (the parallel JPEG decoder's helper threads,
    /// each with a ledger limited to a share of this one's room). Raises `peakBytes` if
    /// `currentBytes + bytes` is above it; counts nothing and refuses nothing, since the
    /// limit was enforced where those bytes were counted.
    public func recordPeak(additional bytes: Int) {
        precondition(bytes >= 0, "negative peak")
        let (total, overflow) = currentBytes.addingReportingOverflow(bytes)
        peakBytes = max(peakBytes, overflow ? Int.max : total)
    }

    /// Gives back bytes recorded by `reserve(bytes:)`.
    public func release(bytes: Int) {
        precondition(bytes >= 0 && bytes <= currentBytes, "ledger released more than it holds")
        currentBytes -= bytes
    }

    /// A buffer of `count` elements, each set to `value`, counted until it is released.
    /// Inlinable so that callers in other modules fill the buffer with specialised code (a
    /// memset for bytes), not element by element through generic witnesses.
    @inlinable @inline(never)
    public func allocate<Element: BitwiseCopyable>(
        _ type: Element.Type, count: Int, initialValue value: Element
    ) throws(CoreError) -> LedgerBuffer<Element> {
        let bytes = try reserve(count: count, stride: MemoryLayout<Element>.stride)
        let buffer = LedgerBuffer(ledger: self, count: count, byteCount: bytes, initialValue: value)
        noteAllocated()
        return buffer
    }

    /// A buffer of `count` elements left unset, counted until it is released: for a buffer
    /// its owner writes before it reads (the inflater's window and input), where setting a
    /// hundred kilobytes would be most of a small image's work.
    @_spi(Codec) @inlinable @inline(never)
    public func allocateUninitialized<Element: BitwiseCopyable>(
        _ type: Element.Type, count: Int
    ) throws(CoreError) -> LedgerBuffer<Element> {
        let bytes = try reserve(count: count, stride: MemoryLayout<Element>.stride)
        let buffer = LedgerBuffer<Element>(ledger: self, count: count, byteCount: bytes, initialValue: nil)
        noteAllocated()
        return buffer
    }

    /// Records `count` elements of `stride` bytes as `reserve(bytes:)` does, returning the
    /// bytes: the part of `allocate` that does not depend on the element type, out of line
    /// so that each element type's copy of `allocate` is only the buffer's creation.
    @usableFromInline @inline(never)
    func reserve(count: Int, stride: Int) throws(CoreError) -> Int {
        guard count >= 0 else { throw .sizeOverflow }
        let (bytes, overflow) = count.multipliedReportingOverflow(by: stride)
        if overflow { throw .sizeOverflow }
        try reserve(bytes: bytes)
        return bytes
    }
}

/// A fixed-size buffer of plain values whose memory is counted by a `MemoryLedger`.
///
/// A class so that it has exactly one owner of its memory and gives it back in `deinit`;
/// hand it around by reference, never copy its contents implicitly. Indexing is checked;
/// hot loops take `baseAddress` after proving their bounds against `count`.
public final class LedgerBuffer<Element: BitwiseCopyable> {
    public let count: Int
    public let baseAddress: UnsafeMutablePointer<Element>
    @usableFromInline let byteCount: Int
    @usableFromInline let ledger: MemoryLedger

    @inlinable @inline(__always)
    init(ledger: MemoryLedger, count: Int, byteCount: Int, initialValue: Element?) {
        self.ledger = ledger
        self.count = count
        self.byteCount = byteCount
        // One element at least, so that baseAddress is always a real pointer.
        baseAddress = UnsafeMutablePointer<Element>.allocate(capacity: max(count, 1))
        // Elements are BitwiseCopyable: memory left unset is valid to write, then read.
        if let initialValue { baseAddress.initialize(repeating: initialValue, count: max(count, 1)) }
    }

    deinit {
        baseAddress.deallocate()
        ledger.release(bytes: byteCount)
    }

    @inlinable
    public subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "LedgerBuffer index out of range")
            return baseAddress[index]
        }
        set {
            precondition(index >= 0 && index < count, "LedgerBuffer index out of range")
            baseAddress[index] = newValue
        }
    }

    /// The whole buffer as a typed buffer pointer, valid while this object is alive.
    @inlinable
    public var buffer: UnsafeMutableBufferPointer<Element> {
        UnsafeMutableBufferPointer(start: baseAddress, count: count)
    }

    /// Sets every element to `value`.
    public func fill(with value: Element) {
        baseAddress.update(repeating: value, count: count)
    }
}
