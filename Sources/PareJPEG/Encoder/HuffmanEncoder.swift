import PareCore

/// The code of every symbol of one Huffman table, for encoding: EHUFCO and EHUFSI of T.81
/// C.2 (Figures C.1–C.3, then C.3's reordering by symbol). Entry `symbol` holds the code in
/// its upper 24 bits and the length in its low 8; a symbol the table lacks has length 0.
struct HuffmanCodes {
    let entries: LedgerBuffer<UInt32>

    init(_ table: HuffmanTable, ledger: MemoryLedger) throws(CoreError) {
        entries = try ledger.allocate(UInt32.self, count: 256, initialValue: 0)
        var code: UInt32 = 0, k = 0
        for length in 1 ... 16 {
            for _ in 0 ..< Int(table.counts[length - 1]) {
                entries[Int(table.symbols[k])] = code << 8 | UInt32(length)
                code += 1
                k += 1
            }
            code <<= 1
        }
    }
}

/// A table's codes joined with the arithmetic of their additional bits (T.81 F.1.2.1.1), for
/// `SequentialHuffman.encode`: entry `256·n + symbol`, for a symbol of SSSS s = symbol mod 16
/// (DC symbols are SSSS; AC symbols RRRRSSSS), holds the code shifted left by s with its
/// total length (code length + s) in bits 32 and up, and when n = 1 (a negative value)
/// 2^s − 1 added. Adding the value v itself then gives the code followed by the additional
/// bits in one step: v for v > 0, and v − 1 in s bits, 2^s − 1 + v, for v < 0. 4 KiB, counted
/// by the ledger.
struct MergedCodes {
    let entries: LedgerBuffer<UInt64>

    init(_ codes: HuffmanCodes, ledger: MemoryLedger) throws(CoreError) {
        entries = try ledger.allocate(UInt64.self, count: 512, initialValue: 0)
        for symbol in 0 ..< 256 {
            let entry = codes.entries[symbol], size = symbol & 15
            guard entry & 0xFF != 0 else { continue }
            let length = UInt64(entry & 0xFF) + UInt64(size), shifted = UInt64(entry >> 8) << UInt64(size)
            entries[symbol] = length << 32 | shifted
            entries[256 + symbol] = length << 32 | (shifted + (1 << UInt64(size)) - 1)
        }
    }

    init(_ table: HuffmanTable, ledger: MemoryLedger) throws(CoreError) {
        try self.init(HuffmanCodes(table, ledger: ledger), ledger: ledger)
    }
}

/// How often each symbol of one table occurs in a scan: the statistics pass of T.81 K.2
/// (and of libjpeg's `-optimize`). Index 256 is the reserved pseudo-symbol that keeps every
/// real code from being all 1-bits.
struct SymbolCounts {
    var counts = [Int](repeating: 0, count: 257)

    mutating func add(_ symbol: Int) { counts[symbol] += 1 }

    var isEmpty: Bool { !counts.contains { $0 > 0 } }
}

extension HuffmanTable {
    /// A table built here from lengths already known to form a prefix code.
    init(generatedCounts counts: [UInt8], symbols: [UInt8]) {
        self.counts = counts
        self.symbols = symbols
    }

