@_spi(Codec) @testable import PareCore
import Testing

/// The one table builder that deflate (RFC 1951 §3.2.2) and WebP Lossless (§6.2.2) share:
/// the codes each format accepts, and the entries of a two-level table.
@Suite struct HuffmanDecodeTableTests {
    /// Builds `lengths` with a `rootBits` root; the entries used, or the refusal.
    static func build(_ lengths: [UInt8], alphabet: HuffmanAlphabet, rootBits: Int = 8,
                      capacity: Int = 4096) -> Result<[HuffmanEntry], HuffmanDecodeTable.Refusal> {
        var table = [UInt32](repeating: 0xDEAD, count: capacity)
        var scratch = [UInt16](repeating: 0, count: HuffmanDecodeTable.scratchCount(symbols: lengths.count))
        do throws(HuffmanDecodeTable.Refusal) {
            let used = try lengths.withUnsafeBufferPointer { (l: UnsafeBufferPointer<UInt8>) throws(HuffmanDecodeTable.Refusal) -> Int in
                try HuffmanDecodeTable.build(lengths: l.baseAddress!, count: l.count, alphabet: alphabet,
                                             rootBits: rootBits, into: &table, capacity: capacity, scratch: &scratch)
            }
            return .success(table.prefix(used).map { HuffmanEntry(raw: $0) })
        } catch {
            return .failure(error)
        }
    }

    static func refusal(_ result: Result<[HuffmanEntry], HuffmanDecodeTable.Refusal>) -> HuffmanDecodeTable.Refusal? {
        if case let .failure(refusal) = result { return refusal }
        return nil
    }

    @Test func oneSymbolIsAZeroLengthCodeInWebPAndAOneBitCodeInDeflate() throws {
        var lengths = [UInt8](repeating: 0, count: 40)
        lengths[17] = 3
        let webp = try Self.build(lengths, alphabet: .symbols).get()
        #expect(webp.count == 256)
        #expect(webp.allSatisfy { $0.bits == 0 && $0.value == 17 && $0.isLiteral })
        // Deflate accepts the one symbol only as a one-bit code: its other half is invalid.
        #expect(Self.refusal(Self.build(lengths, alphabet: .distance)) == .incomplete)
        lengths[17] = 1
        let deflate = try Self.build(lengths, alphabet: .distance).get()
        #expect(deflate[0].bits == 1 && deflate[0].isBase && deflate[0].value == Int(HuffmanAlphabet.distanceBase[17]))
        #expect(deflate[1].kind == HuffmanEntry.invalid)
    }

    @Test func emptyAndIncompleteCodes() {
        let empty = [UInt8](repeating: 0, count: 30)
        #expect(Self.refusal(Self.build(empty, alphabet: .symbols)) == .incomplete)
        #expect(Self.refusal(Self.build(empty, alphabet: .codeLengths)) == .incomplete)
        // A block of literals alone may send an empty distance code: every lookup is invalid.
        let none = try? Self.build(empty, alphabet: .distance).get()
        #expect(none?.count == 256 && none?.allSatisfy { $0.kind == HuffmanEntry.invalid } == true)
        // Two 2-bit codes leave half the code space unused: refused by both formats.
        let half: [UInt8] = [2, 2, 0, 0]
        #expect(Self.refusal(Self.build(half, alphabet: .symbols)) == .incomplete)
        #expect(Self.refusal(Self.build(half, alphabet: .literalLength)) == .incomplete)
        #expect(Self.refusal(Self.build([1, 1, 1], alphabet: .symbols)) == .oversubscribed)
    }

    /// Lengths 1, 2, …, 14, 15, 15: codes past the 8-bit root go to one subtable reached by
    /// a link whose length is the longest code's, 15, and whose width is 7.
    @Test func longCodesGoThroughALink() throws {
        var lengths = (1 ... 15).map { UInt8($0) }
        lengths.append(15)
        let table = try Self.build(lengths, alphabet: .symbols).get()
        #expect(table.count == 256 + 128)
        // Symbol 0's code is 0 (one bit), symbol 1's 10, …: the root index is the code reversed.
        #expect(table[0].value == 0 && table[0].bits == 1)
        #expect(table[0b01].value == 1 && table[0b01].bits == 2)
        let link = table[0xFF]
        #expect(link.isLink && link.bits == 15 && link.width == 7 && link.value == 256)
        // Symbol 8 (code 111111110, nine bits): the subtable's entries with low bit 0.
        #expect(table[256].value == 8 && table[256].bits == 1)
        // The two 15-bit codes: seven bits after the root, all ones but the last.
        #expect(table[256 + 0b011_1111].value == 14 && table[256 + 0b111_1111].value == 15)
        #expect(table[256 + 0b111_1111].bits == 7)
    }

    /// The table never takes more than its capacity: a code that needs more is refused.
    @Test func capacityIsHeld() {
        var lengths = (1 ... 15).map { UInt8($0) }
        lengths.append(15)
        #expect(Self.refusal(Self.build(lengths, alphabet: .symbols, capacity: 256 + 127)) == .oversubscribed)
        #expect(Self.refusal(Self.build([1, 1], alphabet: .symbols, capacity: 255)) == .oversubscribed)
    }
}
