#if canImport(Glibc)
import Glibc
#endif
@_spi(Codec) import PareCore
import Testing
@_spi(Codec) @testable import PareJPEG

/// Canonical code assignment (T.81 C.2), as an encoder would do it, for round trips.
private func canonicalCodes(_ table: HuffmanTable) -> [UInt8: (code: Int, length: Int)] {
    var codes: [UInt8: (code: Int, length: Int)] = [:]
    var code = 0, k = 0
    for length in 1 ... 16 {
        for _ in 0 ..< Int(table.counts[length - 1]) {
            codes[table.symbols[k]] = (code, length)
            code += 1
            k += 1
        }
        code <<= 1
    }
    return codes
}

/// Packs bit fields MSB first, with 0xFF00 stuffing and 1-bit padding (T.81 F.1.2.3).
private struct BitWriter {
    var bytes: [UInt8] = []
    var accumulator = 0, count = 0
    mutating func put(_ value: Int, _ length: Int) {
        for i in stride(from: length - 1, through: 0, by: -1) {
            accumulator = accumulator << 1 | (value >> i & 1)
            count += 1
            if count == 8 {
                bytes.append(UInt8(accumulator))
                if accumulator == 0xFF { bytes.append(0) }
                accumulator = 0
                count = 0
            }
        }
    }
    mutating func flush() { while count != 0 { put(1, 1) } }
}

private func reader(_ bytes: [UInt8]) throws -> BitReader {
    BitReader(stream: try ByteStream(source: MemoryByteSource(bytes), ledger: MemoryLedger()))
}

@Suite struct HuffmanTableTests {
    @Test func standardTablesAreValid() throws {
        for (tableClass, id) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            let table = try #require(HuffmanTable.standard(tableClass: tableClass, id: id))
            #expect(table.symbols.count == (tableClass == 0 ? 12 : 162))
        }
    }

    /// The 16-bit codes of Tables K.5 and K.6, which `acSymbols` fills in: their first and
    /// last symbols as the tables print them, and no symbol twice.
    @Test func acTablesEndWithTheirSixteenBitCodesAscending() throws {
        let luminance = try #require(HuffmanTable.standard(tableClass: 1, id: 0)).symbols
        let chrominance = try #require(HuffmanTable.standard(tableClass: 1, id: 1)).symbols
        #expect(Array(luminance[37 ..< 42]) == [0x09, 0x0A, 0x16, 0x17, 0x18])
        #expect(Array(chrominance[43 ..< 48]) == [0x17, 0x18, 0x19, 0x1A, 0x26])
        #expect(Array(luminance.suffix(4)) == [0xF7, 0xF8, 0xF9, 0xFA])
        #expect(Array(chrominance.suffix(4)) == [0xF7, 0xF8, 0xF9, 0xFA])
        #expect(Set(luminance).count == 162 && Set(chrominance).count == 162)
    }

    @Test func rejectsOverSubscribedAndAllOnesTables() {
        // Three codes of length 1 cannot exist.
        #expect(throws: JPEGError.self) {
            try HuffmanTable(counts: [3] + [UInt8](repeating: 0, count: 15), symbols: [0, 1, 2], offset: 7)
        }
        // Two codes of length 1 would use the all-ones code "1", which T.81 reserves.
        #expect(throws: JPEGError.self) {
            try HuffmanTable(counts: [2] + [UInt8](repeating: 0, count: 15), symbols: [0, 1], offset: 7)
        }
        // More symbols than the counts announce.
        #expect(throws: JPEGError.self) {
            try HuffmanTable(counts: [1] + [UInt8](repeating: 0, count: 15), symbols: [0, 1], offset: 7)
        }
        // The error names the place.
        do {
            _ = try HuffmanTable(counts: [0, 5] + [UInt8](repeating: 0, count: 14), symbols: [0, 1, 2, 3, 4], offset: 1234)
            Issue.record("over-subscribed table accepted")
        } catch {
            #expect(error.description == "JPEG: invalid Huffman table: over-subscribed at code length 2 at byte 1234")
        }
    }

    @Test func dcTablesHoldOnlyCategories() throws {
        let table = try HuffmanTable(counts: [0, 1] + [UInt8](repeating: 0, count: 14), symbols: [16], offset: 0)
        #expect(throws: JPEGError.self) { try HuffmanDecodingTable(table, isDC: true, ledger: MemoryLedger(), offset: 0) }
        _ = try HuffmanDecodingTable(table, isDC: false, ledger: MemoryLedger(), offset: 0)
    }

    /// Every symbol of the luminance AC table (codes of 2 to 16 bits, so both the lookahead
    /// table and the long-code walk) decodes back to itself.
    @Test func roundTripThroughFastAndSlowPaths() throws {
        let table = try #require(HuffmanTable.standard(tableClass: 1, id: 0))
        let codes = canonicalCodes(table)
        #expect(codes.values.contains { $0.length == 16 } && codes.values.contains { $0.length == 2 })
        var symbols: [UInt8] = []
        for round in 0 ..< 3 { symbols += round == 1 ? table.symbols.reversed() : table.symbols }
        var writer = BitWriter()
        for symbol in symbols { writer.put(codes[symbol]!.code, codes[symbol]!.length) }
        writer.flush()
        let decoding = try HuffmanDecodingTable(table, isDC: false, ledger: MemoryLedger(), offset: 0)
        var bits = try reader(writer.bytes + [0xFF, 0xD9])
        for symbol in symbols {
            try bits.ensure(32)
            #expect(bits.decode(decoding.pointers) == Int(symbol))
        }
        #expect(!bits.isExhausted)
    }

    @Test func invalidCodeConsumes17Bits() throws {
        // Luminance DC codes are at most 9 bits; 16 one-bits match nothing.
        let table = try #require(HuffmanTable.standard(tableClass: 0, id: 0))
        let decoding = try HuffmanDecodingTable(table, isDC: true, ledger: MemoryLedger(), offset: 0)
        var bits = try reader([0xFF, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0x12, 0x34])
        try bits.ensure(32)
        #expect(bits.decode(decoding.pointers) == nil)
        #expect(bits.peek(7) == 0x7F)  // 24 ones − 17 consumed
    }
}