    /// The optimal table for `statistics`, as T.81 K.2 constructs it: Huffman's procedure
    /// (Figure K.1) over the symbols that occur plus one reserved symbol of frequency 1, so
    /// that no code is all 1-bits; code lengths counted (Figure K.2), limited to 16 bits
    /// (Figure K.3), the reserved symbol's code removed, and the symbols sorted by code
    /// length (Figure K.4). Ties between equal frequencies go to the larger symbol value,
    /// which is libjpeg's choice and so gives its tables.
    static func optimal(for statistics: SymbolCounts) -> HuffmanTable {
        var frequency = statistics.counts
        frequency[256] = 1
        var codeSize = [Int](repeating: 0, count: 257)
        var others = [Int](repeating: -1, count: 257)
        while true {
            // V1: least frequency, the larger symbol on ties; V2: the next least.
            var v1 = -1, least = Int.max
            for i in 0 ... 256 where frequency[i] > 0 && frequency[i] <= least {
                least = frequency[i]
                v1 = i
            }
            var v2 = -1
            least = Int.max
            for i in 0 ... 256 where frequency[i] > 0 && frequency[i] <= least && i != v1 {
                least = frequency[i]
                v2 = i
            }
            if v2 < 0 { break }
            frequency[v1] += frequency[v2]
            frequency[v2] = 0
            // Every symbol in V1's and V2's trees gets one bit longer; V2's chain joins V1's.
            codeSize[v1] += 1
            var c = v1
            while others[c] >= 0 {
                c = others[c]
                codeSize[c] += 1
            }
            others[c] = v2
            c = v2
            codeSize[c] += 1
            while others[c] >= 0 {
                c = others[c]
                codeSize[c] += 1
            }
        }
        // BITS up to the longest length Huffman's procedure can give for 257 symbols.
        var bits = [Int](repeating: 0, count: 258)
        for i in 0 ... 256 where codeSize[i] > 0 { bits[codeSize[i]] += 1 }
        // Figure K.3: move pairs of the longest codes up until none is over 16 bits.
        var length = 257
        while length > 16 {
            while bits[length] > 0 {
                var j = length - 2
                while bits[j] == 0 { j -= 1 }
                bits[length] -= 2
                bits[length - 1] += 1
                bits[j + 1] += 2
                bits[j] -= 1
            }
            length -= 1
        }
        // The reserved symbol has the longest code: drop one code of the longest length.
        while bits[length] == 0 { length -= 1 }
        bits[length] -= 1
        var symbols: [UInt8] = []
        for size in 1 ... 257 {
            for symbol in 0 ..< 256 where codeSize[symbol] == size { symbols.append(UInt8(symbol)) }
        }
        return HuffmanTable(generatedCounts: (1 ... 16).map { UInt8(bits[$0]) }, symbols: symbols)
    }
}

/// SSSS of T.81 F.1.2.1.1 (Table F.1): the number of bits of |value|, 0 for 0. It is the
/// index of the highest set bit of 2|value| + 1, whose added low bit keeps the argument
/// non-zero, so that the compiler needs no zero test around the bit scan (x86: one BSR).
@inline(__always)
func magnitudeCategory(_ value: Int32) -> Int {
    let sign = value &>> 31
    let magnitude = UInt64(UInt32(bitPattern: (value ^ sign) &- sign))
    return 63 &- (magnitude &<< 1 | 1).leadingZeroBitCount
}

/// The additional bits after a symbol (T.81 F.1.2.1.1): the value itself when positive,
/// value − 1 (its ones' complement in `size` bits) when negative.
@inline(__always)
func additionalBits(_ value: Int32, size: Int) -> UInt32 {
    let bits = value &+ (value &>> 31)
    return UInt32(bitPattern: bits) & ((1 &<< UInt32(truncatingIfNeeded: size)) &- 1)
}

/// Reading a block that is kept in natural order (as the quantiser writes it) in zig-zag
/// order (T.81 A.3.6, Figure A.6), for the entropy coders, so that no block is reordered:
/// `natural[k]` is the natural index of zig-zag position k; `rowMasks` turns the non-zero
/// flags of natural row r (bit c for column c, `f`) into the same coefficients' bits at their
/// zig-zag positions (entry 256·r + f), so that the zig-zag non-zero mask of a block is eight
/// look-ups. 16 KiB and 64 bytes, counted by the ledger.
struct ZigZagScan {
    let natural: LedgerBuffer<UInt8>
    let rowMasks: LedgerBuffer<UInt64>

    init(ledger: MemoryLedger) throws(CoreError) {
        natural = try ledger.allocate(UInt8.self, count: 64, initialValue: 0)
        rowMasks = try ledger.allocate(UInt64.self, count: 8 * 256, initialValue: 0)
        for (k, i) in ZigZag.naturalOrder.enumerated() {
            natural[k] = UInt8(i)
            for flags in 0 ..< 256 where flags >> (i % 8) & 1 != 0 { rowMasks[256 * (i / 8) + flags] |= 1 << UInt64(k) }
        }
    }

