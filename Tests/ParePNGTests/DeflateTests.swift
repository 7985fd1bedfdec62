import CZlib
import PareCore
@testable import ParePNG
import Testing
import TestSupport

/// `HuffmanCodeBuilder`'s codes are complete, within their limit and Huffman's where no
/// limit binds; `RunLengthDeflater`'s streams inflate (zlib's `uncompress`, which checks
/// every table and the Adler-32) back to their input.
@Suite struct DeflateTests {
    /// Kraft's sum of `lengths` in units of 2^−15, and the longest length.
    static func kraft(_ lengths: [UInt8]) -> (sum: Int, longest: Int) {
        (lengths.filter { $0 > 0 }.reduce(0) { $0 + 1 << (15 - Int($1)) }, Int(lengths.max() ?? 0))
    }

    static func lengths(_ counts: [UInt32], limit: Int) throws -> [UInt8] {
        let builder = try HuffmanCodeBuilder(ledger: MemoryLedger())
        var lengths = [UInt8](repeating: 0, count: counts.count)
        counts.withUnsafeBufferPointer { c in
            lengths.withUnsafeMutableBufferPointer { builder.lengths(counts: c.baseAddress!, symbols: counts.count, limit: limit, into: $0.baseAddress!) }
        }
        return lengths
    }

    @Test func huffmanLengthsWhereNoLimitBinds() throws {
        #expect(try Self.lengths([1, 1, 2, 4], limit: 15) == [3, 3, 2, 1])
        #expect(try Self.lengths([5, 0, 5, 5, 5], limit: 15) == [2, 0, 2, 2, 2])
        // A lone symbol (or none) still gets a complete code of two one-bit codes.
        #expect(try Self.lengths([0, 0, 9], limit: 15) == [1, 0, 1])
        #expect(try Self.lengths([0, 0, 0], limit: 7) == [1, 1, 0])
    }

    /// Fibonacci counts make Huffman's tree as deep as it can be (29 levels for 30
    /// symbols): the limit must bind, and the code must stay complete.
    @Test(arguments: [7, 9, 15])
    func skewedCountsAreLimitedAndComplete(limit: Int) throws {
        var counts: [UInt32] = [1, 1]
        while counts.count < 30 { counts.append(counts[counts.count - 1] + counts[counts.count - 2]) }
        let lengths = try Self.lengths(counts, limit: limit)
        let (sum, longest) = Self.kraft(lengths)
        #expect(longest == limit)
        #expect(sum == 1 << 15, "Kraft's sum \(sum) of \(lengths)")
        // The most frequent symbols keep the shortest codes.
        #expect(lengths[29] == 1)
        #expect(zip(lengths.dropFirst(), lengths).allSatisfy { $0.0 <= $0.1 })
    }

    @Test func randomCountsGiveCompleteCodes() throws {
        var rng = SplitMix(state: 0xC0DE)
        for round in 0 ..< 200 {
            let symbols = round % 2 == 0 ? 286 : 19
            let limit = symbols == 19 ? 7 : 15
            let counts = (0 ..< symbols).map { _ -> UInt32 in
                let r = rng.next()
                return r % 3 == 0 ? 0 : UInt32(truncatingIfNeeded: r >> (20 + r % 40))
            }
            let lengths = try Self.lengths(counts, limit: limit)
            let (sum, longest) = Self.kraft(lengths)
            #expect(sum == 1 << 15 && longest <= limit, "round \(round)")
            #expect(zip(counts, lengths).allSatisfy { $0.0 == 0 || $0.1 > 0 }, "a used symbol without a code")
        }
    }

    @Test func canonicalCodesAreRFC1951Example() {
        // RFC 1951 3.2.2: lengths (3, 3, 3, 3, 3, 2, 4, 4) give 010, 011, 100, 101, 110, 00,
        // 1110, 1111, stored reversed.
        let lengths: [UInt8] = [3, 3, 3, 3, 3, 2, 4, 4]
        var codes = [UInt16](repeating: 0, count: 8)
        lengths.withUnsafeBufferPointer { l in
            codes.withUnsafeMutableBufferPointer { HuffmanCodeBuilder.codes(lengths: l.baseAddress!, symbols: 8, into: $0.baseAddress!) }
        }
        let expected: [UInt16] = [0b010, 0b011, 0b100, 0b101, 0b110, 0b00, 0b1110, 0b1111]
        #expect(codes == zip(expected, lengths).map { HuffmanCodeBuilder.reversed($0.0, bits: Int($0.1)) })
    }

    /// The stream of `data` fed in pieces of `piece` bytes.
    static func deflated(_ data: [UInt8], piece: Int) throws -> [UInt8] {
        let ledger = MemoryLedger()
        let deflater = try RunLengthDeflater(ledger: ledger)
        var out: [UInt8] = []
        data.withUnsafeBufferPointer { bytes in
            var at = 0
            repeat {
                let n = min(piece, data.count - at)
                deflater.deflate(bytes.baseAddress.map { $0 + at }, count: n, finish: false) { out += $0 }
                at += n
            } while at < data.count
            deflater.deflate(nil, count: 0, finish: true) { out += $0 }
        }
        return out
    }

    static func inputs() -> [(String, [UInt8])] {
        var rng = SplitMix(state: 99)
        var runs: [UInt8] = []
        // Every run length from 1 to 600 (258 + 1, + 2 and + 3 among them), of changing bytes.
        for length in 1 ... 600 { runs += [UInt8](repeating: UInt8(length % 251), count: length) }
        let noise = (0 ..< 300_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        // Filtered-photograph-like: small values around zero, a few runs.
        let laplace = (0 ..< 200_000).map { i -> UInt8 in
            let r = rng.next()
            if i % 5000 < 40 { return 0 }
            return UInt8(truncatingIfNeeded: Int(r % 7) - 3 + (r % 61 == 0 ? Int(r >> 56) : 0))
        }
        return [("empty", []), ("one byte", [7]), ("runs", runs), ("noise, 3 blocks", noise),
                ("zeros, 1 MB", [UInt8](repeating: 0, count: 1 << 20)), ("laplace", laplace),
                ("all bytes", (0 ..< 256 * 40).map { UInt8($0 % 256) })]
    }

    @Test(arguments: [1, 977, 1 << 20])
    func streamsInflateToTheirInput(piece: Int) throws {
        for (name, data) in Self.inputs() {
            if piece == 1 && data.count > 20_000 { continue }
            let stream = try Self.deflated(data, piece: piece)
            let back = zlibInflate(stream, expected: data.count)
            #expect(back == data, "\(name), pieces of \(piece): \(stream.count) bytes did not inflate back")
        }
    }

    @Test func runsAndSkewedBytesShrink() throws {
        let inputs = Dictionary(uniqueKeysWithValues: Self.inputs())
        #expect(try Self.deflated(inputs["zeros, 1 MB"]!, piece: 1 << 20).count < 5_000)
        // Seven values equally likely (log2 7 = 2.81 bits; Huffman's code for them averages
        // 2.86) and one byte in 61 random: under 3.2 bits a byte.
        let laplace = try Self.deflated(inputs["laplace"]!, piece: 4096)
        #expect(laplace.count < 200_000 * 32 / 80)
        // Noise costs barely more than itself.
        #expect(try Self.deflated(inputs["noise, 3 blocks"]!, piece: 65536).count < 300_000 + 300_000 / 100)
    }
}
