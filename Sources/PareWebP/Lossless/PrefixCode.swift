@_spi(Codec) import PareCore

/// One canonical prefix code of the lossless format (WebP Lossless Bitstream §6.2.2) as
/// two-level lookup tables, built by PareCore's `HuffmanDecodeTable` (deflate's canonical
/// codes, §6.2.2 says, with WebP's rules: complete codes only, one used symbol read in no
/// bits): the first `rootBits` bits of the stream index the root; a code longer than that
/// links to a second-level table for its remaining bits. All the codes of an image share one
/// array, a link's value counting from the start of its own code's root.
enum PrefixCode {
    static let rootBits = 8
    static let maxLength = 15

    /// The most entries a table for `alphabetSize` symbols takes: the largest total over
    /// every complete code, root and second-level tables, with 8-bit roots and codes of up
    /// to 15 bits (zlib's `enough` counts 410 for the 40 distance symbols, 630 for 256,
    /// and 654 + 2^k for green's 280 + 2^k; `alphabetSize + 374` covers each).
    static func capacity(alphabetSize: Int) -> Int { alphabetSize + 374 }

    /// Appends the table for `lengths` to `table` and returns where it starts; nil when the
    /// lengths are not a code: all zero, over-subscribed or incomplete.
    static func build(lengths: UnsafeBufferPointer<UInt8>, scratch: UnsafeMutablePointer<UInt16>,
                      into table: inout [UInt32]) -> Int? {
        let start = table.count
        let capacity = capacity(alphabetSize: lengths.count)
        table.append(contentsOf: repeatElement(0, count: capacity))
        // SAFETY: `capacity` entries were just appended after `start`, and `build` writes
        // no more than the capacity it is given.
        let used = table.withUnsafeMutableBufferPointer { (entries: inout UnsafeMutableBufferPointer<UInt32>) -> Int? in
            do throws(HuffmanDecodeTable.Refusal) {
                return try HuffmanDecodeTable.build(lengths: lengths.baseAddress!, count: lengths.count,
                                                    alphabet: .symbols, rootBits: rootBits,
                                                    into: entries.baseAddress! + start, capacity: capacity,
                                                    scratch: scratch)
            } catch {
                return nil
            }
        }
        table.removeLast(capacity - (used ?? 0))
        return used == nil ? nil : start
    }
}

extension LosslessBitReader {
    /// Reads one symbol of the code whose table starts at `table`.
    // SAFETY: `table` is a root of 256 entries built by `PrefixCode.build`, whose links lead
    // to second-level tables of 2^(length − 8) entries inside the same array.
    // Transparent (inlined before optimisation): with `@inline(__always)` the pixel loop kept
    // it a call, and the bit reader in memory rather than in registers.
    @_transparent
    mutating func readSymbol(_ table: UnsafePointer<UInt32>) -> Int {
        let bits = peek(PrefixCode.maxLength)
        let entry = HuffmanEntry(raw: table[Int(bits & 0xFF)])
        let length = entry.bits
        if length <= PrefixCode.rootBits {
            skip(length)
            return entry.value
        }
        // A link's length is the root's width plus its subtable's (`HuffmanEntry`).
        let index = entry.value + Int((bits >> UInt32(PrefixCode.rootBits)) & ((1 << UInt32(length - PrefixCode.rootBits)) - 1))
        let second = HuffmanEntry(raw: table[index])
        skip(PrefixCode.rootBits + second.bits)
        return second.value
    }
}