    /// The tables as plain pointers, for the coding loops.
    var tables: Tables { Tables(natural: UnsafePointer(natural.baseAddress), rowMasks: UnsafePointer(rowMasks.baseAddress)) }

    struct Tables {
        let natural: UnsafePointer<UInt8>
        let rowMasks: UnsafePointer<UInt64>
    }
}

/// Sequential Huffman coding of one block (T.81 F.1.2.1 and F.1.2.2): the DC difference
/// as SSSS and its bits, then the AC coefficients as RRRRSSSS run/size symbols with ZRL for
/// runs of 16 zeros and EOB after the last non-zero coefficient.
enum SequentialHuffman {
    /// The symbols of one block in coding order (T.81 F.1.2.1 and F.1.2.2), coefficient by
    /// coefficient in zig-zag order: the DC difference's SSSS, then for each non-zero AC
    /// coefficient a ZRL for every 16 zeros before it and its RRRRSSSS, then EOB unless the
    /// last coefficient is non-zero. `body` is given whether the symbol is the DC's, the
    /// symbol, and the value whose SSSS (= symbol mod 16) additional bits follow it.
    @inline(__always)
    static func forEachSymbol(_ block: UnsafePointer<Int16>, dcDifference: Int32,
                              _ body: (_ isDC: Bool, _ symbol: Int, _ value: Int32) -> Void) {
        body(true, magnitudeCategory(dcDifference), dcDifference)
        var run = 0
        for k in 1 ..< 64 {
            let value = Int32(block[ZigZag.naturalOrder[k]])
            if value == 0 {
                run += 1
                continue
            }
            while run >= 16 {
                body(false, 0xF0, 0)
                run -= 16
            }
            body(false, run << 4 | magnitudeCategory(value), value)
            run = 0
        }
        if run > 0 { body(false, 0, 0) }
    }

    /// Writes one block's symbols (`forEachSymbol`) with the code tables' entries
    /// (`HuffmanCodes`) and their additional bits: T.81 F.1.2 as written, the oracle for
    /// `encode`. Needs `BitPacker.blockBound` bytes of room.
    static func encodePlain(_ block: UnsafePointer<Int16>, dcDifference: Int32, dc dcCodes: UnsafePointer<UInt32>,
                            ac acCodes: UnsafePointer<UInt32>, to out: inout BitPacker) {
        forEachSymbol(block, dcDifference: dcDifference) { isDC, symbol, value in
            let entry = (isDC ? dcCodes : acCodes)[symbol], size = symbol & 15
            out.write((entry >> 8) << UInt32(size) | additionalBits(value, size: size), length: Int(entry & 0xFF) + size)
        }
    }

