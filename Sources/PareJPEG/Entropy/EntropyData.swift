@_spi(Codec) import PareCore

/// Entropy-coded data as the input stream holds it (T.81 B.1.1.5: inside a scan, 0xFF is
/// followed by a stuffed 0x00, by fill 0xFF bytes or by a marker): the reads of the JPEG
/// entropy decoders that look at several bytes of the stream's window at once, and the
/// passes over a scan's data that do not decode it.
extension ByteStream {
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
        // SAFETY: cursor + 8 ≤ fill ≤ capacity, so the eight bytes lie in the window.
        let word = UInt64(bigEndian: UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self))
        guard Self.ffBytes(word) == 0 else { return false }
        buffer |= word &>> UInt64(truncatingIfNeeded: count)
        cursor &+= (63 &- count) &>> 3
        count |= 56
        return true
    }

    /// Of eight bytes in a word, the 0xFF ones: 0x80 in each byte of the result whose byte in
    /// `word` is 0xFF, and possibly in bytes above (more significant than) such a byte; zero
    /// exactly when no byte is 0xFF. The classic zero-byte test applied to the complement.
    @inline(__always)
    static func ffBytes(_ word: UInt64) -> UInt64 {
        let inverted = ~word
        return (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080
    }

    /// The window index of the first 0xFF at or after `cursor`, or `fill` when there is none:
    /// up to there the entropy-coded data is plain bytes (T.81 B.1.1.5), which the fast
    /// path's refill loads without testing them (`BitReader.plainLimit`). Eight bytes a step.
    func firstFF() -> Int {
        var index = cursor
        while index &+ 8 <= fill {
            // SAFETY: index + 8 ≤ fill ≤ capacity: the eight bytes lie in the window.
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let hits = Self.ffBytes(word)
            // Loaded little-endian, the lowest flagged byte is the first 0xFF, and exact.
            if hits != 0 { return index &+ hits.trailingZeroBitCount &>> 3 }
            index &+= 8
        }
        while index < fill && base[index] != 0xFF { index &+= 1 }
        return index
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
        try core { () throws(CoreError) in try load(at: position) }
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
    @_spi(Codec) public mutating func nextEntropyMarker(jpegLS: Bool = false) throws(JPEGError) -> (code: UInt8, offset: Int, fillStart: Int)? {
        let zero = SIMD16<UInt8>(repeating: 0)
        while true {
            // 16 bytes at a time while every 0xFF among them is a stuffed 0xFF00, so that only
            // markers leave the loop. Lane-wise, x | (0 − x) has its high bit set exactly when
            // x ≠ 0: a hit is a byte whose complement is 0 followed by a byte that is not.
            // (Wrapping arithmetic on the machine's vector width compiles to vector
            // instructions; lane comparisons and wider vectors compile to per-lane loops.)
            while cursor &+ 17 <= fill {
                // SAFETY: cursor + 17 ≤ fill ≤ capacity: both 16-byte loads lie in the window.
                let block = UnsafeRawPointer(base + cursor)
                let inverted = ~block.loadUnaligned(as: SIMD16<UInt8>.self)
                let following = block.loadUnaligned(fromByteOffset: 1, as: SIMD16<UInt8>.self)
                let hits = ~(inverted | (zero &- inverted)) & (following | (zero &- following))
                let words = unsafeBitCast(hits, to: SIMD2<UInt64>.self)
                if (words[0] | words[1]) & 0x8080_8080_8080_8080 != 0 { break }
                cursor &+= 16
            }
            while cursor < fill && base[cursor] != 0xFF { cursor &+= 1 }
            guard var byte = try core({ () throws(CoreError) in try nextByte() }) else { return nil }
            guard byte == 0xFF else { continue }
            let fillStart = position - 1
            repeat {
                guard let next = try core({ () throws(CoreError) in try nextByte() }) else { return nil }
                byte = next
            } while byte == 0xFF
            if byte != 0 && !(jpegLS && byte < 0x80) { return (byte, position - 2, fillStart) }
        }
    }
}
