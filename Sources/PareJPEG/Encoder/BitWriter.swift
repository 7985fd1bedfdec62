import PareCore

/// The entropy coder's output (T.81 F.1.2.3 and B.1.1.5): codes are packed most significant
/// bit first; every 0xFF byte of entropy-coded data is followed by a stuffed 0x00 so that
/// it cannot be read as a marker; the last byte before a marker is padded with 1-bits
/// (T.81 F.1.2.3, "byte alignment"). Bytes collect in a ledger-counted buffer; `BitWriter`
/// hands them to the sink when it fills, so the whole file is never held.
///
/// `BitPacker` is the part without the sink, so that the code writing the entropy-coded
/// data is concrete whatever the sink (generic code called from another module runs
/// unspecialised): its writers keep room for what they write, checking `room` before a
/// unit of known greatest size (an MCU, a block), and `BitWriter` drains it when short.
struct BitPacker {
    /// The buffered output. 16 KiB: large enough that the sink is called rarely.
    let buffer: LedgerBuffer<UInt8>
    var fill = 0
    /// Bits not yet written, right-aligned; `bitCount` of them are valid (fewer than 32
    /// between calls).
    var accumulator: UInt64 = 0
    var bitCount = 0

    static var capacity: Int { 16 * 1024 }
    /// The most bytes one `write` adds: a 32-bit word with every byte stuffed.
    static var writeBound: Int { 8 }
    /// The most bytes one block's codes add (T.81 F.1.2: a DC code and its bits, then at most
    /// 63 AC codes of 16 bits with 10 bits each, 27 + 63 × 26 bits; every byte stuffed; a word).
    static var blockBound: Int { 2 * (27 + 63 * 26 + 7) / 8 + writeBound }

    init(ledger: MemoryLedger) throws(CoreError) {
        buffer = try ledger.allocate(UInt8.self, count: Self.capacity, initialValue: 0)
    }

    /// Free bytes in the buffer.
    @inline(__always)
    var room: Int { Self.capacity &- fill }

    /// Appends the low `length` bits of `bits` (length ≤ 32, no bits above it set). Needs
    /// `writeBound` bytes of room.
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
        fill = Self.storeWord(UInt32(truncatingIfNeeded: accumulator &>> UInt64(bitCount)), into: buffer.baseAddress, at: fill)
    }

    /// Stores a word's four bytes at `start`, each 0xFF followed by 0x00; returns the new
    /// fill. Static and given only the bytes, so that a coding loop keeps its packer's fields
    /// in registers. Needs `writeBound` bytes of room.
    @inline(__always)
    static func storeWord(_ word: UInt32, into buffer: UnsafeMutablePointer<UInt8>, at start: Int) -> Int {
        // A byte is 0xFF exactly when its complement's byte is zero; most words have none.
        let inverted = ~word
        if ((inverted &- 0x0101_0101) & ~inverted & 0x8080_8080) != 0 {
            return storeStuffed(word, into: buffer, at: start)
        }
        // SAFETY: the writer kept writeBound bytes of room, start ≤ capacity − 8.
        (UnsafeMutableRawPointer(buffer) + start).storeBytes(of: word.bigEndian, as: UInt32.self)
        return start &+ 4
    }

    /// The rare case: 0xFF bytes to stuff; returns the new fill. Inlined and straight-line:
    /// a call or a loop would take the registers that a coding loop keeps its state in.
    @inline(__always)
    static func storeStuffed(_ word: UInt32, into buffer: UnsafeMutablePointer<UInt8>, at start: Int) -> Int {
        var fill = start
        // Each byte is stored with a 0 after it, which the next byte overwrites unless the
        // byte was 0xFF. SAFETY: the writer kept writeBound (8) bytes of room, and the four
        // bytes and their zeros reach at most start + 7.
        @inline(__always) func put(_ byte: UInt8) {
            buffer[fill] = byte
            buffer[fill &+ 1] = 0
            fill &+= byte == 0xFF ? 2 : 1
        }
        put(UInt8(truncatingIfNeeded: word &>> 24))
        put(UInt8(truncatingIfNeeded: word &>> 16))
        put(UInt8(truncatingIfNeeded: word &>> 8))
        put(UInt8(truncatingIfNeeded: word))
        return fill
    }

    /// Pads the last partial byte with 1-bits and writes out every whole byte (T.81 F.1.2.3),
    /// as before a marker or at the end of a scan. Needs `writeBound` bytes of room.
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

    /// One byte outside entropy-coded data (markers and their segments): no stuffing. Needs
    /// one byte of room.
    mutating func writeByte(_ byte: UInt8) {
        buffer[fill] = byte
        fill += 1
    }
}

/// A `BitPacker` and the sink its bytes go to.
struct BitWriter<Sink: ByteSink> {
    var bits: BitPacker
    /// Bytes handed to the sink so far.
    var bytesWritten = 0
    var sink: Sink

    init(sink: Sink, ledger: MemoryLedger) throws(CoreError) {
        self.sink = sink
        bits = try BitPacker(ledger: ledger)
    }

    /// Drains the buffer unless `bytes` more fit.
    @inline(__always)
    mutating func makeRoom(_ bytes: Int) {
        if bits.room < bytes { drain() }
    }

    @inline(__always)
    mutating func write(_ value: UInt32, length: Int) {
        makeRoom(BitPacker.writeBound)
        bits.write(value, length: length)
    }

    mutating func alignToByte() {
        makeRoom(2 * BitPacker.writeBound)
        bits.alignToByte()
    }

    mutating func writeByte(_ byte: UInt8) {
        makeRoom(1)
        bits.writeByte(byte)
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
        guard bits.fill > 0 else { return }
        sink.write(UnsafeRawBufferPointer(start: bits.buffer.baseAddress, count: bits.fill))
        bytesWritten += bits.fill
        bits.fill = 0
    }
}