@Suite struct BitReaderTests {
    @Test func unstuffsAndStopsAtMarkers() throws {
        var bits = try reader([0xA5, 0xFF, 0x00, 0x3C, 0xFF, 0xFF, 0xD3, 0x77])
        try bits.ensure(24)
        #expect(bits.peek(24) == 0xA5FF3C)
        #expect(bits.marker == 0xD3)
        #expect(bits.markerOffset == 5)  // the last fill 0xFF before D3
        bits.skip(24)
        #expect(!bits.isExhausted)
        // Past the marker: zeros, and the reader knows that it is making them up.
        try bits.ensure(8)
        #expect(bits.peek(8) == 0)
        bits.skip(1)
        #expect(bits.isExhausted)
        #expect(bits.stream.position == 7)  // the byte after the marker is not read
    }

    @Test func endOfInputActsAsEOI() throws {
        var bits = try reader([0x80])
        try bits.ensure(16)
        #expect(bits.marker == Marker.eoi)
        #expect(bits.receiveExtend(1) == 1)
        #expect(bits.receiveExtend(3) == -7)  // 000 → −7 (T.81 F.2.2.1 EXTEND)
        bits.skip(4)
        #expect(!bits.isExhausted)
        bits.skip(1)
        #expect(bits.isExhausted)
    }

    @Test func extendCoversEveryCategory() throws {
        var writer = BitWriter()
        for s in 1 ... 15 {
            writer.put(0, s)            // most negative: −(2^s − 1)
            writer.put((1 << s) - 1, s) // most positive
        }
        writer.flush()
        var bits = try reader(writer.bytes)
        for s in 1 ... 15 {
            try bits.ensure(32)
            #expect(bits.receiveExtend(s) == -((1 << s) - 1))
            #expect(bits.receiveExtend(s) == (1 << s) - 1)
        }
    }
}

