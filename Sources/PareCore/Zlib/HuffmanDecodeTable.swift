/// One entry of a Huffman decoding table: what the code at the front of the bit stream
/// means, and how many bits of it this entry accounts for.
///
/// Layout of `raw` (one 32-bit word, so that a lookup is one load):
/// - bits 0–7: the code's length, the bits to drop; for a link, the length of the longest
///   code it leads to (the root's width + the subtable's), so that an entry whose length is
///   at most the root's width is a whole code;
/// - bits 8–15: the kind (`literal`, `base` + extra-bit count, `link` + subtable width,
///   `endOfBlock`, `invalid`);
/// - bits 16–31: the value (a literal byte or code-length symbol, a length or distance
///   base, or a subtable's start).
@_spi(Codec) @frozen public struct HuffmanEntry {
    public var raw: UInt32

    static let literal: UInt32 = 0x00
    /// Two literals whose codes, together, fit the root's width: the value holds the first
    /// in its low byte and the second in its high byte (`HuffmanDecodeTable.buildPairs`).
    static let literalPair: UInt32 = 0x01
    /// Ored with the count of extra bits that follow the code (RFC 1951 §3.2.5), 0–13.
    static let base: UInt32 = 0x10
    /// Ored with the subtable's index width. The only kind with bit 6 set, so that telling a
    /// link from the rest takes one test.
    static let link: UInt32 = 0x40
    static let endOfBlock: UInt32 = 0x20
    static let invalid: UInt32 = 0x80

    @inlinable @inline(__always) public init(raw: UInt32) { self.raw = raw }
    @inline(__always) init(kind: UInt32, bits: Int, value: Int) {
        raw = UInt32(truncatingIfNeeded: value) << 16 | kind << 8 | UInt32(truncatingIfNeeded: bits)
    }

    @inlinable @inline(__always) public var bits: Int { Int(raw & 0xFF) }
    @inline(__always) var kind: UInt32 { (raw >> 8) & 0xFF }
    @inlinable @inline(__always) public var value: Int { Int(raw >> 16) }
    /// The extra-bit count of a `base` entry, or the index width of a `link`.
    @inline(__always) var width: Int { Int((raw >> 8) & 0x0F) }
    @inline(__always) var isLiteral: Bool { raw & 0xFF00 == 0 }
    /// A literal or a pair of them.
    @inline(__always) var isLiterals: Bool { raw & 0xFE00 == 0 }
    @inline(__always) var isBase: Bool { raw & 0xF000 == 0x1000 }
    @inline(__always) var isLink: Bool { raw & 0x4000 != 0 }
}

/// What the symbols of a code mean, and which sets of code lengths make a code: the three
/// alphabets of RFC 1951 §3.2.5–3.2.7, and the prefix codes of WebP Lossless §6.2.2.
@_spi(Codec) public enum HuffmanAlphabet: Sendable {
    /// The code-length code of a dynamic block header (§3.2.7): symbols 0–18.
    case codeLengths
    /// Literal bytes 0–255, end of block 256, lengths 257–285; 286 and 287 are invalid.
    case literalLength
    /// Distances 0–29; 30 and 31 are invalid.
    case distance
    /// Symbols that stand for themselves (WebP Lossless §6.2.2: the codes of green, red,
    /// blue, alpha and distance, and their code-length code). A code must be complete, except
    /// that one used symbol is a code of zero-length words: it takes no bits to read.
    case symbols

    static let lengthBase: [UInt16] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                       35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                       3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase: [UInt16] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                         257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                         8193, 12289, 16385, 24577]
    static let distanceExtra: [UInt8] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                         7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    /// The entry for `symbol` once its code, `bits` long, has been read.
    func entry(symbol: Int, bits: Int) -> HuffmanEntry {
        switch self {
        case .codeLengths, .symbols:
            return HuffmanEntry(kind: HuffmanEntry.literal, bits: bits, value: symbol)
        case .literalLength:
            if symbol < 256 { return HuffmanEntry(kind: HuffmanEntry.literal, bits: bits, value: symbol) }
            if symbol == 256 { return HuffmanEntry(kind: HuffmanEntry.endOfBlock, bits: bits, value: 0) }
            let i = symbol - 257
            guard i < Self.lengthBase.count else { return HuffmanEntry(kind: HuffmanEntry.invalid, bits: bits, value: 0) }
            return HuffmanEntry(kind: HuffmanEntry.base | UInt32(Self.lengthExtra[i]), bits: bits,
                                value: Int(Self.lengthBase[i]))
        case .distance:
            guard symbol < Self.distanceBase.count else {
                return HuffmanEntry(kind: HuffmanEntry.invalid, bits: bits, value: 0)
            }
            return HuffmanEntry(kind: HuffmanEntry.base | UInt32(Self.distanceExtra[symbol]), bits: bits,
                                value: Int(Self.distanceBase[symbol]))
        }
    }
}

