/// Sequential reading of a `ByteSource` through a fixed window counted by the ledger: how
/// the decoders walk a file front to back without reading all of it into memory.
///
/// The window is refilled when exhausted; `seek(to:)` jumps anywhere (refilling lazily).
/// Hot loops (the JPEG entropy decoder) call `nextByte()`, which is inlinable and touches
/// the source only once per window.
public struct ByteStream<Source: ByteSource> {
    public let source: Source
    @usableFromInline let window: LedgerBuffer<UInt8>
    /// The input offset of `window[0]`.
    @usableFromInline var windowOffset: Int = 0
    /// Valid bytes in the window.
    @usableFromInline var windowFill: Int = 0
    /// The next byte to read, as an index into the window.
    @usableFromInline var cursor: Int = 0

    /// The default window: large enough that refills are rare, small beside any image.
    public static var defaultWindowSize: Int { 64 * 1024 }

    public init(source: Source, ledger: MemoryLedger, windowSize: Int = defaultWindowSize) throws(CoreError) {
        self.source = source
        window = try ledger.allocate(UInt8.self, count: max(windowSize, 16), initialValue: 0)
    }

    /// The input offset of the next byte.
    @inlinable public var position: Int { windowOffset + cursor }
    /// Bytes left before the end of the input.
    @inlinable public var remaining: Int { source.count - position }
    @inlinable public var isAtEnd: Bool { position >= source.count }

    /// The next byte, or `nil` at the end of the input.
    @inlinable
    public mutating func nextByte() throws(CoreError) -> UInt8? {
        if cursor < windowFill {
            let byte = window.baseAddress[cursor]
            cursor += 1
            return byte
        }
        return try refillAndRead()
    }

    @usableFromInline
    mutating func refillAndRead() throws(CoreError) -> UInt8? {
        try refill(at: position)
        guard cursor < windowFill else { return nil }
        let byte = window.baseAddress[cursor]
        cursor += 1
        return byte
    }

    /// Reloads the window so that it starts at `offset`.
    mutating func refill(at offset: Int) throws(CoreError) {
        let n = try source.read(into: UnsafeMutableRawBufferPointer(start: window.baseAddress, count: window.count),
                                at: offset)
        windowOffset = offset
        windowFill = max(0, n)
        cursor = 0
    }

    /// The next byte without consuming it, or `nil` at the end.
    public mutating func peekByte() throws(CoreError) -> UInt8? {
        if cursor >= windowFill { try refill(at: position) }
        return cursor < windowFill ? window.baseAddress[cursor] : nil
    }

    public mutating func readUInt8() throws(CoreError) -> UInt8 {
        guard let byte = try nextByte() else {
            throw .outOfBounds(offset: position, needed: 1, available: 0)
        }
        return byte
    }

    public mutating func readUInt16(_ order: ByteOrder = .bigEndian) throws(CoreError) -> UInt16 {
        let start = position
        guard remaining >= 2 else { throw .outOfBounds(offset: start, needed: 2, available: max(0, remaining)) }
        let a = UInt16(try readUInt8()), b = UInt16(try readUInt8())
        return order == .bigEndian ? a << 8 | b : b << 8 | a
    }

    public mutating func readUInt32(_ order: ByteOrder = .bigEndian) throws(CoreError) -> UInt32 {
        let start = position
        guard remaining >= 4 else { throw .outOfBounds(offset: start, needed: 4, available: max(0, remaining)) }
        let hi = UInt32(try readUInt16(order)), lo = UInt32(try readUInt16(order))
        return order == .bigEndian ? hi << 16 | lo : lo << 16 | hi
    }

    /// Copies exactly `destination.count` bytes, or throws `outOfBounds` having consumed none.
    public mutating func read(into destination: UnsafeMutableRawBufferPointer) throws(CoreError) {
        let count = destination.count
        guard remaining >= count else {
            throw .outOfBounds(offset: position, needed: count, available: max(0, remaining))
        }
        var copied = 0
        while copied < count {
            if cursor >= windowFill {
                try refill(at: position)
                if windowFill == 0 { throw .outOfBounds(offset: position, needed: count - copied, available: 0) }
            }
            let n = min(count - copied, windowFill - cursor)
            destination.baseAddress!.advanced(by: copied)
                .copyMemory(from: window.baseAddress + cursor, byteCount: n)
            cursor += n
            copied += n
        }
    }

    /// The next `count` bytes as an array (for marker segments and chunks, bounded by the
    /// caller's limits before this is called).
    public mutating func readBytes(_ count: Int) throws(CoreError) -> [UInt8] {
        guard count >= 0 else { throw .sizeOverflow }
        var result = [UInt8](repeating: 0, count: count)
        if count > 0 {
            // withUnsafeMutableBytes rethrows untyped errors, so the typed one travels in a Result.
            try result.withUnsafeMutableBytes { raw in
                Result { () throws(CoreError) in try read(into: raw) }
            }.get()
        }
        return result
    }

    public mutating func skip(_ count: Int) throws(CoreError) {
        guard count >= 0, remaining >= count else {
            throw .outOfBounds(offset: position, needed: count, available: max(0, remaining))
        }
        try seek(to: position + count)
    }

    /// Moves to `offset` (0…count); the window reloads on the next read if needed.
    public mutating func seek(to offset: Int) throws(CoreError) {
        guard offset >= 0, offset <= source.count else {
            throw .outOfBounds(offset: offset, needed: 0, available: 0)
        }
        if offset >= windowOffset && offset <= windowOffset + windowFill {
            cursor = offset - windowOffset
        } else {
            windowOffset = offset
            windowFill = 0
            cursor = 0
        }
    }
}