/// The eight-bytes-at-once paths of the entropy-coded data readers against byte-by-byte
/// references: `ByteStream.loadPlainBytes` through `BitReader`, and the 16-byte marker scan of
/// `ByteStream.nextEntropyMarker`.
@Suite struct EntropyDataTests {
    /// Random bytes, 0xFF among them one time in eight so that stuffing lands everywhere.
    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0 ..< count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (state >> 61) == 0 ? 0xFF : UInt8(truncatingIfNeeded: state >> 40)
        }
    }

    @Test func readsEveryBitInOrderWhateverTheWidths() throws {
        let data = Self.randomBytes(3000, seed: 7)
        var writer = BitWriter()
        for byte in data { writer.put(Int(byte), 8) }
        var bits = try reader(writer.bytes + [0xFF, 0xD9])
        var position = 0, width = 1
        while position + 24 <= data.count * 8 {
            try bits.ensure(24)
            var expected = 0
            for i in position ..< position + width { expected = expected << 1 | Int(data[i / 8] >> (7 - i % 8) & 1) }
            #expect(bits.peek(width) == expected, "\(width) bits at bit \(position)")
            bits.skip(width)
            position += width
            width = width % 23 + 1
        }
        #expect(!bits.isExhausted)
        try bits.ensure(24)
        bits.skip(data.count * 8 - position)
        try bits.ensure(16)
        #expect(bits.peek(16) == 0)
        #expect(bits.marker == 0xD9)
        #expect(bits.markerOffset == writer.bytes.count)
    }

    /// Every marker, offset for offset, as a byte-by-byte reading of T.81 B.1.1.5 finds it:
    /// its code, the offset of its 0xFF and of the first fill byte before it.
    static func referenceMarkers(_ bytes: [UInt8]) -> [(UInt8, Int, Int)] {
        var found: [(UInt8, Int, Int)] = [], i = 0
        while i < bytes.count {
            guard bytes[i] == 0xFF else { i += 1; continue }
            var j = i + 1
            while j < bytes.count && bytes[j] == 0xFF { j += 1 }
            guard j < bytes.count else { break }
            if bytes[j] != 0 { found.append((bytes[j], j - 1, i)) }
            i = j + 1
        }
        return found
    }

    @Test func findsMarkersAtEveryAlignment() throws {
        var writer = BitWriter()
        for byte in Self.randomBytes(200, seed: 11) { writer.put(Int(byte), 8) }
        let stuffed = writer.bytes
        for split in 0 ..< 40 {
            for fill in 0 ... 2 {
                var bytes = Array(stuffed[..<split]) + [UInt8](repeating: 0xFF, count: fill) + [0xFF, 0xD0 + UInt8(split & 7)]
                bytes += stuffed[split...] + [0xFF, 0xD9]
                var input = try ByteStream(source: MemoryByteSource(bytes), ledger: MemoryLedger(), windowSize: JPEGOptions().inputWindowBytes)
                var found: [(UInt8, Int, Int)] = []
                while let marker = try input.nextEntropyMarker() { found.append(marker) }
                let expected = Self.referenceMarkers(bytes)
                #expect(found.map(\.0) == expected.map(\.0), "marker after \(split) bytes, \(fill) fill bytes")
                #expect(found.map(\.1) == expected.map(\.1), "marker after \(split) bytes, \(fill) fill bytes")
                #expect(found.map(\.2) == expected.map(\.2), "marker after \(split) bytes, \(fill) fill bytes")
            }
        }
    }

    /// `ByteStream.firstFF` from every cursor against a byte-by-byte search, and
    /// `BitReader.plainLimit`, which the fast path's refill trusts: the same index, whether it
    /// rescans or reuses what it found.
    @Test func plainBytesEndAtTheFirstFF() throws {
        let bytes = Self.randomBytes(300, seed: 5)
        var bits = try reader(bytes)
        try bits.stream.load(at: 0)
        for cursor in 0 ... bytes.count {
            bits.stream.cursor = cursor
            let expected = bytes[cursor...].firstIndex(of: 0xFF) ?? bytes.count
            #expect(bits.stream.firstFF() == expected, "from \(cursor)")
            #expect(bits.plainLimit() == expected, "limit from \(cursor)")
        }
        bits.marker = 0xD9
        bits.stream.cursor = 0
        #expect(bits.plainLimit() == 0)
    }

    @Test func findsMarkersAcrossTheWindowEdge() throws {
        let window = JPEGOptions().inputWindowBytes
        for offset in window - 20 ... window + 2 {
            var bytes = [UInt8](repeating: 0x5A, count: window + 64)
            bytes[offset - 4] = 0xFF
            bytes[offset - 3] = 0x00
            bytes[offset] = 0xFF
            bytes[offset + 1] = 0xD5
            var input = try ByteStream(source: MemoryByteSource(bytes), ledger: MemoryLedger(), windowSize: JPEGOptions().inputWindowBytes)
            let marker = try input.nextEntropyMarker()
            #expect(marker?.code == 0xD5 && marker?.offset == offset, "marker at \(offset)")
            #expect(try input.nextEntropyMarker() == nil)
        }
    }
}

