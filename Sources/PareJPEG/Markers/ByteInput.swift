import PareCore

/// The decoder's view of its input: a ledger-counted window over the `ByteSource`, read front
/// to back, refilled from the source once per window. Not generic: the source is reached
/// through one stored function, so that the marker parser and the entropy decoder compile
/// to plain, specialised code whatever the caller's source type (generic code called from
/// another module would otherwise run unspecialised, looking up type metadata per byte).
struct ByteInput {
    /// Copies bytes at an offset into a buffer, as `ByteSource.read(into:at:)`.
    let fetch: (UnsafeMutableRawBufferPointer, Int) throws(CoreError) -> Int
    /// The input's length.
    let count: Int
    let window: LedgerBuffer<UInt8>
    let base: UnsafeMutablePointer<UInt8>
    /// The input offset of `base[0]`.
    var windowOffset = 0
    /// Valid bytes in the window.
    var fill = 0
    /// The next byte, as an index into the window.
    var cursor = 0

    /// The window's size in bytes, `JPEGOptions.inputWindowBytes` clamped to at least
    /// `minimumWindowSize`.
    let capacity: Int

    /// The default window, `JPEGOptions.inputWindowBytes`'s.
    static var windowSize: Int { JPEGOptions().inputWindowBytes }

    /// The smallest window: the entropy-data scan looks 17 bytes ahead and the bit reader's
    /// plain refill 8, so a smaller one would only make every read a refill.
    static let minimumWindowSize = 64

    init<Source: ByteSource>(source: Source, ledger: MemoryLedger, windowSize: Int = windowSize) throws(JPEGError) {
        fetch = { (buffer, offset) throws(CoreError) -> Int in try source.read(into: buffer, at: offset) }
        count = source.count
        let size = max(windowSize, Self.minimumWindowSize)
        capacity = size
        window = try core { () throws(CoreError) in try ledger.allocate(UInt8.self, count: size, initialValue: 0) }
        base = window.baseAddress
    }

    /// The input offset of the next byte.
    @inline(__always) var position: Int { windowOffset + cursor }
    @inline(__always) var remaining: Int { count - position }

    /// The next byte, or nil at the end of the input.
    @inline(__always)
    mutating func nextByte() throws(JPEGError) -> UInt8? {
        if cursor < fill {
            let byte = base[cursor]
            cursor += 1
            return byte
        }
        return try nextByteAfterRefill()
    }

    @inline(never)
    mutating func nextByteAfterRefill() throws(JPEGError) -> UInt8? {
        try load(at: position)
        guard cursor < fill else { return nil }
        let byte = base[cursor]
        cursor += 1
        return byte
    }

    /// Reloads the window so that it starts at `offset`.
    mutating func load(at offset: Int) throws(JPEGError) {
        let n = try core { () throws(CoreError) in
            try fetch(UnsafeMutableRawBufferPointer(start: base, count: capacity), offset)
        }
        windowOffset = offset
        fill = max(0, min(n, capacity))
        cursor = 0
    }

    /// The usual refill of `BitReader`, small enough to inline into the entropy decoders'
    /// loops, which keep the bit buffer in registers: when the next eight bytes hold no 0xFF
    /// (so no stuffing and no marker, T.81 B.1.1.5), all of them are ORed in below the
    /// `count` valid bits and as many whole bytes as fit are counted, leaving 56–63 valid
    /// bits. The uncounted tail is the following byte's own bits, which the next refill ORs in
    /// again unchanged. Returns false, having done nothing, near the window's end or at a 0xFF.
    /// The caller checks first that no marker has ended the data.
    @inline(__always)
    mutating func loadPlainBytes(into buffer: inout UInt64, count: inout Int) -> Bool {
        guard fill &- cursor >= 8 else { return false }
        let word = UInt64(bigEndian: UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self))
        let inverted = ~word
        guard (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080 == 0 else { return false }
        buffer |= word &>> UInt64(truncatingIfNeeded: count)
        cursor &+= (63 &- count) &>> 3
        count |= 56
        return true
    }

    /// True when the window holds at least `n` more bytes; when it does not, and the window
    /// is large enough and the input has more than the window, the window is first reloaded
    /// to start at the next byte.
    @inline(__always)
    mutating func hasAhead(_ n: Int) throws(JPEGError) -> Bool {
        if fill &- cursor >= n { return true }
        return try reloadAhead(n)
    }

