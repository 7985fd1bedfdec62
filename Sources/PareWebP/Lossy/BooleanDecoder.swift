/// The boolean entropy decoder of RFC 6386 §7: each bit is read with a probability (out of
/// 256) that it is zero, by splitting the current range in that proportion. `range` is kept
/// as range − 1 and `value` holds the undecoded bits, the current 8-bit window at `bits`.
/// Past the end of its data it reads one zero byte, then sets `exhausted`: RFC 6386 frames
/// never need that byte, so a decoder that sees `exhausted` knows the data was cut off.
struct BooleanDecoder {
    var data: UnsafePointer<UInt8>
    var position: Int
    var end: Int
    /// The payload offset of `data[0]` (a `PartitionWindow` moves it on as it slides).
    var base = 0
    var value: UInt64 = 0
    var range: UInt32 = 254
    var bits = -8
    var exhausted = false
    var pastEnd = false

    init(data: UnsafePointer<UInt8>, start: Int, end: Int, base: Int = 0) {
        self.data = data
        position = start
        self.end = end
        self.base = base
        load()
    }

    /// The payload offset of the byte being decoded, for error messages.
    var offset: Int { base + position }

    // SAFETY: `data[start..<end]` is the partition's bytes (or a window on them) in a buffer
    // that outlives the decoder; every read is at `position < end`.
    /// Refills `value` with up to seven bytes (§7.3's "shift in the next byte", batched).
    @inline(__always)
    mutating func load() {
        if end - position >= 8 {
            // SAFETY: position + 8 <= end, checked just above; 7 bytes are taken.
            let word = UInt64(bigEndian: UnsafeRawPointer(data + position).loadUnaligned(as: UInt64.self)) >> 8
            value = value << 56 | word
            position += 7
            bits += 56
        } else if position < end {
            value = value << 8 | UInt64(data[position])
            position += 1
            bits += 8
        } else if !exhausted {
            value <<= 8
            bits += 8
            exhausted = true
        } else {
            bits = 0
            pastEnd = true
        }
    }

    /// §7.3: one bit whose probability of being zero is `probability`/256.
    ///
    /// Shifts mask their count (`&>>`, `&<<`): `bits` is 0 ... 55 after the load (a load
    /// happens below 0 and adds at most 56), and the renormalising shift is 0 ... 7, so no
    /// count reaches 64 and the checks of a full shift would only cost instructions.
    @inline(__always)
    mutating func bit(_ probability: UInt8) -> Bool {
        if bits < 0 { load() }
        let split = (range &* UInt32(probability)) &>> 8
        let window = UInt32(truncatingIfNeeded: value &>> UInt64(bits))
        let one = window > split
        var r: UInt32
        if one {
            r = range &- split
            value &-= UInt64(split &+ 1) &<< UInt64(bits)
        } else {
            r = split &+ 1
        }
        // Renormalise: shift until the range is at least 128 again.
        let shift = r.leadingZeroBitCount &- 24
        r &<<= UInt32(shift)
        bits &-= shift
        range = r &- 1
        return one
    }

    /// §7.3 / §9.2 `L(n)`: an unsigned n-bit literal, most significant bit first.
    mutating func literal(_ n: Int) -> Int {
        var v = 0
        for _ in 0 ..< n { v = v << 1 | (bit(128) ? 1 : 0) }
        return v
    }

    /// A magnitude of `n` bits followed by a sign bit (§9.3, §9.6).
    mutating func signedLiteral(_ n: Int) -> Int {
        let v = literal(n)
        return bit(128) ? -v : v
    }

    /// A flag, then if set a signed n-bit value; 0 when the flag is clear.
    mutating func optionalSigned(_ n: Int) -> Int {
        bit(128) ? signedLiteral(n) : 0
    }

    /// The sign of a coefficient: a bit at probability one half.
    @inline(__always)
    mutating func signed(_ v: Int) -> Int {
        bit(128) ? -v : v
    }
}
