/// The lossless format's bit reader (WebP Lossless Bitstream §3): bits are taken from each
/// byte least significant first, and values of several bits are read least significant bit
/// first. Past the end of the data it reads zeros and sets `overrun`, which the decoder turns
/// into a truncation: a cut-off file then costs no more than the bits it really has.
struct LosslessBitReader {
    let data: UnsafePointer<UInt8>
    let count: Int
    /// The file offset of `data[0]`, for error messages.
    let fileOffset: Int
    var position = 0
    var buffer: UInt64 = 0
    var bitCount = 0
    var overrun = false

    init(data: UnsafePointer<UInt8>, count: Int, fileOffset: Int) {
        self.data = data
        self.count = count
        self.fileOffset = fileOffset
        fill()
    }

    /// The file offset of the byte holding the next unread bit.
    var offset: Int { fileOffset + position - bitCount / 8 }

    /// Tops the buffer up to at least 57 bits while the data lasts.
    @inline(__always)
    mutating func fill() {
        if bitCount <= 56 && count - position >= 8 {
            // SAFETY: position + 8 <= count, checked just above.
            let word = UInt64(littleEndian: UnsafeRawPointer(data + position).loadUnaligned(as: UInt64.self))
            buffer |= word << UInt64(bitCount)
            let bytes = (63 - bitCount) >> 3
            position += bytes
            bitCount += bytes << 3
            return
        }
        while bitCount <= 56 && position < count {
            buffer |= UInt64(data[position]) << UInt64(bitCount)
            position += 1
            bitCount += 8
        }
    }

    /// The next `n` (≤ 32) bits without consuming them; zeros past the end.
    @inline(__always)
    mutating func peek(_ n: Int) -> UInt32 {
        if bitCount < n { fill() }
        return UInt32(truncatingIfNeeded: buffer & ((1 << UInt64(n)) - 1))
    }

    @inline(__always)
    mutating func skip(_ n: Int) {
        if n > bitCount {
            overrun = true
            buffer = 0
            bitCount = 0
            return
        }
        buffer >>= UInt64(n)
        bitCount -= n
    }

    /// Reads `n` (0…32) bits as an unsigned value.
    @inline(__always)
    mutating func read(_ n: Int) -> Int {
        let value = peek(n)
        skip(n)
        return Int(value)
    }

    mutating func flag() -> Bool { read(1) != 0 }
}