    @inline(never)
    mutating func reloadAhead(_ n: Int) throws(JPEGError) -> Bool {
        guard n <= capacity, windowOffset + fill < count else { return false }
        try load(at: position)
        return fill - cursor >= n
    }

    /// Passes over entropy-coded data without decoding it (see `nextEntropyMarker`): stops
    /// after the first marker that is not RSTn and returns its code and the offset of its
    /// 0xFF, or nil at the end of the input.
    mutating func skipEntropyData() throws(JPEGError) -> (code: UInt8, offset: Int)? {
        while let marker = try nextEntropyMarker() {
            if !Marker.isRestart(marker.code) { return (marker.code, marker.offset) }
        }
        return nil
    }

    /// Passes over entropy-coded data up to and including the next marker, RSTn included
    /// (T.81 B.1.1.5: inside a scan 0xFF is followed by a stuffed 0x00, by fill 0xFF bytes,
    /// or by a marker): its code, the offset of its 0xFF and of the first fill byte before
    /// it (the same when there is none), or nil at the end of the input. JPEG-LS stuffs a 0
    /// bit instead (T.87 A.1): with `jpegLS`, 0xFF followed by a byte below 0x80 is data.
    mutating func nextEntropyMarker(jpegLS: Bool = false) throws(JPEGError) -> (code: UInt8, offset: Int, fillStart: Int)? {
        let zero = SIMD16<UInt8>(repeating: 0)
        while true {
            // 16 bytes at a time while every 0xFF among them is a stuffed 0xFF00, so that only
            // markers leave the loop. Lane-wise, x | (0 − x) has its high bit set exactly when
            // x ≠ 0: a hit is a byte whose complement is 0 followed by a byte that is not.
            // (Wrapping arithmetic on the machine's vector width compiles to vector
            // instructions; lane comparisons and wider vectors compile to per-lane loops.)
            while cursor &+ 17 <= fill {
                let block = UnsafeRawPointer(base + cursor)
                let inverted = ~block.loadUnaligned(as: SIMD16<UInt8>.self)
                let following = block.loadUnaligned(fromByteOffset: 1, as: SIMD16<UInt8>.self)
                let hits = ~(inverted | (zero &- inverted)) & (following | (zero &- following))
                let words = unsafeBitCast(hits, to: SIMD2<UInt64>.self)
                if (words[0] | words[1]) & 0x8080_8080_8080_8080 != 0 { break }
                cursor &+= 16
            }
            while cursor < fill && base[cursor] != 0xFF { cursor &+= 1 }
            guard var byte = try nextByte() else { return nil }
            guard byte == 0xFF else { continue }
            let fillStart = position - 1
            repeat {
                guard let next = try nextByte() else { return nil }
                byte = next
            } while byte == 0xFF
            if byte != 0 && !(jpegLS && byte < 0x80) { return (byte, position - 2, fillStart) }
        }
    }

    mutating func readUInt8() throws(JPEGError) -> UInt8 {
        guard let byte = try nextByte() else { throw .core(.outOfBounds(offset: position, needed: 1, available: 0)) }
        return byte
    }

    mutating func readUInt16() throws(JPEGError) -> UInt16 {
        guard remaining >= 2 else { throw .core(.outOfBounds(offset: position, needed: 2, available: max(0, remaining))) }
        let high = UInt16(try readUInt8())
        return high << 8 | UInt16(try readUInt8())
    }

    /// The next `n` bytes as an array; the caller bounds `n` (a segment length ≤ 65533).
    mutating func readBytes(_ n: Int) throws(JPEGError) -> [UInt8] {
        guard n >= 0, remaining >= n else {
            throw .core(.outOfBounds(offset: position, needed: n, available: max(0, remaining)))
        }
        var result = [UInt8](repeating: 0, count: n)
        for i in 0 ..< n { result[i] = try readUInt8() }
        return result
    }

    mutating func skip(_ n: Int) throws(JPEGError) {
        guard n >= 0, remaining >= n else {
            throw .core(.outOfBounds(offset: position, needed: n, available: max(0, remaining)))
        }
        seek(to: position + n)
    }

    /// Moves to `offset` (0…count); the window reloads on the next read when needed.
    mutating func seek(to offset: Int) {
        if offset >= windowOffset && offset <= windowOffset + fill {
            cursor = offset - windowOffset
        } else {
            windowOffset = offset
            fill = 0
            cursor = 0
        }
    }
}
