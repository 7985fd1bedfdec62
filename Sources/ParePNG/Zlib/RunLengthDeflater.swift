import PareCore
import CZlib

/// A zlib stream (RFC 1950) whose deflate blocks (RFC 1951 3.2.7, dynamic Huffman codes) hold
/// literals and runs, nothing else: the only back-reference is distance 1, which repeats the
/// byte before. What it is for is PNG's filtered rows of photographs, where a filter has
/// already taken out what neighbouring pixels share and what is left is noise around zero
/// with no repeats to find: zlib spends most of its time in `longest_match` looking for
/// strings that are not there, and its Huffman-only mode gives a smaller file than its
/// default on such rows. Here one pass counts the symbols of a block, a second writes them
/// with the block's own codes. Flat areas (a sky, a screenshot's background) filter to runs
/// of one byte and still shrink; repeated patterns (text, dithering) do not, which is
/// zlib's job (`PNGCompression.small`).
///
/// Input is gathered into blocks of `blockSize` bytes; the compressed stream goes out through
/// `emit` in pieces of up to 64 KiB, as zlib's `Deflater` gives it. The output buffer holds a
/// whole block at its worst (15 bits a byte), so that the symbol loop never checks for room.
final class RunLengthDeflater {
    /// Bytes of input per deflate block: large enough that a block's code tables (about 60
    /// bytes) cost nothing, small enough that the codes follow a picture that changes.
    static let blockSize = 128 * 1024
    /// The shortest run written as a literal and a back-reference rather than as literals.
    static let minimumRun = 5
    /// Output bytes a block can take at most: 15 bits for each input byte (the longest
    /// literal code; a run's symbols take fewer bits than its bytes would), and its header.
    static let blockBound = blockSize * 15 / 8 + 1024

    private let builder: HuffmanCodeBuilder
    private let block: LedgerBuffer<UInt8>
    private var pending = 0
    private var adler: UInt = 1
    private var started = false

    // Per block: literal/length symbol counts, the code lengths (literal/length, then one
    // distance code), the code-length alphabet's run-coded sequence, counts and codes.
    private let counts: LedgerBuffer<UInt32>
    private let lengths: LedgerBuffer<UInt8>
    private let codes: LedgerBuffer<UInt16>
    private let sequence: LedgerBuffer<UInt16>     // symbol | extra value << 8
    private let lengthCounts: LedgerBuffer<UInt32>
    private let lengthLengths: LedgerBuffer<UInt8>
    private let lengthCodes: LedgerBuffer<UInt16>
    private let literalTable: LedgerBuffer<UInt32>  // code | length << 16, per literal
    private let outputBuffer: LedgerBuffer<UInt8>
    private var writer: BitWriter

    init(ledger: MemoryLedger) throws(PNGError) {
        do {
            builder = try HuffmanCodeBuilder(ledger: ledger)
            block = try ledger.allocate(UInt8.self, count: Self.blockSize, initialValue: 0)
            counts = try ledger.allocate(UInt32.self, count: DeflateAlphabet.literalLengthSymbols, initialValue: 0)
            lengths = try ledger.allocate(UInt8.self, count: DeflateAlphabet.literalLengthSymbols + 1, initialValue: 0)
            codes = try ledger.allocate(UInt16.self, count: DeflateAlphabet.literalLengthSymbols, initialValue: 0)
            sequence = try ledger.allocate(UInt16.self, count: DeflateAlphabet.literalLengthSymbols + 1, initialValue: 0)
            lengthCounts = try ledger.allocate(UInt32.self, count: DeflateAlphabet.codeLengthSymbols, initialValue: 0)
            lengthLengths = try ledger.allocate(UInt8.self, count: DeflateAlphabet.codeLengthSymbols, initialValue: 0)
            lengthCodes = try ledger.allocate(UInt16.self, count: DeflateAlphabet.codeLengthSymbols, initialValue: 0)
            literalTable = try ledger.allocate(UInt32.self, count: 256, initialValue: 0)
            outputBuffer = try ledger.allocate(UInt8.self, count: Self.blockBound + 64 * 1024, initialValue: 0)
        } catch {
            throw .core(error)
        }
        writer = BitWriter(output: outputBuffer.baseAddress, capacity: outputBuffer.count)
    }

