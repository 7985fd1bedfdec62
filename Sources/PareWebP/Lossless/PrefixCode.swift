import PareCore

/// One canonical prefix code of the lossless format (WebP Lossless Bitstream §6.2.2) as a
/// two-level lookup table: the first `rootBits` bits of the stream index the root; a code
/// longer than that points to a second-level table for its remaining bits. Each entry is the
/// symbol in the high 16 bits and the number of bits it takes in the low 8; a root entry whose
/// length is over `rootBits` is a pointer (second-level offset in the high bits, its index bits
/// plus `rootBits` in the low).
enum PrefixCode {
    static let rootBits = 8
    static let maxLength = 15

    /// Appends the table for `lengths` to `table` and returns where it starts; nil when the
    /// lengths are not a code: all zero, over-subscribed or incomplete (§6.2.2: one used
    /// symbol is a code of zero-length words).
    static func build(lengths: UnsafeBufferPointer<UInt8>, into table: inout [UInt32]) -> Int? {
        var count = [Int](repeating: 0, count: maxLength + 1)
        var used = 0
        var lastSymbol = 0
        for (symbol, length) in lengths.enumerated() where length > 0 {
            guard Int(length) <= maxLength else { return nil }
            count[Int(length)] += 1
            used += 1
            lastSymbol = symbol
        }
        let start = table.count
        if used == 0 { return nil }
        if used == 1 {
            table.append(contentsOf: repeatElement(UInt32(lastSymbol) << 16, count: 1 << rootBits))
            return start
        }
        var open = 1
        for length in 1 ... maxLength {
            open = (open << 1) - count[length]
            if open < 0 { return nil }
        }
        if open != 0 { return nil }
        // Canonical codes (§6.2.2, as DEFLATE's): the first code of each length.
        var nextCode = [Int](repeating: 0, count: maxLength + 2)
        var code = 0
        for length in 1 ... maxLength {
            nextCode[length] = code
            code = (code + count[length]) << 1
        }
        // The codes arrive most significant bit first in a stream read least significant
        // bit first, so the tables are indexed by the reversed code.
        var reversed = [UInt16](repeating: 0, count: lengths.count)
        var subBits = [Int](repeating: 0, count: 1 << rootBits)
        for (symbol, length) in lengths.enumerated() where length > 0 {
            let n = Int(length)
            var c = nextCode[n]
            nextCode[n] += 1
            var r = 0
            for _ in 0 ..< n {
                r = r << 1 | (c & 1)
                c >>= 1
            }
            reversed[symbol] = UInt16(r)
            if n > rootBits {
                let low = r & ((1 << rootBits) - 1)
                subBits[low] = max(subBits[low], n - rootBits)
            }
        }
        table.append(contentsOf: repeatElement(0, count: 1 << rootBits))
        var subStart = [Int](repeating: 0, count: 1 << rootBits)
        for low in 0 ..< (1 << rootBits) where subBits[low] > 0 {
            subStart[low] = table.count
            table[start + low] = UInt32(table.count - start) << 16 | UInt32(rootBits + subBits[low])
            table.append(contentsOf: repeatElement(0, count: 1 << subBits[low]))
        }
        for (symbol, length) in lengths.enumerated() where length > 0 {
            let n = Int(length)
            let r = Int(reversed[symbol])
            if n <= rootBits {
                var i = r
                while i < 1 << rootBits {
                    table[start + i] = UInt32(symbol) << 16 | UInt32(n)
                    i += 1 << n
                }
            } else {
                let low = r & ((1 << rootBits) - 1)
                let bits = subBits[low]
                var i = r >> rootBits
                while i < 1 << bits {
                    table[subStart[low] + i] = UInt32(symbol) << 16 | UInt32(n - rootBits)
                    i += 1 << (n - rootBits)
                }
            }
        }
        return start
    }
}

extension LosslessBitReader {
    /// Reads one symbol of the code whose table starts at `table`.
    // SAFETY: `table` is a root of 256 entries built by `PrefixCode.build`, whose pointers lead
    // to second-level tables of 2^(length − 8) entries inside the same array.
    // Transparent (inlined before optimisation): with `@inline(__always)` the pixel loop kept
    // it a call, and the bit reader in memory rather than in registers.
    @_transparent
    mutating func readSymbol(_ table: UnsafePointer<UInt32>) -> Int {
        let bits = peek(PrefixCode.maxLength)
        let entry = table[Int(bits & 0xFF)]
        let length = Int(entry & 0xFF)
        if length <= PrefixCode.rootBits {
            skip(length)
            return Int(entry >> 16)
        }
        let index = Int(entry >> 16) + Int((bits >> 8) & ((1 << UInt32(length - PrefixCode.rootBits)) - 1))
        let second = table[index]
        skip(PrefixCode.rootBits + Int(second & 0xFF))
        return Int(second >> 16)
    }
}
