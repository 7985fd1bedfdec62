import PareCore

/// A Huffman table as DHT defines it (T.81 B.2.4.2, Figure B.7): BITS, the number of codes
/// of each length 1…16, and HUFFVAL, the symbols in code order. Codes are canonical (T.81
/// C.2, Figures C.1–C.3): each length's codes follow the previous length's last code + 1,
/// shifted left.
struct HuffmanTable: Sendable {
    /// BITS: counts[l - 1] codes of length l.
    var counts: [UInt8]
    /// HUFFVAL.
    var symbols: [UInt8]

    /// Checks that the lengths form a prefix code. As in libjpeg, a table whose codes would
    /// use the all-ones pattern of some length is rejected too (T.81 C.2 and K.2 never
    /// produce one), which also catches every over-subscribed table.
    init(counts: [UInt8], symbols: [UInt8], offset: Int) throws(JPEGError) {
        guard counts.count == 16 else { throw .invalidHuffmanTable(offset: offset, reason: "BITS must have 16 entries") }
        // 16 counts of at most 255: the sums below stay small.
        let total = counts.reduce(0) { $0 &+ Int($1) }
        guard total <= 256, total == symbols.count else {
            throw .invalidHuffmanTable(offset: offset, reason: "\(total) codes for \(symbols.count) symbols")
        }
        var code = 0
        for length in 1 ... 16 {
            code &+= Int(counts[length &- 1])
            guard code < 1 << length else {
                throw .invalidHuffmanTable(offset: offset, reason: "over-subscribed at code length \(length)")
            }
            code <<= 1
        }
        self.counts = counts
        self.symbols = symbols
    }

    /// Every table a DHT segment defines, as (class, destination, table); class 0 is DC,
    /// 1 is AC.
    static func parse(_ bytes: [UInt8], offset: Int,
                      _ each: (_ tableClass: Int, _ id: Int, _ table: HuffmanTable) -> Void) throws(JPEGError) {
        var index = 0
        while index < bytes.count {
            let tableClass = Int(bytes[index] >> 4), id = Int(bytes[index] & 15)
            guard tableClass <= 1, id <= 3 else {
                throw .invalidSegment(marker: Marker.dht, offset: offset, reason: "table class \(tableClass) id \(id)")
            }
            guard bytes.count - index >= 17 else {
                throw .invalidSegment(marker: Marker.dht, offset: offset, reason: "BITS cut short")
            }
            let counts = Array(bytes[index + 1 ..< index + 17])
            let total = counts.reduce(0) { $0 &+ Int($1) }
            guard bytes.count - index - 17 >= total else {
                throw .invalidSegment(marker: Marker.dht, offset: offset, reason: "HUFFVAL cut short")
            }
            let symbols = Array(bytes[index + 17 ..< index + 17 + total])
            each(tableClass, id, try HuffmanTable(counts: counts, symbols: symbols, offset: offset))
            index += 17 + total
        }
    }

    /// The symbols of an AC table of T.81 K.3.2 (Tables K.5 and K.6), in HUFFVAL order. Both
    /// tables give a code to every AC symbol (F.1.2.2.1: EOB 0x00, ZRL 0xF0 and RRRRSSSS for
    /// runs 0…15 and sizes 1…10, 162 in all), list the symbols by code length and, within a
    /// length, by value; and every symbol without a code shorter than 16 bits has a 16-bit
    /// one. So a table is the symbols of its short codes followed by all the others, ascending.
    static func acSymbols(shortCodes: [UInt8]) -> [UInt8] {
        var symbols = shortCodes
        for value in 0 ... 255 {
            let symbol = UInt8(value), size = value & 0x0F
            let isAC = symbol == 0x00 || symbol == 0xF0 || (1 ... 10).contains(size)
            if isAC && !shortCodes.contains(symbol) { symbols.append(symbol) }
        }
        return symbols
    }

    /// The typical tables of T.81 K.3 (Tables K.3–K.6), used when a scan names table 0 or 1
    /// and the file never defined it (Motion-JPEG frames leave them out).
    static func standard(tableClass: Int, id: Int) -> HuffmanTable? {
        let counts: [UInt8], symbols: [UInt8]
        switch (tableClass, id) {
        case (0, 0):
            counts = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
            symbols = Array(0 ... 11)
        case (0, 1):
            counts = [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
            symbols = Array(0 ... 11)
        case (1, 0):
            counts = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D]
            symbols = acSymbols(shortCodes: [
                0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
                0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0,
                0x24, 0x33, 0x62, 0x72, 0x82,
            ])
        case (1, 1):
            counts = [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77]
            symbols = acSymbols(shortCodes: [
                0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
                0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xA1, 0xB1, 0xC1, 0x09, 0x23, 0x33, 0x52, 0xF0,
                0x15, 0x62, 0x72, 0xD1, 0x0A, 0x16, 0x24, 0x34, 0xE1, 0x25, 0xF1,
            ])
        default:
            return nil
        }
        return try? HuffmanTable(counts: counts, symbols: symbols, offset: 0)
    }
}