/// A canonical Huffman code (RFC 1951 §3.2.2) turned into lookup tables indexed by the
/// stream's next bits, least significant first (§3.1.1 packs codes from their first bit up).
///
/// Two levels: a root table of `rootBits` entries answers every code up to that length in
/// one load; a longer code's root entry links to a subtable indexed by the bits after the
/// root's. A subtable is as wide as the longest code sharing its root prefix needs, found
/// from the counts of the codes still to place, so the tables of any code the builder
/// accepts fit `capacity(rootBits:)`: 1334 entries for literals/lengths with a 10-bit root,
/// 402 for distances with an 8-bit root (the largest totals over every complete code of
/// 286 and 30 symbols up to 15 bits long), 128 for the code-length code (7 bits at most).
@_spi(Codec) public enum HuffmanDecodeTable {
    static let literalRootBits = 10
    static let distanceRootBits = 8
    static let codeLengthRootBits = 7
    static let literalCapacity = 1334
    static let distanceCapacity = 402
    static let codeLengthCapacity = 128
    static let maxCodeLength = 15

    /// What `build` found wrong with a set of code lengths.
    public enum Refusal: Error {
        /// More codes of some length than the lengths before it leave room for.
        case oversubscribed
        /// Codes left unused where the format leaves none. RFC 1951 accepts one incomplete
        /// set, a single one-bit code (zlib too, for a block that uses one symbol), and an
        /// empty distance code; WebP Lossless a single used symbol of any length.
        case incomplete
    }

    /// The most code lengths a deflate block lists: the fixed code's 288 literal/length and
    /// 32 distance codes (§3.2.6); a dynamic header's 286 + 30 fit too.
    static let maxSymbols = 320

    /// The scratch a build of up to `symbols` symbols needs, in `UInt16`s: the symbols sorted
    /// by code length, and three arrays indexed by code length.
    public static func scratchCount(symbols: Int) -> Int { symbols + 3 * (maxCodeLength + 2) }