    /// Compresses `count` bytes at `input`, then with `finish` ends the stream (the last
    /// block, the Adler-32 check value), handing the output to `emit` in pieces.
    func deflate(_ input: UnsafePointer<UInt8>?, count: Int, finish: Bool,
                 emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        var writer = self.writer
        defer { self.writer = writer }
        if !started {
            // CMF 0x78 (deflate, 32 KiB window), FLG 0x01 (fastest; 0x7801 is a multiple of 31).
            writer.put(0x0178, 16, emit: emit)
            started = true
        }
        if let input, count > 0 {
            // zlib's adler32 counts in 32 bits: a longer input goes in 1 GiB pieces.
            var at = 0
            while at < count {
                let piece = min(count - at, 1 << 30)
                adler = CZlib.adler32(adler, input + at, uInt(piece))
                at += piece
            }
            at = 0
            while at < count {
                let piece = min(count - at, Self.blockSize - pending)
                (block.baseAddress + pending).update(from: input + at, count: piece)
                pending += piece
                at += piece
                if pending == Self.blockSize {
                    writeBlock(final: false, into: &writer, emit: emit)
                    pending = 0
                }
            }
        }
        guard finish else { return }
        writeBlock(final: true, into: &writer, emit: emit)
        pending = 0
        writer.alignToByte(emit: emit)
        // RFC 1950: the Adler-32 of the uncompressed data, most significant byte first.
        let check = UInt32(truncatingIfNeeded: adler)
        for shift in [24, 16, 8, 0] { writer.put(UInt64(check >> UInt32(shift) & 0xFF), 8, emit: emit) }
        writer.flush(emit: emit)
    }

    /// Visits the block's bytes as deflate symbols: a literal, or after a literal the rest
    /// of its run as back-references at distance 1 of 3–258 bytes. Both passes (counting,
    /// writing) go through here, so that they see the same symbols.
    @inline(__always)
    private static func tokens(_ data: UnsafePointer<UInt8>, count: Int, literal: (UInt8) -> Void,
                               repeats: (Int) -> Void) {
        var i = 0
        let runMask: UInt64 = 1 << (8 * UInt64(minimumRun)) - 1
        while i < count {
            let value = data[i]
            if i + 8 <= count {
                // Most bytes start no run: eight bytes read at once tell, without a branch per
                // byte. SAFETY: i + 8 ≤ count.
                let word = UInt64(littleEndian: UnsafeRawPointer(data + i).loadUnaligned(as: UInt64.self))
                if (word ^ UInt64(value) &* 0x0101_0101_0101_0101) & runMask != 0 {
                    literal(value)
                    i += 1
                    continue
                }
            }
            var run = 1
            // SAFETY: i + run < count bounds every read.
            while i + run < count && data[i + run] == value && run < 1 << 16 { run += 1 }
            literal(value)
            if run >= minimumRun {
                var left = run - 1
                while left >= 3 {
                    var take = min(left, 258)
                    // Never leave one or two bytes, which no back-reference can take.
                    if left - take > 0 && left - take < 3 { take = left - 3 }
                    repeats(take)
                    left -= take
                }
                for _ in 0 ..< left { literal(value) }
            } else {
                for _ in 1 ..< run { literal(value) }
            }
            i += run
        }
    }

