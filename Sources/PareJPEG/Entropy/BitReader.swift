@_spi(Codec) import PareCore

/// Reads entropy-coded data bit by bit (T.81 F.2.2.5, Figure F.18, and the byte stuffing of
/// F.1.2.3): a 64-bit buffer holds the next bits most significant first; a stuffed 0xFF00
/// yields 0xFF; fill 0xFF bytes before a marker are skipped. A marker (or the end of the
/// input, taken as EOI) ends the data: it is remembered in `marker` and the buffer is padded
/// with zero bits, as libjpeg does, so that a damaged segment decodes to something
/// definite. Once padding bits are consumed, `isExhausted` is true and the scan decoder
/// fills the rest of the segment with flat blocks.
struct BitReader {
    var stream: ByteStream
    /// The next bits, most significant first. Bits past `count` are zero or, after
    /// `ByteStream.loadPlainBytes`, the first bits of the byte that follows the counted ones.
    var buffer: UInt64 = 0
    /// Valid bits in `buffer`, real data and padding.
    var count = 0
    /// Of `count`, how many are zero padding added after the data ended.
    var padding = 0
    /// The marker that ended the data, already consumed from the stream.
    var marker: UInt8?
    var markerOffset = 0
    /// Input offsets `plainFrom ..< plainTo` hold no 0xFF, as `plainLimit` last found.
    var plainFrom = 0
    var plainTo = 0

    init(stream: ByteStream) {
        self.stream = stream
    }

    /// True once the decoder has used bits that came after the end of the data.
    var isExhausted: Bool { count < padding }

    /// Makes at least 56 bits available (real or padding). Plain bytes are loaded eight at a
    /// time (`ByteStream.loadPlainBytes`, which the entropy decoders' loops also call inline);
    /// a 0xFF, a window refill or the end of the data take the slow step.
    @inline(never)
    mutating func refill() throws(JPEGError) {
        if marker == nil && stream.loadPlainBytes(into: &buffer, count: &count) { return }
        while count <= 56 {
            if marker == nil, stream.cursor < stream.fill {
                let byte = stream.base[stream.cursor]
                if byte != 0xFF {
                    stream.cursor &+= 1
                    buffer |= UInt64(byte) &<< UInt64(56 - count)
                    count &+= 8
                    continue
                }
            }
            do { try refillStep() } catch { throw .core(error) }
        }
    }

    /// One step of `refill` for the unusual cases: a stuffed or fill 0xFF, a marker, the end
    /// of the window or of the data, or padding after a marker.
    mutating func refillStep() throws(CoreError) {
        if marker != nil {
            let add = (64 - count) & ~7
            count += add
            padding += add
            return
        }
        guard let byte = try stream.nextByte() else {
            marker = Marker.eoi
            markerOffset = stream.position
            return
        }
        if byte == 0xFF {
            var next = try stream.nextByte()
            while next == 0xFF { next = try stream.nextByte() }
            guard let code = next else {
                marker = Marker.eoi
                markerOffset = stream.position
                return
            }
            if code != 0 {
                marker = code
                markerOffset = stream.position - 2
                return
            }
        }
        buffer |= UInt64(byte) &<< UInt64(56 - count)
        count += 8
    }

    /// The window index up to which the bytes from the cursor are known to hold no 0xFF (no
    /// stuffing, no marker: T.81 B.1.1.5), so that a refill below it can load eight bytes
    /// without testing them; at most `fill`, and no further than the cursor once a marker has
    /// ended the data. Rescans (`ByteStream.firstFF`) only when fewer than eight bytes ahead
    /// are known, so each byte is scanned about once.
    mutating func plainLimit() -> Int {
        guard marker == nil else { return stream.cursor }
        let position = stream.position
        if position < plainFrom || position &+ 8 > plainTo {
            plainFrom = position
            plainTo = stream.windowOffset &+ stream.firstFF()
        }
        return min(plainTo &- stream.windowOffset, stream.fill)
    }

    /// The fast path's refill when the next eight bytes are not known to be plain (a 0xFF
    /// among them, or the window's end): `refill`, which reads past the 0xFF, then the new
    /// `plainLimit`.
    @inline(never)
    mutating func refillNearFF() throws(JPEGError) -> Int {
        try refill()
        return plainLimit()
    }