    /// Builds the table for the symbols `0 ..< count` whose code lengths (at most 15) are
    /// `lengths` (0: the symbol is not used) into `table`, which holds `capacity` entries, and
    /// returns how many of them it used. `scratch` holds `scratchCount(symbols: count)`.
    @discardableResult
    public static func build(lengths: UnsafePointer<UInt8>, count: Int, alphabet: HuffmanAlphabet, rootBits: Int,
                             into table: UnsafeMutablePointer<UInt32>, capacity: Int,
                             scratch: UnsafeMutablePointer<UInt16>) throws(Refusal) -> Int {
        let lengthCount = scratch + count     // codes of each length, 0 ... 15
        let remaining = lengthCount + (maxCodeLength + 2)
        let nextCode = remaining + (maxCodeLength + 2)
        for l in 0 ... maxCodeLength { lengthCount[l] = 0 }
        for s in 0 ..< count { lengthCount[Int(lengths[s])] += 1 }
        lengthCount[0] = 0
        var longest = 0
        for l in 1 ... maxCodeLength where lengthCount[l] > 0 { longest = l }
        let rootSize = 1 << rootBits
        guard rootSize <= capacity else { throw .oversubscribed }
        guard longest > 0 else {
            // No codes at all: a block of literals alone may send an empty distance code;
            // every lookup in it is invalid. No other code can be empty.
            if alphabet != .distance { throw .incomplete }
            table.initialize(repeating: HuffmanEntry(kind: HuffmanEntry.invalid, bits: 1, value: 0).raw, count: rootSize)
            return rootSize
        }
        var left = 1
        var used = 0
        for l in 1 ... maxCodeLength {
            left = left << 1 - Int(lengthCount[l])
            used += Int(lengthCount[l])
            if left < 0 { throw .oversubscribed }
        }
        if alphabet == .symbols && used == 1 {
            // WebP's one-symbol code: every lookup is that symbol, read in no bits.
            var symbol = 0
            while lengths[symbol] == 0 { symbol += 1 }
            table.initialize(repeating: HuffmanEntry(kind: HuffmanEntry.literal, bits: 0, value: symbol).raw,
                             count: rootSize)
            return rootSize
        }
        if left > 0 && (alphabet == .codeLengths || alphabet == .symbols || longest != 1) { throw .incomplete }

        // The symbols in code order: by length, then by value (§3.2.2).
        var offset = 0
        for l in 1 ... maxCodeLength {
            remaining[l] = UInt16(offset)
            offset += Int(lengthCount[l])
        }
        for s in 0 ..< count where lengths[s] != 0 {
            let l = Int(lengths[s])
            scratch[Int(remaining[l])] = UInt16(s)
            remaining[l] += 1
        }
        var code = 0
        for l in 1 ... maxCodeLength {
            code = (code + (l > 1 ? Int(lengthCount[l - 1]) : 0)) << 1
            nextCode[l] = UInt16(truncatingIfNeeded: code)
            remaining[l] = lengthCount[l]
        }
        // Root entries no code reaches (an incomplete one-bit code) stay invalid.
        table.initialize(repeating: HuffmanEntry(kind: HuffmanEntry.invalid, bits: 1, value: 0).raw, count: rootSize)

        let rootMask = rootSize - 1
        used = rootSize
        var currentPrefix = -1, subStart = 0, subBits = 0
        for i in 0 ..< offset {
            let symbol = Int(scratch[i])
            let length = Int(lengths[symbol])
            let canonical = Int(nextCode[length])
            nextCode[length] &+= 1
            let reversed = reverse(canonical, bits: length)
            if length <= rootBits {
                let entry = alphabet.entry(symbol: symbol, bits: length).raw
                var j = reversed
                while j < rootSize {
                    table[j] = entry
                    j += 1 << length
                }
            } else {
                let prefix = reversed & rootMask
                if prefix != currentPrefix {
                    // A new subtable, wide enough for the codes still to come under this prefix.
                    var width = length - rootBits
                    var room = 1 << width
                    while width + rootBits < longest {
                        room -= Int(remaining[width + rootBits])
                        if room <= 0 { break }
                        width += 1
                        room <<= 1
                    }
                    guard used + (1 << width) <= capacity else { throw .oversubscribed }
                    subStart = used
                    subBits = width
                    used += 1 << width
                    (table + subStart).initialize(repeating: HuffmanEntry(kind: HuffmanEntry.invalid, bits: 1,
                                                                         value: 0).raw, count: 1 << width)
                    table[prefix] = HuffmanEntry(kind: HuffmanEntry.link | UInt32(width), bits: rootBits + width,
                                                 value: subStart).raw
                    currentPrefix = prefix
                }
                let entry = alphabet.entry(symbol: symbol, bits: length - rootBits).raw
                var j = reversed >> rootBits
                while j < 1 << subBits {
                    table[subStart + j] = entry
                    j += 1 << (length - rootBits)
                }
            }
            remaining[length] -= 1
        }
        return used
    }

    /// The fast decoder's root table for literals/lengths: `root`'s entries, except that a
    /// literal whose code leaves room in the root's width for a whole second literal code
    /// becomes a `literalPair` of the two, so that one lookup gives two bytes. The index's
    /// bits after the first code, padded with zeros, look the second up in `root`; its answer
    /// holds when its code fits in the bits the index has.
    static func buildPairs(from root: UnsafePointer<UInt32>, rootBits: Int, into pairs: UnsafeMutablePointer<UInt32>) {
        for i in 0 ..< 1 << rootBits {
            let first = HuffmanEntry(raw: root[i])
            pairs[i] = first.raw
            guard first.isLiteral else { continue }
            let second = HuffmanEntry(raw: root[i >> first.bits])
            guard second.isLiteral && first.bits + second.bits <= rootBits else { continue }
            pairs[i] = HuffmanEntry(kind: HuffmanEntry.literalPair, bits: first.bits + second.bits,
                                    value: first.value | second.value << 8).raw
        }
    }

    /// `code`'s low `bits` bits in the opposite order: canonical codes are defined most
    /// significant bit first, but are read from the stream least significant first.
    static func reverse(_ code: Int, bits: Int) -> Int {
        var result = 0, value = code
        for _ in 0 ..< bits {
            result = result << 1 | value & 1
            value >>= 1
        }
        return result
    }
}