    /// Writes one block as `encodePlain` does, with the merged tables (`MergedCodes`: one
    /// look-up gives a symbol's code already joined with the arithmetic of its additional
    /// bits, and the total length) and the runs of zeros read from the non-zero mask. Not
    /// inlined, so that the packer's accumulator, count and output position, the mask and the
    /// pointers all stay in registers for the whole block. Needs `BitPacker.blockBound` bytes
    /// of room.
    @inline(never)
    static func encode(_ block: UnsafePointer<Int16>, dcDifference: Int32, dc: UnsafePointer<UInt64>,
                       ac: UnsafePointer<UInt64>, zigZag: ZigZagScan.Tables, to out: inout BitPacker) {
        var accumulator = out.accumulator, bitCount = out.bitCount
        let buffer = out.buffer.baseAddress
        var fill = out.fill
        // Whether a code completes 32 bits is close to random from one code to the next, so
        // the word is not behind a branch: the oldest 32 bits (junk when fewer are complete)
        // are stored every time, and kept, fill moving on by 4, only when complete. Only a
        // complete word with a 0xFF byte, which is rare, branches (`BitPacker.storeWord`'s
        // test and stuffing).
        @inline(__always) func write(_ sum: UInt64) {
            let length = Int(truncatingIfNeeded: sum &>> 32)
            accumulator = accumulator &<< UInt64(truncatingIfNeeded: length) | (sum & 0xFFFF_FFFF)
            bitCount &+= length
            let complete = bitCount &>> 5    // 1 when bitCount ≥ 32 (it stays below 64)
            let word = UInt32(truncatingIfNeeded: accumulator &>> UInt64(truncatingIfNeeded: bitCount & 31))
            let inverted = ~word
            let keep = UInt32(truncatingIfNeeded: 0 &- complete)
            if ((inverted &- 0x0101_0101) & ~inverted & 0x8080_8080 & keep) != 0 {
                bitCount &-= 32
                fill = BitPacker.storeStuffed(word, into: buffer, at: fill)
            } else {
                // SAFETY: the caller keeps blockBound bytes of room, so fill + 4 ≤ capacity.
                (UnsafeMutableRawPointer(buffer) + fill).storeBytes(of: word.bigEndian, as: UInt32.self)
                fill &+= complete &<< 2
                bitCount &-= complete &<< 5
            }
        }
        // SAFETY: the tables have 512 entries; each index is a byte, or 256 plus a byte.
        @inline(__always) func code(_ value: Int32, run: Int, table: UnsafePointer<UInt64>) -> UInt64 {
            let sign = value &>> 31
            let magnitude = UInt64(UInt32(bitPattern: (value ^ sign) &- sign))
            let size = 63 &- (magnitude &<< 1 | 1).leadingZeroBitCount
            let entry = table[Int(truncatingIfNeeded: sign & 256) | run &<< 4 | size]
            return entry &+ UInt64(bitPattern: Int64(value))
        }
        write(code(dcDifference, run: 0, table: dc))
        var mask = nonzeroMask(block, rowMasks: zigZag.rowMasks) & ~1
        var previous = 0
        while mask != 0 {
            let k = mask.trailingZeroBitCount
            mask &= mask &- 1
            var run = k &- previous &- 1
            previous = k
            while run >= 16 {
                write(ac[0xF0])
                run &-= 16
            }
            // SAFETY: k < 64, natural's length, and its entries are < 64, the block's.
            write(code(Int32(block[Int(zigZag.natural[k])]), run: run, table: ac))
        }
        if previous != 63 { write(ac[0]) }
        out.accumulator = accumulator
        out.bitCount = bitCount
        out.fill = fill
    }

    /// Bit k set when the coefficient at zig-zag position k of the block is non-zero: the
    /// plain definition, the oracle for `nonzeroMask`.
    static func plainNonzeroMask(_ block: UnsafePointer<Int16>) -> UInt64 {
        var mask: UInt64 = 0
        for k in 0 ..< 64 where block[ZigZag.naturalOrder[k]] != 0 { mask |= 1 << UInt64(k) }
        return mask
    }

    /// The same mask, two natural rows (sixteen coefficients) at a time: each 16-bit lane
    /// becomes 0 or 1 (the top bit of v | −v), the sixteen narrow to bytes, and each 64-bit
    /// word of eight 0/1 bytes times 2^56 + 2^49 + … + 2^7 (`gather`) puts byte i's bit at bit
    /// 56 + i (product bit 8i + 56 − 7j is a different position for every byte i and term j, so
    /// no carry disturbs them); each row's eight flags then index `ZigZagScan.rowMasks`.
    @inline(__always)
    static func nonzeroMask(_ block: UnsafePointer<Int16>, rowMasks: UnsafePointer<UInt64>) -> UInt64 {
        let raw = UnsafeRawPointer(block), gather: UInt64 = 0x0102_0408_1020_4080
        @inline(__always) func rows(_ pair: Int) -> UInt64 {
            // SAFETY: pair < 4, so the two rows' 32 bytes lie inside the block's 128.
            let a = raw.loadUnaligned(fromByteOffset: 32 &* pair, as: SIMD8<UInt16>.self)
            let b = raw.loadUnaligned(fromByteOffset: 32 &* pair &+ 16, as: SIMD8<UInt16>.self)
            let fa = (a | (0 &- a)) &>> 15, fb = (b | (0 &- b)) &>> 15
            @inline(__always) func byte(_ v: UInt16) -> UInt8 { UInt8(truncatingIfNeeded: v) }
            let bytes = SIMD16<UInt8>(byte(fa[0]), byte(fa[1]), byte(fa[2]), byte(fa[3]),
                                      byte(fa[4]), byte(fa[5]), byte(fa[6]), byte(fa[7]),
                                      byte(fb[0]), byte(fb[1]), byte(fb[2]), byte(fb[3]),
                                      byte(fb[4]), byte(fb[5]), byte(fb[6]), byte(fb[7]))
            let words = unsafeBitCast(bytes, to: SIMD2<UInt64>.self)
            let first = Int(truncatingIfNeeded: (words[0] &* gather) &>> 56)
            let second = Int(truncatingIfNeeded: (words[1] &* gather) &>> 56)
            // SAFETY: the flags are < 256, so each index stays inside its row's 256 entries.
            return rowMasks[512 &* pair &+ first] | rowMasks[512 &* pair &+ 256 &+ second]
        }
        return rows(0) | rows(1) | rows(2) | rows(3)
    }