    /// One dynamic-Huffman block of the pending bytes (RFC 1951 3.2.7).
    private func writeBlock(final: Bool, into writer: inout BitWriter, emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        let data = UnsafePointer(block.baseAddress), count = pending
        let counts = self.counts.baseAddress, lengths = self.lengths.baseAddress, codes = self.codes.baseAddress
        counts.update(repeating: 0, count: DeflateAlphabet.literalLengthSymbols)
        // A block has fewer symbols than a UInt32 counts: no overflow to check.
        Self.tokens(data, count: count, literal: { counts[Int($0)] &+= 1 },
                    repeats: { counts[DeflateAlphabet.lengthSymbol[$0]] &+= 1 })
        counts[DeflateAlphabet.endOfBlock] = 1
        builder.lengths(counts: counts, symbols: DeflateAlphabet.literalLengthSymbols, limit: 15, into: lengths)
        HuffmanCodeBuilder.codes(lengths: lengths, symbols: DeflateAlphabet.literalLengthSymbols, into: codes)
        var literalCodes = DeflateAlphabet.literalLengthSymbols
        while literalCodes > 257 && lengths[literalCodes - 1] == 0 { literalCodes -= 1 }
        // One distance code, of one bit (code 0: distance 1), after the literal/length codes.
        lengths[literalCodes] = 1

        // The code lengths, run-coded (3.2.7): 16 repeats the previous length 3–6 times, 17
        // and 18 write 3–10 and 11–138 zeros.
        let sequence = self.sequence.baseAddress
        var entries = 0
        var i = 0
        let total = literalCodes + 1
        while i < total {
            let length = lengths[i]
            var run = 1
            while i + run < total && lengths[i + run] == length { run += 1 }
            i += run
            if length == 0 {
                while run >= 11 {
                    let take = min(run, 138)
                    sequence[entries] = 18 | UInt16(take - 11) << 8
                    entries += 1
                    run -= take
                }
                if run >= 3 {
                    sequence[entries] = 17 | UInt16(run - 3) << 8
                    entries += 1
                    run = 0
                }
            } else {
                sequence[entries] = UInt16(length)
                entries += 1
                run -= 1
                while run >= 3 {
                    let take = min(run, 6)
                    sequence[entries] = 16 | UInt16(take - 3) << 8
                    entries += 1
                    run -= take
                }
            }
            for _ in 0 ..< run {
                sequence[entries] = UInt16(length)
                entries += 1
            }
        }
        let lengthCounts = self.lengthCounts.baseAddress, lengthLengths = self.lengthLengths.baseAddress
        lengthCounts.update(repeating: 0, count: DeflateAlphabet.codeLengthSymbols)
        for e in 0 ..< entries { lengthCounts[Int(sequence[e] & 0xFF)] += 1 }
        builder.lengths(counts: lengthCounts, symbols: DeflateAlphabet.codeLengthSymbols, limit: 7, into: lengthLengths)
        HuffmanCodeBuilder.codes(lengths: lengthLengths, symbols: DeflateAlphabet.codeLengthSymbols,
                                 into: lengthCodes.baseAddress)
        var lengthCodesSent = DeflateAlphabet.codeLengthSymbols
        while lengthCodesSent > 4 && lengthLengths[DeflateAlphabet.codeLengthOrder[lengthCodesSent - 1]] == 0 {
            lengthCodesSent -= 1
        }

        // The block header: BFINAL, BTYPE 2, HLIT, HDIST, HCLEN, the code-length code, then
        // the run-coded lengths.
        writer.put(final ? 1 : 0, 1, emit: emit)
        writer.put(2, 2, emit: emit)
        writer.put(UInt64(literalCodes - 257), 5, emit: emit)
        writer.put(0, 5, emit: emit)
        writer.put(UInt64(lengthCodesSent - 4), 4, emit: emit)
        for k in 0 ..< lengthCodesSent {
            writer.put(UInt64(lengthLengths[DeflateAlphabet.codeLengthOrder[k]]), 3, emit: emit)
        }
        let extraBits: (Int) -> Int = { $0 == 16 ? 2 : $0 == 17 ? 3 : $0 == 18 ? 7 : 0 }
        for e in 0 ..< entries {
            let symbol = Int(sequence[e] & 0xFF), extra = UInt64(sequence[e] >> 8)
            let n = Int(lengthLengths[symbol])
            writer.put(UInt64(lengthCodes[symbol]) | extra << n, n + extraBits(symbol), emit: emit)
        }

        // The symbols: the buffer has room for the block at its worst (`blockBound`).
        writer.makeRoom(Self.blockBound, emit: emit)
        let literalWidth = self.lengths.baseAddress
        // Each literal's code and its length in one word, read with one load.
        let literals = self.literalTable.baseAddress
        for symbol in 0 ..< 256 { literals[symbol] = UInt32(codes[symbol]) | UInt32(literalWidth[symbol]) << 16 }
        Self.tokens(data, count: count, literal: { value in
            let entry = literals[Int(value)]
            writer.putFast(UInt64(entry & 0xFFFF), Int(entry >> 16))
        }, repeats: { run in
            let symbol = DeflateAlphabet.lengthSymbol[run]
            let n = Int(literalWidth[symbol])
            let extra = UInt64(run - DeflateAlphabet.lengthBase[symbol - 257])
            // The length code, its extra bits, then distance code 0 in one bit.
            writer.putFast(UInt64(codes[symbol]) | extra << n, n + DeflateAlphabet.lengthExtraBits[symbol - 257] + 1)
        })
        writer.put(UInt64(codes[DeflateAlphabet.endOfBlock]), Int(lengths[DeflateAlphabet.endOfBlock]), emit: emit)
    }
}