@Suite struct InverseDCTTests {
    /// A deterministic pseudo-random sequence.
    struct Generator {
        var state: UInt64
        mutating func next(_ range: ClosedRange<Int>) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return range.lowerBound + Int((state >> 33) % UInt64(range.count))
        }
    }

    static func referenceIDCT(_ c: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: 64)
        for y in 0 ..< 8 {
            for x in 0 ..< 8 {
                var sum = 0.0
                for v in 0 ..< 8 {
                    for u in 0 ..< 8 {
                        let cu: Double = u == 0 ? 1 / 2.0.squareRoot() : 1.0
                        let cv: Double = v == 0 ? 1 / 2.0.squareRoot() : 1.0
                        let horizontal: Double = cos(Double((2 * x + 1) * u) * Double.pi / 16)
                        let vertical: Double = cos(Double((2 * y + 1) * v) * Double.pi / 16)
                        sum += cu * cv * c[v * 8 + u] * horizontal * vertical
                    }
                }
                out[y * 8 + x] = sum / 4 + 128
            }
        }
        return out
    }

    static func randomBlock(_ g: inout Generator) -> ([Int16], [Int32]) {
        var coefficients = [Int16](repeating: 0, count: 65)
        var quantizers = [Int32](repeating: 1, count: 64)
        for i in 0 ..< 64 {
            let u = i % 8, v = i / 8
            let spread = max(1, 300 >> (u + v))
            coefficients[i] = Int16(g.next(-spread ... spread))
            quantizers[i] = Int32(g.next(1 ... 4))
        }
        return (coefficients, quantizers)
    }

    /// islow meets the IEEE 1180 peak error of 1 against an exact IDCT.
    @Test func fullTransformWithinOneOfReference() {
        var g = Generator(state: 42)
        var worst = 0.0
        for _ in 0 ..< 300 {
            var (coefficients, quantizers) = Self.randomBlock(&g)
            let dequantized = (0 ..< 64).map { Double(coefficients[$0]) * Double(quantizers[$0]) }
            let reference = Self.referenceIDCT(dequantized)
            var output = [UInt8](repeating: 0, count: 64)
            InverseDCT.transform8(&coefficients, &quantizers, output: &output, stride: 8, firstRowOnly: false)
            for i in 0 ..< 64 {
                let expected = min(255, max(0, reference[i].rounded()))
                worst = max(worst, abs(Double(output[i]) - expected))
            }
        }
        #expect(worst <= 1)
    }

    /// The 16-bit and the scalar transforms against their 32-bit oracle, bit for bit: photo-like blocks, blocks
    /// of extreme coefficients and quantisers (where dequantising and the first pass wrap and
    /// saturate, as only corrupt data does), and DC-only rows.
    @Test func sixteenBitTransformMatchesWideOracle() {
        var g = Generator(state: 1180)
        for trial in 0 ..< 3000 {
            var (coefficients, quantizers) = Self.randomBlock(&g)
            if trial % 3 == 1 {
                for i in 0 ..< 64 {
                    coefficients[i] = Int16(g.next(-32768 ... 32767))
                    quantizers[i] = Int32(g.next(1 ... 65535))
                }
            }
            let firstRowOnly = trial % 3 == 2
            if firstRowOnly { for i in 8 ..< 64 { coefficients[i] = 0 } }
            var fast = [UInt8](repeating: 0, count: 64), wide = fast
            var workspace = [InverseDCT.Lanes](repeating: InverseDCT.Lanes(repeating: 0), count: 8)
            InverseDCT.transform8(&coefficients, &quantizers, output: &fast, stride: 8, firstRowOnly: firstRowOnly)
            InverseDCT.transform8Wide(&coefficients, &quantizers, output: &wide, stride: 8, workspace: &workspace,
                                      firstRowOnly: firstRowOnly)
            #expect(fast == wide, "trial \(trial)")
            // The scalar form the Embedded builds use, against the same oracle.
            var scalar = fast, scalarWorkspace = [Int32](repeating: 0, count: 64)
            InverseDCT.transform8Scalar(&coefficients, &quantizers, output: &scalar, stride: 8,
                                        workspace: &scalarWorkspace, firstRowOnly: firstRowOnly)
            #expect(scalar == wide, "trial \(trial), scalar")
        }
    }

    /// The 4×4 and 2×2 transforms in 16-bit lanes against their scalar oracles, bit for bit, on blocks
    /// whose dequantised values and first-pass sums fit 16 bits as an encoder's do: photo-like
    /// blocks, blocks with large values at every frequency at once (up to ±1020), and DC-only
    /// and sparse ones; output written into a wider buffer, to check the stride.
    @Test func sixteenBitReducedTransformsMatchPlain() {
        var g = Generator(state: 2024)
        for trial in 0 ..< 3000 {
            var (coefficients, quantizers) = Self.randomBlock(&g)
            switch trial % 4 {
            case 1:
                for i in 0 ..< 64 {
                    quantizers[i] = Int32(g.next(1 ... 255))
                    coefficients[i] = Int16(g.next(-1020 ... 1020) / Int(quantizers[i]))
                }
            case 2:
                for i in 1 ..< 64 { coefficients[i] = 0 }
            case 3:
                for i in 0 ..< 64 where g.next(0 ... 7) != 0 { coefficients[i] = 0 }
            default:
                break
            }
            // The decoder never stores row or column 4 for this transform (ScanScratch.keep).
            for i in 0 ..< 8 {
                coefficients[32 + i] = 0
                coefficients[8 * i + 4] = 0
            }
            var fast = [UInt8](repeating: 7, count: 4 * 9), plain = fast
            var workspace = [Int32](repeating: 0, count: 64)
            InverseDCT.transform4(&coefficients, &quantizers, output: &fast, stride: 9)
            InverseDCT.transform4Plain(&coefficients, &quantizers, output: &plain, stride: 9, workspace: &workspace)
            #expect(fast == plain, "trial \(trial)")
            // The 2×2 transform: the decoder stores only rows and columns 0, 1, 3, 5 and 7.
            for i in 0 ..< 8 {
                for j in [2, 6] {
                    coefficients[8 * j + i] = 0
                    coefficients[8 * i + j] = 0
                }
            }
            var fast2 = [UInt8](repeating: 7, count: 2 * 5), plain2 = fast2
            InverseDCT.transform2(&coefficients, &quantizers, output: &fast2, stride: 5)
            InverseDCT.transform2Plain(&coefficients, &quantizers, output: &plain2, stride: 5, workspace: &workspace)
            #expect(fast2 == plain2, "trial \(trial), 2×2")
        }
    }

    /// The reduced transforms give the means of 2×2 and 4×4 groups of the exact IDCT, and 1×1
    /// gives the block mean, each within one level.
    @Test func reducedTransformsAreGroupMeans() {
        var g = Generator(state: 7)
        for _ in 0 ..< 200 {
            var (coefficients, quantizers) = Self.randomBlock(&g)
            let dequantized = (0 ..< 64).map { Double(coefficients[$0]) * Double(quantizers[$0]) }
            let reference = Self.referenceIDCT(dequantized)
            var workspace = [Int32](repeating: 0, count: 64)
            for size in [4, 2] {
                var output = [UInt8](repeating: 0, count: size * size)
                if size == 4 {
                    InverseDCT.transform4Plain(&coefficients, &quantizers, output: &output, stride: 4,
                                               workspace: &workspace)
                } else {
                    InverseDCT.transform2Plain(&coefficients, &quantizers, output: &output, stride: 2,
                                               workspace: &workspace)
                }
                let group = 8 / size
                for y in 0 ..< size {
                    for x in 0 ..< size {
                        var mean = 0.0
                        for dy in 0 ..< group {
                            for dx in 0 ..< group { mean += reference[(y * group + dy) * 8 + x * group + dx] }
                        }
                        mean /= Double(group * group)
                        let expected = min(255, max(0, mean.rounded()))
                        #expect(abs(Double(output[y * size + x]) - expected) <= 1)
                    }
                }
            }
            let dc = Double(InverseDCT.dcSample(coefficients[0], quantizers[0], size: 1))
            let level: Double = Double(coefficients[0]) * Double(quantizers[0]) / 8 + 128
            let expected: Double = min(255, max(0, level.rounded()))
            #expect(abs(dc - expected) <= 0.5)
        }
    }

    @Test func levelShiftAndLimits() {
        #expect(InverseDCT.dcSample(0, 1, size: 8) == 128)
        #expect(InverseDCT.dcSample(-1024, 1, size: 8) == 0)
        #expect(InverseDCT.dcSample(1016, 1, size: 8) == 255)
        #expect(InverseDCT.dcSample(12, 2, size: 4) == 131)  // 24/8 = 3
        #expect(InverseDCT.limit(-300) == 0 && InverseDCT.limit(300) == 255 && InverseDCT.limit(5) == 133)
    }
}