/// The decoding form of a Huffman table (T.81 F.2.2.3, Figure F.16, with the MAXCODE and
/// VALPTR arrays of F.15), plus a lookup table indexed by the next `lookaheadBits` bits that
/// resolves every code of that length or shorter in one step. Longer codes take the
/// MAXCODE walk of Figure F.16. The parts share one ledger buffer; `Layout` says where each
/// lies, and `HuffmanPointers` names them for the decoders.
final class HuffmanDecodingTable {
    static let lookaheadBits = 9
    /// The bits the fast path's `coefficients` part is indexed by: wider than the lookahead,
    /// so that most codes of a photo arrive with their extra bits in one lookup.
    static let coefficientBits = 11
    static let skipBits = 13
    let storage: LedgerBuffer<Int32>

    /// The parts of the buffer (Int32 entries), in order; DC tables stop after `values`.
    enum Layout {
        /// Indexed by the next `lookaheadBits` bits: `length << 8 | symbol` for a code of
        /// that length or shorter, 0 for "code longer than `lookaheadBits`".
        static var lookahead: Int { 0 }
        /// MAXCODE[l] for l = 0…17: the largest code of length l, −1 when there is none;
        /// l = 17 is a sentinel (Int32.max) that ends the walk of Figure F.16.
        static var maxCode: Int { lookahead + 1 << lookaheadBits }
        /// VALOFFSET[l] for l = 0…17: the symbol of code c of length l is
        /// HUFFVAL[VALOFFSET[l] + c] (VALPTR[l] − MINCODE[l] of F.15).
        static var valueOffset: Int { maxCode + 18 }
        /// HUFFVAL, at most 256 symbols.
        static var values: Int { valueOffset + 18 }
        /// AC tables only, indexed by the next `coefficientBits` bits: the lookahead resolved
        /// one step further (T.81 F.2.2.2). When a code of at most `lookaheadBits` and the
        /// extra bits of its coefficient both fit in `coefficientBits`, the entry holds
        /// `value << 16 | 0x1000 | run << 8 | bits used`; for EOB and ZRL, `run << 8 | bits
        /// used`; 0 otherwise.
        static var coefficients: Int { values + 256 }
        /// AC tables only, for decoding at 1/8 scale, which reads AC data only to pass over
        /// it: `UInt16` entries (two to an `Int32`) indexed by the next `skipBits` bits, each
        /// a group of as many whole codes and their extra bits as those bits hold, `guard <<
        /// 10 | advance << 4 | bits used`. `advance` is how far the group moves K through the
        /// block (RRRR + 1 per coefficient, 16 per ZRL; 63 when it ends with EOB, which ends
        /// the block since K ≥ 1); `guard` is how far K moves before the group's last code,
        /// so that the group may be taken only when K + guard < 64: every one of its codes
        /// then starts inside the block (T.81 F.2.2.2, Figure F.13: decoding stops once K
        /// passes 63). A group moves K at most 63; when not even one code fits, `guard` is 63,
        /// which no K passes.
        static var skips: Int { coefficients + 1 << coefficientBits }
        /// DC tables, and AC tables built without the fast path's parts, end here.
        static var plainCount: Int { coefficients }
        /// AC tables with `coefficients` and `skips`.
        static var fastCount: Int { skips + 1 << (skipBits - 1) }
    }

    /// True when the AC parts of the fast path (`coefficients`, `skips`: 24,576 of an AC
    /// table's 27,792 bytes) have their room in `storage`; `coefficients` is then built.
    let hasFastPathParts: Bool
    /// True once `skips` is built (`buildSkips`), which only 1/8-scale blocks read.
    private(set) var hasSkips = false