/// The fixed parts of deflate's alphabets (RFC 1951 3.2.5, 3.2.7).
enum DeflateAlphabet {
    static let literalLengthSymbols = 286
    static let endOfBlock = 256
    static let codeLengthSymbols = 19
    /// The order in which the code-length code's lengths are written.
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    /// The shortest length of each length symbol 257–285, and its extra bits.
    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
                             131, 163, 195, 227, 258]
    static let lengthExtraBits = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    /// The length symbol of each length 3–258 (entries 0–2 unused).
    static let lengthSymbol: [Int] = {
        var table = [Int](repeating: 0, count: 259)
        for (k, base) in lengthBase.enumerated() {
            let last = k + 1 < lengthBase.count ? lengthBase[k + 1] - 1 : 258
            for length in base ... min(last, 258) { table[length] = 257 + k }
        }
        // 258 has a symbol of its own (285), not 284 with all extra bits set.
        table[258] = 285
        return table
    }()
}

/// Deflate's bit stream (RFC 1951 3.1.1): values packed from the least significant bit,
/// gathered in 64 bits and stored 32 at a time into a buffer that `emit` empties.
struct BitWriter {
    let output: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private(set) var used = 0
    private var bits: UInt64 = 0
    private var count = 0

    init(output: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.output = output
        self.capacity = capacity
    }

    /// Writes the low `n` bits of `value` (n ≤ 32), making room as needed.
    mutating func put(_ value: UInt64, _ n: Int, emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        makeRoom(4, emit: emit)
        putFast(value, n)
    }

    /// Writes the low `n` bits of `value` (n ≤ 32) where `makeRoom(4)` has been made sure of.
    @inline(__always)
    mutating func putFast(_ value: UInt64, _ n: Int) {
        bits |= value << UInt64(count)
        count += n
        if count >= 32 {
            // SAFETY: the caller made room (makeRoom) for every byte it writes, 4 at a time.
            UnsafeMutableRawPointer(output + used).storeBytes(of: UInt32(truncatingIfNeeded: bits).littleEndian,
                                                              as: UInt32.self)
            used += 4
            bits >>= 32
            count -= 32
        }
    }

    /// Empties the buffer through `emit`, in pieces of at most 64 KiB, if fewer than `bytes`
    /// bytes are free.
    @inline(__always)
    mutating func makeRoom(_ bytes: Int, emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        if used + bytes > capacity { handOn(emit: emit) }
    }

    private mutating func handOn(emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        var at = 0
        while at < used {
            let piece = min(used - at, 64 * 1024)
            emit(UnsafeBufferPointer(start: output + at, count: piece))
            at += piece
        }
        used = 0
    }

    /// Pads with zero bits to the next byte boundary.
    mutating func alignToByte(emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        if count % 8 != 0 { put(0, 8 - count % 8, emit: emit) }
    }

    /// Hands on every whole byte written, leaving the writer empty (after `alignToByte`).
    mutating func flush(emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        makeRoom(8, emit: emit)
        while count >= 8 {
            output[used] = UInt8(truncatingIfNeeded: bits)
            used += 1
            bits >>= 8
            count -= 8
        }
        handOn(emit: emit)
    }
}