@Suite struct UpsamplerTests {
    @Test func fancyHorizontal() {
        let input: [UInt8] = [0, 100, 200, 40]
        var output = [UInt8](repeating: 0, count: 8)
        Upsampler.fancyH2V1(input, width: 4, output: &output)
        // Edges repeat; inside, 3/4 of the nearer sample and 1/4 of the other, biased 1 then 2.
        #expect(output == [0, 25, 75, 125, 175, 160, 80, 40])
    }

    @Test func fancyVertical() {
        let near: [UInt8] = [100, 0], far: [UInt8] = [0, 100]
        var output = [UInt8](repeating: 0, count: 2)
        Upsampler.fancyH1V2(near: near, far: far, width: 2, lower: false, output: &output)
        #expect(output == [75, 25])  // (300 + 0 + 1) / 4, (0 + 100 + 1) / 4
        Upsampler.fancyH1V2(near: near, far: far, width: 2, lower: true, output: &output)
        #expect(output == [75, 25])  // +2 bias: 302/4, 102/4
    }

    @Test func fancyBothWays() {
        let near: [UInt8] = [16, 32, 64], far: [UInt8] = [16, 16, 16]
        var output = [UInt8](repeating: 0, count: 6)
        Upsampler.fancyH2V2(near: near, far: far, width: 3, output: &output)
        // Column sums 3·near + far: 64, 112, 208; then (3·this + neighbour + 8 or 7) / 16.
        #expect(output == [16, 19, 25, 34, 46, 52])
        // A flat plane stays flat.
        Upsampler.fancyH2V2(near: [90, 90, 90], far: [90, 90, 90], width: 3, output: &output)
        #expect(output == [90, 90, 90, 90, 90, 90])
    }