    /// `isDC` tables must only hold symbols 0…15 (DC categories, T.81 F.1.2.1), which libjpeg
    /// also insists on.
    ///
    /// `fastPath`: build an AC table's `coefficients` and `skips` parts, which only the
    /// sequential decoder's fast path reads (`ScanDecoder.decodeBlockFast`). A decoder that
    /// cannot take that path (progressive scans; an input window smaller than the fast
    /// path's bytes for one MCU) leaves them out and spends 3,216 bytes on the table.
    init(_ table: HuffmanTable, isDC: Bool, fastPath: Bool = true, ledger: MemoryLedger,
         offset: Int) throws(JPEGError) {
        if isDC, table.symbols.contains(where: { $0 > 15 }) {
            throw .invalidHuffmanTable(offset: offset, reason: "DC table holds a category over 15")
        }
        #if hasFeature(Embedded)
        // The firmware's scans never take the fast path (`ScanDecoder.canTakeFastPath`).
        hasFastPathParts = false
        #else
        hasFastPathParts = fastPath && !isDC
        #endif
        let count = hasFastPathParts ? Layout.fastCount : Layout.plainCount
        storage = try core { () throws(CoreError) in
            try ledger.allocate(Int32.self, count: count, initialValue: 0)
        }
        let base = storage.baseAddress
        let lookaheadTable = base + Layout.lookahead, maxCode = base + Layout.maxCode
        let valueOffset = base + Layout.valueOffset, values = base + Layout.values
        // Wrapping arithmetic: `HuffmanTable.init` proved the codes a prefix code (code <
        // 2^length at every length) of at most 256 symbols.
        var code = 0, k = 0
        for length in 1 ... 16 {
            let n = Int(table.counts[length &- 1])
            valueOffset[length] = Int32(truncatingIfNeeded: k &- code)
            if n > 0 {
                for _ in 0 ..< n {
                    if length <= Self.lookaheadBits {
                        let shift = Self.lookaheadBits &- length
                        let entry = Int32(truncatingIfNeeded: length << 8) | Int32(table.symbols[k])
                        for fill in 0 ..< (1 << shift) { lookaheadTable[(code << shift) | fill] = entry }
                    }
                    code &+= 1
                    k &+= 1
                }
                maxCode[length] = Int32(truncatingIfNeeded: code &- 1)
            } else {
                maxCode[length] = -1
            }
            code <<= 1
        }
        maxCode[17] = Int32.max
        for (i, symbol) in table.symbols.enumerated() { values[i] = Int32(symbol) }
        guard hasFastPathParts else { return }
        let coefficients = base + Layout.coefficients
        let lookahead = Self.lookaheadBits, wide = Self.coefficientBits
        for index in 0 ..< 1 << wide {
            let entry = Int(lookaheadTable[index >> (wide - lookahead)])
            guard entry != 0 else { continue }
            let length = entry >> 8, run = (entry >> 4) & 15, size = entry & 15
            if size == 0 {
                coefficients[index] = Int32(run << 8 | length)
            } else if length + size <= wide {
                let bits = (index >> (wide - length - size)) & ((1 << size) - 1)
                coefficients[index] = Int32(BitReader.extend(bits, size)) << 16 | Int32(0x1000 | run << 8 | (length + size))
            }
        }
    }

    /// Builds `skips` (see `Layout.skips`) from the lookahead, once: a scan builds it for
    /// the AC tables of components decoded at 1/8 scale only, since it costs about 140
    /// instructions an entry and no other block reads it. Needs `hasFastPathParts`.
    func buildSkips() {
        guard hasFastPathParts, !hasSkips else { return }
        hasSkips = true
        let base = storage.baseAddress
        let lookaheadTable = base + Layout.lookahead, lookahead = Self.lookaheadBits
        let window = Self.skipBits
        let skips = UnsafeMutableRawPointer(base + Layout.skips)
        for index in 0 ..< 1 << window {
            var used = 0, positions = 0, before = 63
            while used < window {
                // The codes come from the 9-bit lookahead, the bits past the window read as 0:
                // an entry counts only if its code and extra bits lie inside the window.
                let ahead = ((index << lookahead) >> (window - used)) & ((1 << lookahead) - 1)
                let entry = Int(lookaheadTable[ahead])
                guard entry != 0 else { break }
                let length = entry >> 8, run = (entry >> 4) & 15, size = entry & 15
                let isEOB = size == 0 && run != 15
                guard used + length + size <= window, isEOB || positions + (size != 0 ? run + 1 : 16) <= 63 else { break }
                used += length + size
                before = positions
                if isEOB {
                    positions = 63
                    break
                }
                positions += size != 0 ? run + 1 : 16
            }
            skips.storeBytes(of: UInt16(before << 10 | positions << 4 | used), toByteOffset: 2 * index, as: UInt16.self)
        }
    }

    var pointers: HuffmanPointers { HuffmanPointers(base: UnsafePointer(storage.baseAddress)) }
}

/// A borrowed view of a `HuffmanDecodingTable` for the entropy decoder's inner loop: plain
/// pointers, so that no reference counting happens per symbol. Each part is described at
/// `HuffmanDecodingTable.Layout`.
struct HuffmanPointers {
    typealias Layout = HuffmanDecodingTable.Layout
    let base: UnsafePointer<Int32>
    @inline(__always) var lookahead: UnsafePointer<Int32> { base + Layout.lookahead }
    @inline(__always) var maxCode: UnsafePointer<Int32> { base + Layout.maxCode }
    @inline(__always) var valueOffset: UnsafePointer<Int32> { base + Layout.valueOffset }
    @inline(__always) var values: UnsafePointer<Int32> { base + Layout.values }
    /// AC tables only.
    @inline(__always) var coefficients: UnsafePointer<Int32> { base + Layout.coefficients }
    /// AC tables only: `UInt16` entries.
    @inline(__always) var skips: UnsafeRawPointer { UnsafeRawPointer(base + Layout.skips) }
}