    /// The bits `decode` consumes for a pattern that is no code.
    static let badCodeBits = 17

    @inline(__always)
    mutating func ensure(_ bits: Int) throws(JPEGError) {
        if count < bits && !(marker == nil && stream.loadPlainBytes(into: &buffer, count: &count)) { try refill() }
    }

    /// The next `n` (1…32) bits without consuming them; `ensure` must have made them available.
    @inline(__always)
    func peek(_ n: Int) -> Int {
        Int(truncatingIfNeeded: buffer &>> UInt64(64 - n))
    }

    @inline(__always)
    mutating func skip(_ n: Int) {
        buffer = buffer &<< UInt64(n)
        count &-= n
    }

    /// RECEIVE(s) followed by EXTEND (T.81 F.2.2.1, Figure F.12), for 1 ≤ s ≤ 16.
    @inline(__always)
    mutating func receiveExtend(_ s: Int) -> Int {
        let value = peek(s)
        skip(s)
        return Self.extend(value, s)
    }

    /// EXTEND (T.81 F.2.2.1, Figure F.12) of the `s` bits `v`, 1 ≤ s ≤ 16: if v < 2^(s−1),
    /// v − 2^s + 1, else v. Without a branch: whether the sign bit is clear is as likely as
    /// not, which a predictor cannot learn.
    @inline(__always)
    static func extend(_ v: Int, _ s: Int) -> Int {
        let negative = (v &- (1 &<< (s &- 1))) &>> (Int.bitWidth - 1)
        return v &+ (negative & ((-1 &<< s) &+ 1))
    }

    /// DECODE (T.81 F.2.2.3, Figure F.16): one symbol. Needs 17 bits available. A bit pattern
    /// that is no code returns nil after consuming 17 bits (`badCodeBits`), as libjpeg does.
    @inline(__always)
    mutating func decode(_ table: HuffmanPointers) -> Int? {
        let entry = Int(table.lookahead[peek(HuffmanDecodingTable.lookaheadBits)])
        if entry != 0 {
            skip(entry &>> 8)
            return entry & 0xFF
        }
        return decodeLong(table)
    }

    @inline(never)
    mutating func decodeLong(_ table: HuffmanPointers) -> Int? {
        var length = HuffmanDecodingTable.lookaheadBits + 1
        var code = peek(length)
        while code > Int(table.maxCode[length]) {
            length += 1
            code = peek(length)
        }
        guard length <= 16 else {
            skip(Self.badCodeBits)
            return nil
        }
        skip(length)
        return Int(table.values[(Int(table.valueOffset[length]) &+ code) & 0xFF])
    }

    /// The input offset of the byte that holds the bit `bitsBack` bits before the next unread
    /// one: the buffered bits are counted back from the end of the data loaded so far, a
    /// stuffed 0xFF00 as one byte, and the fill 0xFF bytes before a marker that ended the data
    /// as none (T.81 B.1.1.2). For reporting where a bad code lies, and for the test that the
    /// block decoders agree; not for hot paths.
    func offset(bitsBack: Int) -> Int {
        var end = stream.position
        if marker != nil {
            end = markerOffset
            while end > stream.windowOffset, end - stream.windowOffset <= stream.fill,
                  stream.base[end - stream.windowOffset - 1] == 0xFF {
                end -= 1
            }
        }
        let bits = count - padding + bitsBack
        guard bits > 0 else { return end }
        var index = end - stream.windowOffset
        for _ in 0 ..< (bits + 7) / 8 {
            guard index > 0, index <= stream.fill else { return max(0, end - (bits + 7) / 8) }
            index -= index >= 2 && stream.base[index - 1] == 0 && stream.base[index - 2] == 0xFF ? 2 : 1
        }
        return stream.windowOffset + index
    }

    /// Forgets buffered bits, as at a restart marker (T.81 F.2.2.5: the data before a marker
    /// is padded to a byte boundary with 1 bits, which are no data).
    mutating func discardBits() {
        buffer = 0
        count = 0
        padding = 0
    }
}