    /// The vector filter against the plain one, on noise, for every width up to 40 (edges,
    /// whole and partial groups of eight) and a long row.
    @Test func fancyBothWaysVectorMatchesPlain() {
        var state: UInt32 = 12345
        func noise() -> UInt8 {
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        for width in Array(1 ... 40) + [1000, 1003] {
            let near = (0 ..< width).map { _ in noise() }, far = (0 ..< width).map { _ in noise() }
            var fast = [UInt8](repeating: 0, count: 2 * width), plain = fast
            Upsampler.fancyH2V2(near: near, far: far, width: width, output: &fast)
            Upsampler.fancyH2V2Plain(near: near, far: far, width: width, output: &plain)
            #expect(fast == plain, "width \(width)")
        }
    }

    @Test func replication() {
        var output = [UInt8](repeating: 0, count: 7)
        Upsampler.replicate([1, 2, 3], width: 3, factor: 3, count: 7, output: &output)
        #expect(output == [1, 1, 1, 2, 2, 2, 3])
    }
}

@Suite struct ColorConverterTests {
    @Test func yCbCrToRGB() {
        var out = [UInt8](repeating: 0, count: 12)
        let y: [UInt8] = [128, 255, 76, 29], cb: [UInt8] = [128, 128, 85, 255], cr: [UInt8] = [128, 128, 255, 107]
        ColorConverter.yCbCrToRGB(y, cb, cr, count: 4, output: &out)
        #expect(Array(out[0 ..< 3]) == [128, 128, 128])
        #expect(Array(out[3 ..< 6]) == [255, 255, 255])
        #expect(Array(out[6 ..< 9]) == [254, 0, 0])     // JFIF red
        #expect(Array(out[9 ..< 12]) == [0, 0, 254])     // JFIF blue, clamped
    }