    /// One component's blocks in an MCU row, for `encodeRow`.
    struct Component {
        /// The first block of the MCU row, and the distance from one block row to the next.
        let blocks: UnsafePointer<Int16>
        let stride: Int
        let h: Int
        let v: Int
        /// The component's `MergedCodes` tables.
        let dc: UnsafePointer<UInt64>
        let ac: UnsafePointer<UInt64>
    }

    /// Writes the MCUs of one MCU row from `mcuX` on (T.81 A.2.3's interleaved order, each
    /// component's DC predicted from its last block, restart markers every `restart` MCUs,
    /// E.1.4), as long as the buffer has room for one more; returns the MCU it stopped before,
    /// `mcusPerRow` when the row is done. `mcu` counts the scan's MCUs.
    static func encodeRow(_ components: [Component], mcusPerRow: Int, from start: Int, mcu: inout Int, restart: Int,
                          lastDC: inout [Int32], zigZag: ZigZagScan.Tables, to out: inout BitPacker) -> Int {
        // A local copy of the packer, written back on return, whose fields the loop can keep
        // in registers (nothing takes its address).
        var bits = out
        defer { out = bits }
        var blocksPerMCU = 0
        for c in components { blocksPerMCU += c.h * c.v }
        // A marker and its alignment, then every block.
        let mcuBound = 2 &* BitPacker.writeBound &+ 2 &+ blocksPerMCU &* BitPacker.blockBound
        var mcuX = start
        while mcuX < mcusPerRow {
            if bits.room < mcuBound { return mcuX }
            if restart > 0 && mcu > 0 && mcu % restart == 0 {
                bits.alignToByte()
                bits.writeByte(0xFF)
                bits.writeByte(Marker.rst0 + UInt8((mcu / restart - 1) & 7))
                for c in 0 ..< lastDC.count { lastDC[c] = 0 }
            }
            for c in 0 ..< components.count {
                let part = components[c]
                for by in 0 ..< part.v {
                    // SAFETY: by < v and mcuX · h + bx < blocksPerRow: inside this MCU row's blocks.
                    var block = part.blocks + by &* part.stride + mcuX &* part.h &* 64
                    for _ in 0 ..< part.h {
                        let dc = Int32(block[0])
                        encode(block, dcDifference: dc &- lastDC[c], dc: part.dc, ac: part.ac, zigZag: zigZag, to: &bits)
                        lastDC[c] = dc
                        block += 64
                    }
                }
            }
            mcu += 1
            mcuX += 1
        }
        return mcuX
    }

    /// Counts the symbols `encode` would write for the block (the K.2 statistics pass).
    static func count(_ block: UnsafePointer<Int16>, dcDifference: Int32, dc: inout SymbolCounts,
                      ac: inout SymbolCounts) {
        forEachSymbol(block, dcDifference: dcDifference) { isDC, symbol, _ in
            if isDC { dc.add(symbol) } else { ac.add(symbol) }
        }
    }
}
