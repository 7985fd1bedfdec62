/// Sequential reading of a `ByteSource` through a fixed window counted by the ledger: how
/// the decoders walk a file front to back without reading all of it into memory.
///
/// The window is refilled when exhausted; `seek(to:)` jumps anywhere (refilling lazily).
/// Not generic: the source is reached through one stored function, so that the readers
/// built on the stream (the marker reader, the JPEG entropy decoder, the PNG chunk reader)
/// compile to plain, specialised code whatever the caller's source type (generic code
/// called from another module would otherwise run unspecialised, looking up type metadata
/// per byte). The hot loop calls `nextByte()`, which is inlinable and touches the source
/// only once per window. The window's fields are open, for readers that look at several
/// bytes at once (the JPEG entropy decoder): such a reader keeps `cursor` within `0...fill`.
/// For the codec modules only (`@_spi(Codec)`).
@_spi(Codec)
public struct ByteStream {
    /// Copies bytes at an offset into a buffer, as `ByteSource.read(into:at:)`.
    @usableFromInline let fetch: (UnsafeMutableRawBufferPointer, Int) throws(CoreError) -> Int
    /// The input's length.
    public let count: Int
    @usableFromInline let window: LedgerBuffer<UInt8>
    public let base: UnsafeMutablePointer<UInt8>
    /// The input offset of `base[0]`.
    public var windowOffset = 0
    /// Valid bytes in the window.
    public var fill = 0
    /// The next byte, as an index into the window.
    public var cursor = 0
    /// The window's size in bytes: the size asked for, at least `minimumWindowSize`.
    public let capacity: Int

    /// The default window: large enough that refills are rare, small beside any image.
    public static var defaultWindowSize: Int { 64 * 1024 }

    /// The smallest window: the JPEG entropy-data scan looks 17 bytes ahead and its bit
    /// reader's plain refill 8, so a smaller one would only make every read a refill.
    public static let minimumWindowSize = 64

    public init<Source: ByteSource>(source: Source, ledger: MemoryLedger,
                                    windowSize: Int = defaultWindowSize) throws(CoreError) {
        fetch = { (buffer, offset) throws(CoreError) -> Int in try source.read(into: buffer, at: offset) }
        count = source.count
        let size = max(windowSize, Self.minimumWindowSize)
        capacity = size
        window = try ledger.allocate(UInt8.self, count: size, initialValue: 0)
        base = window.baseAddress
    }

    /// A second reader of `other`'s input, with a window of its own: for a decoder that reads
    /// two places of one file at once, on two threads (the source must allow reads from both;
    /// every `ByteSource` Pare passes to a parallel decode does).
    public init(sharingSourceOf other: ByteStream, ledger: MemoryLedger,
                windowSize: Int = defaultWindowSize) throws(CoreError) {
        fetch = other.fetch
        count = other.count
        let size = max(windowSize, Self.minimumWindowSize)
        capacity = size
        window = try ledger.allocate(UInt8.self, count: size, initialValue: 0)
        base = window.baseAddress
    }

    /// The input offset of the next byte.
    @inlinable @inline(__always) public var position: Int { windowOffset + cursor }
    /// Bytes left before the end of the input.
    @inlinable @inline(__always) public var remaining: Int { count - position }
    @inlinable public var isAtEnd: Bool { position >= count }

    /// The next byte, or nil at the end of the input.
    @inlinable @inline(__always)
    public mutating func nextByte() throws(CoreError) -> UInt8? {
        if cursor < fill {
            let byte = base[cursor]
            cursor += 1
            return byte
        }
        return try nextByteAfterRefill()
    }

    /// At the end of the input the window stays as it is (there is nothing to load), so that
    /// a reader can still look back at the last bytes (`BitReader.offset(bitsBack:)`).
    @inline(never) @usableFromInline
    mutating func nextByteAfterRefill() throws(CoreError) -> UInt8? {
        guard position < count else { return nil }
        try load(at: position)
        guard cursor < fill else { return nil }
        let byte = base[cursor]
        cursor += 1
        return byte
    }

    /// Reloads the window so that it starts at `offset`.
    public mutating func load(at offset: Int) throws(CoreError) {
        let n = try fetch(UnsafeMutableRawBufferPointer(start: base, count: capacity), offset)
        windowOffset = offset
        fill = max(0, min(n, capacity))
        cursor = 0
    }

    public mutating func readUInt8() throws(CoreError) -> UInt8 {
        guard let byte = try nextByte() else { throw .outOfBounds(offset: position, needed: 1, available: 0) }
        return byte
    }

    public mutating func readUInt16(_ order: ByteOrder = .bigEndian) throws(CoreError) -> UInt16 {
        try require(2)
        let a = UInt16(try readUInt8()), b = UInt16(try readUInt8())
        return order == .bigEndian ? a << 8 | b : b << 8 | a
    }

    public mutating func readUInt32(_ order: ByteOrder = .bigEndian) throws(CoreError) -> UInt32 {
        try require(4)
        let hi = UInt32(try readUInt16(order)), lo = UInt32(try readUInt16(order))
        return order == .bigEndian ? hi << 16 | lo : lo << 16 | hi
    }

    /// Throws `outOfBounds` at the current position unless `n` (≥ 0) more bytes remain.
    public func require(_ n: Int) throws(CoreError) {
        guard n >= 0, remaining >= n else {
            throw .outOfBounds(offset: position, needed: n, available: max(0, remaining))
        }
    }

    /// Copies exactly `destination.count` bytes, or throws `outOfBounds` having consumed none.
    public mutating func read(into destination: UnsafeMutableRawBufferPointer) throws(CoreError) {
        let count = destination.count
        try require(count)
        var copied = 0
        while copied < count {
            if cursor >= fill {
                try load(at: position)
                if fill == 0 { throw .outOfBounds(offset: position, needed: count - copied, available: 0) }
            }
            let n = min(count - copied, fill - cursor)
            destination.baseAddress!.advanced(by: copied).copyMemory(from: base + cursor, byteCount: n)
            cursor += n
            copied += n
        }
    }

    /// The next `n` bytes as an array (for marker segments and chunks, bounded by the
    /// caller's limits before this is called).
    public mutating func readBytes(_ n: Int) throws(CoreError) -> [UInt8] {
        try require(n)
        var result = [UInt8](repeating: 0, count: n)
        if n > 0 {
            // withUnsafeMutableBytes rethrows untyped errors, so the typed one travels in a Result.
            try result.withUnsafeMutableBytes { raw in
                Result { () throws(CoreError) in try read(into: raw) }
            }.get()
        }
        return result
    }

    public mutating func skip(_ n: Int) throws(CoreError) {
        try require(n)
        seek(to: position + n)
    }

    /// Moves to `offset`; the window reloads on the next read when needed (past the end,
    /// reads find no bytes).
    public mutating func seek(to offset: Int) {
        if offset >= windowOffset && offset <= windowOffset + fill {
            cursor = offset - windowOffset
        } else {
            windowOffset = offset
            fill = 0
            cursor = 0
        }
    }
}