    /// The 16-bit vector conversion against the plain one for every (Y, Cb, Cr): rows of 256
    /// pixels (Y running through 0…255) for each (Cb, Cr), plus short rows for the tail.
    @Test func yCbCrVectorMatchesPlainEverywhere() {
        let y = (0 ..< 256).map { UInt8($0) }
        var fast = [UInt8](repeating: 0, count: 768), plain = fast
        var mismatches = 0
        for blue in 0 ..< 256 {
            for red in 0 ..< 256 {
                let cb = [UInt8](repeating: UInt8(blue), count: 256), cr = [UInt8](repeating: UInt8(red), count: 256)
                ColorConverter.yCbCrToRGB(y, cb, cr, count: 256, output: &fast)
                ColorConverter.yCbCrToRGBPlain(y, cb, cr, count: 256, output: &plain)
                if fast != plain { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
        for count in 1 ... 20 {
            let cb = (0 ..< count).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            let cr = (0 ..< count).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 5) }
            var a = [UInt8](repeating: 0, count: 3 * count), b = a
            ColorConverter.yCbCrToRGB(Array(y[0 ..< count]), cb, cr, count: count, output: &a)
            ColorConverter.yCbCrToRGBPlain(Array(y[0 ..< count]), cb, cr, count: count, output: &b)
            #expect(a == b, "count \(count)")
        }
    }

    @Test func adobeCMYK() {
        var out = [UInt8](repeating: 0, count: 6)
        // Inverted CMYK as Adobe stores it: 255 means no ink.
        ColorConverter.cmykToRGB([255, 0], [128, 255], [0, 255], [255, 128], count: 2, output: &out)
        #expect(out == [255, 128, 0, 0, 128, 128])
        // YCCK: YCbCr → RGB, inverted, then the same rule.
        ColorConverter.ycckToRGB([0], [128], [128], [255], count: 1, output: &out)
        #expect(Array(out[0 ..< 3]) == [255, 255, 255])
    }
}
