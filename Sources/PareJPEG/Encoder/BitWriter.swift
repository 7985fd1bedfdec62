import PareCore

/// The entropy coder's output (T.81 F.1.2.3 and B.1.1.5): codes are packed most significant
/// bit first; every 0xFF byte of entropy-coded data is followed by a stuffed 0x00 so that
/// it cannot be read as a marker; the last byte before a marker is padded with 1-bits
/// (T.81 F.1.2.3, "byte alignment"). Bytes collect in a ledger-counted buffer and go to the
/// sink when it fills, so the whole file is never held.
struct BitWriter<Sink: ByteSink> {
    /// The buffered output. 16 KiB: large enough that the sink is called rarely.
    let buffer: LedgerBuffer<UInt8>
    var fill = 0
    /// Bits not yet written, right-aligned; `bitCount` of them are valid (fewer than 32
    /// between calls).
    var accumulator: UInt64 = 0
    var bitCount = 0
    /// Bytes handed to the sink so far.
    var bytesWritten = 0
    /// Last, so that the fields above have the same offsets whatever the sink: code not
    /// specialised for a sink type (a caller in another module) reaches them directly.
    var sink: Sink

    static var bufferSize: Int { 16 * 1024 }

    init(sink: Sink, ledger: MemoryLedger) throws(CoreError) {
        self.sink = sink
        buffer = try ledger.allocate(UInt8.self, count: Self.bufferSize, initialValue: 0)
    }

    /// Appends the low `length` bits of `bits` (length ≤ 32, no bits above it set).
    @inline(__always)
    mutating func write(_ bits: UInt32, length: Int) {
        accumulator = accumulator &<< UInt64(truncatingIfNeeded: length) | UInt64(bits)
        bitCount &+= length
        if bitCount >= 32 { flushWord() }
    }

    /// Moves the oldest 32 bits into the buffer as four bytes, each 0xFF followed by 0x00.
    @inline(__always)
    mutating func flushWord() {
        bitCount &-= 32
        let word = UInt32(truncatingIfNeeded: accumulator &>> UInt64(bitCount))
        // A byte is 0xFF exactly when its complement's byte is zero; most words have none.
        let inverted = ~word
        let hasFF = ((inverted &- 0x0101_0101) & ~inverted & 0x8080_8080) != 0
        if hasFF || fill > Self.bufferSize - 8 {
            flushWordSlowly(word)
            return
        }
        // SAFETY: fill ≤ bufferSize − 8, checked above.
        (UnsafeMutableRawPointer(buffer.baseAddress) + fill).storeBytes(of: word.bigEndian, as: UInt32.self)
        fill &+= 4
    }

    /// The rare cases: a full buffer, or 0xFF bytes to stuff.
    @inline(never)
    mutating func flushWordSlowly(_ word: UInt32) {
        if fill > Self.bufferSize - 8 { drain() }
        for shift in stride(from: 24, through: 0, by: -8) {
            let byte = UInt8(truncatingIfNeeded: word >> UInt32(shift))
            buffer.baseAddress[fill] = byte
            fill += 1
            if byte == 0xFF {
                buffer.baseAddress[fill] = 0
                fill += 1
            }
        }
    }

    /// Pads the last partial byte with 1-bits and writes out every whole byte (T.81 F.1.2.3),
    /// as before a marker or at the end of a scan.
    mutating func alignToByte() {
        let partial = bitCount & 7
        if partial != 0 { write((1 << UInt32(8 - partial)) - 1, length: 8 - partial) }
        while bitCount > 0 {
            bitCount -= 8
            let byte = UInt8(truncatingIfNeeded: accumulator >> UInt64(bitCount))
            writeByte(byte)
            if byte == 0xFF { writeByte(0) }
        }
        accumulator = 0
    }

    /// One byte outside entropy-coded data (markers and their segments): no stuffing.
    mutating func writeByte(_ byte: UInt8) {
        if fill >= Self.bufferSize { drain() }
        buffer.baseAddress[fill] = byte
        fill += 1
    }

    mutating func writeBytes(_ bytes: [UInt8]) {
        for byte in bytes { writeByte(byte) }
    }

    mutating func writeUInt16(_ value: Int) {
        writeByte(UInt8(truncatingIfNeeded: value >> 8))
        writeByte(UInt8(truncatingIfNeeded: value))
    }

    /// Hands the buffered bytes to the sink.
    mutating func drain() {
        guard fill > 0 else { return }
        sink.write(UnsafeRawBufferPointer(start: buffer.baseAddress, count: fill))
        bytesWritten += fill
        fill = 0
    }
}
