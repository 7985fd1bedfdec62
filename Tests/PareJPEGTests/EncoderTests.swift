import PareCore
import TestSupport
import Testing
@testable import PareJPEG

/// The encoder's stages against their plain definitions, and whole encodes decoded again.
/// Byte-for-byte agreement with cjpeg is checked by Tests/cli/encoder-vs-cjpeg.sh, which
/// needs cjpeg; these tests need nothing but Pare.
@Suite struct EncoderTests {
    /// A deterministic picture with edges, gradients and noise, `channels` bytes a pixel.
    static func picture(width: Int, height: Int, format: PixelFormat, seed: UInt64 = 1) throws -> Image {
        var image = try Image(width: width, height: height, format: format)
        var state = seed
        for y in 0 ..< height {
            image.withMutableRow(y) { row in
                for i in 0 ..< row.count {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    let noise = Int(state >> 61)
                    let x = i / format.bytesPerPixel
                    let edge = (x / 5 + y / 7) % 2 == 0 ? 60 : 0
                    // Gradients that wrap together in every channel: the colour changes slowly.
                    let value: Int = (x * 3 + y * 2) % 160 + (i % format.bytesPerPixel) * 20 + edge / 3 * 2 + noise
                    row[i] = UInt8(value)
                }
            }
        }
        return image
    }

    static func encode(_ image: Image, _ options: JPEGEncoderOptions = JPEGEncoderOptions(),
                       ledger: MemoryLedger = MemoryLedger()) throws -> [UInt8] {
        var encoder = try JPEGEncoder(options: options, ledger: ledger, sink: ByteArraySink())
        try encoder.encode(image)
        return encoder.sink.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> Image {
        let ledger = MemoryLedger()
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        #expect(decoder.warnings.isEmpty)
        var builder = ImageBuilder(ledger: ledger)
        try decoder.decode(scale: .full, into: &builder)
        #expect(decoder.warnings.isEmpty)
        return try #require(builder.image)
    }

    /// Mean squared error per sample; 205 is a PSNR of 25 dB.
    static func meanSquaredError(_ a: Image, _ b: Image) -> Double {
        var sum = 0.0
        for y in 0 ..< a.height {
            let ra = a.row(y), rb = b.row(y)
            for i in 0 ..< ra.count {
                let d = Double(ra[i]) - Double(rb[i])
                sum += d * d
            }
        }
        return sum / Double(a.height * a.rowStride)
    }

    // MARK: stages

    /// The sixteen-pixel path (and its scalar tail) gives the plain formula's samples for
    /// every RGB triple: one row per red value, green and blue running through all 65,536
    /// pairs, with a few pixels more so that the row ends in a tail.
    @Test func colourRowAgreesWithPlainFormula() {
        let count = 65536 + 7
        var pixels = [UInt8](repeating: 0, count: 3 * count)
        var y = [UInt8](repeating: 0, count: count), cb = y, cr = y
        var mismatches = 0
        for r in 0 ... 255 {
            for i in 0 ..< count {
                pixels[3 * i] = UInt8(r)
                pixels[3 * i + 1] = UInt8(truncatingIfNeeded: i >> 8)
                pixels[3 * i + 2] = UInt8(truncatingIfNeeded: i)
            }
            pixels.withUnsafeBufferPointer { p in
                ForwardColor.convertRow(p.baseAddress!, channels: 3, count: count, y: &y, cb: &cb, cr: &cr)
            }
            for i in 0 ..< count {
                let plain = ForwardColor.convert(r: pixels[3 * i], g: pixels[3 * i + 1], b: pixels[3 * i + 2])
                if plain.y != y[i] || plain.cb != cb[i] || plain.cr != cr[i] { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
        // White, black and pure colours at the range's ends (JFIF's equations, rounded).
        #expect(ForwardColor.convert(r: 255, g: 255, b: 255) == (255, 128, 128))
        #expect(ForwardColor.convert(r: 0, g: 0, b: 0) == (0, 128, 128))
        #expect(ForwardColor.convert(r: 0, g: 0, b: 255) == (29, 255, 107))
        #expect(ForwardColor.convert(r: 255, g: 0, b: 0) == (76, 85, 255))
    }

    @Test func downsamplingBiasAlternates() {
        let top: [UInt8] = [1, 2, 1, 2, 3, 3, 255, 255], bottom: [UInt8] = [1, 1, 1, 1, 4, 4, 255, 255]
        var out = [UInt8](repeating: 0, count: 4)
        Downsampling.h2v2(top, bottom, &out, outputCount: 4)
        // (5 + 1) >> 2, (5 + 2) >> 2, (14 + 1) >> 2, (1020 + 2) >> 2
        #expect(out == [1, 1, 3, 255])
        Downsampling.h2v1(top, &out, outputCount: 4)
        // (3 + 0) >> 1, (3 + 1) >> 1, (6 + 0) >> 1, (510 + 1) >> 1
        #expect(out == [1, 2, 3, 255])
        var row: [UInt8] = [9, 8, 7, 0, 0, 0]
        Downsampling.expandRightEdge(&row, width: 3, paddedWidth: 6)
        #expect(row == [9, 8, 7, 7, 7, 7])
    }

    /// The eight-at-a-time downsamplers give the plain loops' samples for every length up
    /// to 40 (tails included), on random rows and on rows of 255.
    @Test func downsamplingLanesAgreeWithPlainLoops() {
        var state: UInt64 = 9
        var mismatches = 0
        for count in 1 ... 40 {
            for trial in 0 ..< 20 {
                var top = [UInt8](repeating: 0, count: 2 * count), bottom = top
                for i in top.indices {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    top[i] = trial == 0 ? 255 : UInt8(truncatingIfNeeded: state >> 56)
                    bottom[i] = trial == 0 ? 255 : UInt8(truncatingIfNeeded: state >> 48)
                }
                var plain = [UInt8](repeating: 0, count: count), lanes = plain
                Downsampling.h2v2(top, bottom, &plain, outputCount: count)
                Downsampling.h2v2Lanes(top, bottom, &lanes, outputCount: count)
                if plain != lanes { mismatches += 1 }
                Downsampling.h2v1(top, &plain, outputCount: count)
                Downsampling.h2v1Lanes(top, &lanes, outputCount: count)
                if plain != lanes { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    /// A flat block has only a DC term, 8 × 8 × (sample − 128) in the transform's ×8 scale;
    /// a horizontal ramp has only row-0 terms.
    @Test func forwardDCTOfSimpleBlocks() {
        var flat = [UInt8](repeating: 200, count: 64), out = [Int32](repeating: 0, count: 64)
        ForwardDCT.transform(&flat, stride: 8, into: &out)
        #expect(out[0] == 8 * 8 * 72)
        #expect(out[1...].allSatisfy { $0 == 0 })
        var ramp = (0 ..< 64).map { UInt8(100 + ($0 % 8) * 8) }
        ForwardDCT.transform(&ramp, stride: 8, into: &out)
        #expect(out[8...].allSatisfy { $0 == 0 })
        #expect(out[1] < 0 && out[2] == 0 && out[3] < 0 && out[4] == 0)
    }

    @Test func qualityScalingIsLibjpegs() {
        #expect(IJGQuality.scale(quality: 50) == 100)
        #expect(IJGQuality.scale(quality: 75) == 50)
        #expect(IJGQuality.scale(quality: 10) == 500)
        let q50 = Quantization.tables(quality: 50, forceBaseline: false, gray: false)
        #expect(q50 == [IJGQuality.luminance, IJGQuality.chrominance])
        // Table K.2 as printed: its first and fourth rows, and 99 in every row below.
        #expect(Array(IJGQuality.chrominance[0 ..< 8]) == [17, 18, 24, 47, 99, 99, 99, 99])
        #expect(Array(IJGQuality.chrominance[24 ..< 32]) == [47, 66, 99, 99, 99, 99, 99, 99])
        #expect(IJGQuality.chrominance.count == 64 && IJGQuality.chrominance[32...].allSatisfy { $0 == 99 })
        #expect(Quantization.tables(quality: 100, forceBaseline: false, gray: true)[0].allSatisfy { $0 == 1 })
        // cjpeg -quality 75: 8 6 5 8 12 20 26 31 …
        #expect(Array(Quantization.tables(quality: 75, forceBaseline: false, gray: true)[0].prefix(8))
                == [8, 6, 5, 8, 12, 20, 26, 31])
        let q1 = Quantization.tables(quality: 1, forceBaseline: false, gray: false)
        #expect(q1[1].max() == 4950)
        #expect(Quantization.tables(quality: 1, forceBaseline: true, gray: false)[1].max() == 255)
    }

    /// The multiplying quantiser equals rounded division for every 16-bit input and every
    /// baseline divisor (8 × 1 … 8 × 255); wider tables (sampled up to 8 × 6050) divide plainly.
    @Test func reciprocalQuantizationEqualsDivision() throws {
        let ledger = MemoryLedger()
        var coefficients = [Int16](repeating: 0, count: 64), block = [Int16](repeating: 0, count: 64)
        var mismatches = 0
        for q in Array(1 ... 255) + Array(stride(from: 256, through: 6050, by: 97)) + [6050] {
            let table = [UInt16](repeating: UInt16(q), count: 64)
            let divisors = try Divisors(table, ledger: ledger)
            #expect(divisors.narrow == (q <= 255))
            for base in stride(from: -32768, through: 32767, by: 64) {
                for i in 0 ..< 64 { coefficients[i] = Int16(base + i) }
                divisors.quantize(coefficients, into: &block)
                for k in 0 ..< 64 where block[k] != Quantization.quantize(Int32(coefficients[k]), q: UInt16(q)) {
                    mismatches += 1
                }
            }
        }
        #expect(mismatches == 0)
    }

    /// The eight-lane forward DCT gives the plain transform's outputs, on random blocks and
    /// on the extremes (0 and 255 in random places, checkerboards, every block of whole rows or
    /// whole columns of 0 and 255, which give the largest sums the transform forms).
    @Test func forwardDCTLanesAgreeWithPlainTransform() {
        var state: UInt64 = 17
        var samples = [UInt8](repeating: 0, count: 8 * 12), plain = [Int32](repeating: 0, count: 64)
        var lanes = [Int16](repeating: 0, count: 64)
        var mismatches = 0
        for trial in 0 ..< 20000 {
            for i in samples.indices {
                switch trial % 5 {
                case 0, 1:
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    let random = UInt8(truncatingIfNeeded: state >> 56)
                    samples[i] = trial % 5 == 0 ? random : (random & 1 == 0 ? 0 : 255)
                case 2: samples[i] = (i / 12 + i % 12) % 2 == 0 ? 0 : 255
                // Every block whose rows (then columns) are each all 0 or all 255.
                case 3: samples[i] = (trial / 5) >> (i / 12) & 1 == 0 ? 0 : 255
                default: samples[i] = (trial / 5) >> (i % 12 & 7) & 1 == 0 ? 0 : 255
                }
            }
            ForwardDCT.transform(samples, stride: 12, into: &plain)
            ForwardDCT.transformLanes(samples, stride: 12, into: &lanes)
            for i in 0 ..< 64 where Int32(lanes[i]) != plain[i] { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// The transform quantised in registers (`Divisors.transformAndQuantize`) gives the
    /// blocks of the plain transform followed by the plain division, for baseline tables
    /// (the multiplying path, at qualities 1 … 100 and all ones) and for a wide table.
    @Test func fusedTransformAndQuantizationAgreeWithPlainStages() throws {
        let ledger = MemoryLedger()
        var state: UInt64 = 29
        var samples = [UInt8](repeating: 0, count: 8 * 12), plain = [Int32](repeating: 0, count: 64)
        var workspace = [Int16](repeating: 0, count: 64), block = [Int16](repeating: 0, count: 64)
        var mismatches = 0
        let tables = [1, 10, 50, 75, 90, 100].map { Quantization.tables(quality: $0, forceBaseline: true, gray: false)[1] }
            + [Quantization.tables(quality: 1, forceBaseline: false, gray: false)[1]]
        for table in tables {
            let divisors = try Divisors(table, ledger: ledger)
            for trial in 0 ..< 2000 {
                for i in samples.indices {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    let random = UInt8(truncatingIfNeeded: state >> 56)
                    samples[i] = trial % 3 == 0 ? random : trial % 3 == 1 ? (random & 1 == 0 ? 0 : 255) : random / 16 &+ 120
                }
                ForwardDCT.transform(samples, stride: 12, into: &plain)
                divisors.transformAndQuantize(samples, stride: 12, workspace: &workspace, into: &block)
                for k in 0 ..< 64 where block[k] != Quantization.quantize(plain[k], q: table[k]) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    /// The zig-zag nonzero mask built a natural row at a time equals the plain scan in
    /// zig-zag order, for every single coefficient, random sparse blocks and the full and
    /// empty blocks.
    @Test func nonzeroMaskAgreesWithPlainScan() throws {
        let zigZag = try ZigZagScan(ledger: MemoryLedger())
        var block = [Int16](repeating: 0, count: 64)
        var state: UInt64 = 5
        var mismatches = 0
        for trial in 0 ..< 5000 {
            for k in 0 ..< 64 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let r = Int(state >> 33)
                switch trial {
                case 0 ..< 64: block[k] = k == trial ? (trial % 2 == 0 ? -1 : 32767) : 0
                case 64: block[k] = -32768
                case 65: block[k] = 0
                default: block[k] = r % (2 + trial % 7) == 0 ? Int16(truncatingIfNeeded: r >> 3) | 1 : 0
                }
            }
            if SequentialHuffman.nonzeroMask(block, rowMasks: zigZag.tables.rowMasks)
                != SequentialHuffman.plainNonzeroMask(block) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// The block coder on merged tables and the non-zero mask writes the bytes of the plain
    /// coefficient-by-coefficient coder, with the standard and with optimized tables, over
    /// single coefficients at every position (both signs, every size), runs of 16 and more
    /// zeros, full blocks, empty blocks, and random sparse blocks with DC differences of every
    /// size; the packer is drained between blocks so that words with 0xFF bytes occur at
    /// every alignment.
    @Test func blockCoderAgreesWithPlainCoder() throws {
        let ledger = MemoryLedger()
        let zigZag = try ZigZagScan(ledger: ledger)
        var counts = (dc: SymbolCounts(), ac: SymbolCounts())
        for symbol in 0 ..< 12 { counts.dc.add(symbol) }
        for run in 0 ..< 16 { for size in 1 ... 10 { for _ in 0 ..< (16 - run) * (11 - size) { counts.ac.add(run << 4 | size) } } }
        counts.ac.add(0)
        counts.ac.add(0xF0)
        let tables = [(HuffmanTable.standard(tableClass: 0, id: 0)!, HuffmanTable.standard(tableClass: 1, id: 0)!),
                      (HuffmanTable.standard(tableClass: 0, id: 1)!, HuffmanTable.standard(tableClass: 1, id: 1)!),
                      (HuffmanTable.optimal(for: counts.dc), HuffmanTable.optimal(for: counts.ac))]
        var block = [Int16](repeating: 0, count: 64)
        var state: UInt64 = 11
        var mismatches = 0, blocks = 0
        for (dcTable, acTable) in tables {
            let dcPlain = try HuffmanCodes(dcTable, ledger: ledger), acPlain = try HuffmanCodes(acTable, ledger: ledger)
            let dcMerged = try MergedCodes(dcTable, ledger: ledger), acMerged = try MergedCodes(acTable, ledger: ledger)
            var plain = try BitPacker(ledger: ledger), merged = try BitPacker(ledger: ledger)
            for trial in 0 ..< 3000 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let magnitude = Int16(truncatingIfNeeded: (state >> 40) & 0x3FF) >> (state >> 36 & 7)
                for k in 0 ..< 64 {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    let r = Int(state >> 33)
                    let value = Int16(truncatingIfNeeded: r >> 4) % 1024 >> (r & 7)
                    switch trial {
                    case 0 ..< 1280: block[k] = k == ZigZag.naturalOrder[trial % 64]
                        ? (trial / 64 % 2 == 0 ? 1 : -1) * (Int16(1) << (trial / 128) | magnitude & ((1 << (trial / 128)) - 1)) : 0
                    case 1280: block[k] = -1023
                    case 1281: block[k] = 0
                    default: block[k] = r % (2 + trial % 23) == 0 ? value : 0
                    }
                }
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let difference = Int32(truncatingIfNeeded: Int64(bitPattern: state) >> 53)
                block.withUnsafeBufferPointer { b in
                    SequentialHuffman.encodePlain(b.baseAddress!, dcDifference: difference, dc: dcPlain.entries.baseAddress,
                                                  ac: acPlain.entries.baseAddress, to: &plain)
                    SequentialHuffman.encode(b.baseAddress!, dcDifference: difference,
                                             dc: UnsafePointer(dcMerged.entries.baseAddress),
                                             ac: UnsafePointer(acMerged.entries.baseAddress), zigZag: zigZag.tables, to: &merged)
                }
                blocks += 1
                if plain.room < BitPacker.blockBound || trial % 97 == 0 {
                    plain.alignToByte()
                    merged.alignToByte()
                    if plain.fill != merged.fill
                        || !(0 ..< plain.fill).allSatisfy({ plain.buffer[$0] == merged.buffer[$0] }) { mismatches += 1 }
                    plain.fill = 0
                    merged.fill = 0
                }
            }
        }
        #expect(mismatches == 0)
        #expect(blocks == 9000)
    }

    /// SSSS (T.81 Table F.1) equals the bit count of |v| for every 16-bit value and at the
    /// ends of the 32-bit range the coder can be given.
    @Test func magnitudeCategoryIsTheBitCount() {
        var mismatches = 0
        for v in Array(Int32(Int16.min) ... Int32(Int16.max)) + [Int32.max, Int32.min + 1, 1 << 20, -(1 << 20)] {
            if magnitudeCategory(v) != 32 - v.magnitude.leadingZeroBitCount { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(magnitudeCategory(0) == 0 && magnitudeCategory(-1) == 1 && magnitudeCategory(255) == 8)
    }

    @Test func bitWriterStuffsAndPads() throws {
        var writer = try BitWriter(sink: ByteArraySink(), ledger: MemoryLedger())
        writer.write(0xFF, length: 8)
        writer.write(0x1, length: 1)
        writer.write(0x3FFF_FFFF, length: 30)
        writer.alignToByte()
        writer.drain()
        // FF → FF 00; then 1 + thirty 1-bits + one pad bit = 32 ones: FF 00 ×4.
        #expect(writer.sink.bytes == [0xFF, 0, 0xFF, 0, 0xFF, 0, 0xFF, 0, 0xFF, 0])
        var second = try BitWriter(sink: ByteArraySink(), ledger: MemoryLedger())
        second.write(0b101, length: 3)
        second.alignToByte()
        second.drain()
        #expect(second.sink.bytes == [0b1011_1111])
    }

    /// K.2's tables: a prefix code (HuffmanTable's own check), no code longer than 16 bits
    /// even for a very skewed distribution, and shorter codes for more frequent symbols.
    @Test func optimalTablesAreLimitedPrefixCodes() throws {
        var counts = SymbolCounts()
        // Fibonacci frequencies make Huffman's procedure build codes far over 16 bits.
        var a = 1, b = 1
        for symbol in 0 ..< 40 {
            counts.counts[symbol] = a
            (a, b) = (b, a + b)
        }
        let table = HuffmanTable.optimal(for: counts)
        _ = try HuffmanTable(counts: table.counts, symbols: table.symbols, offset: 0)
        #expect(table.symbols.count == 40)
        #expect(table.counts.reduce(0) { $0 + Int($1) } == 40)
        // Symbols come in order of code length: the most frequent well before the rarest.
        #expect(try #require(table.symbols.firstIndex(of: 39)) < 4)
        #expect(try #require(table.symbols.firstIndex(of: 0)) > 30)
        var small = SymbolCounts()
        small.counts[5] = 10
        let single = HuffmanTable.optimal(for: small)
        // One symbol and the reserved one: a 1-bit code each, the reserved one dropped.
        #expect(single.counts[0] == 1 && single.symbols == [5])
    }

    // MARK: whole encodes

    /// Every sampling and size round-trips through Pare's decoder at a quality-appropriate
    /// fidelity, and the files are what the options say (SOF marker, sampling factors).
    @Test(arguments: ChromaSampling.allCases)
    func roundTripsAtEverySampling(_ sampling: ChromaSampling) throws {
        for (width, height) in [(1, 1), (7, 9), (17, 33), (1023, 1), (64, 48)] {
            let image = try Self.picture(width: width, height: height, format: .rgb8)
            var options = JPEGEncoderOptions(quality: 95, sampling: sampling)
            let bytes = try Self.encode(image, options)
            #expect(Array(bytes.prefix(4)) == [0xFF, 0xD8, 0xFF, 0xE0])
            #expect(Array(bytes.suffix(2)) == [0xFF, 0xD9])
            let decoded = try Self.decode(bytes)
            #expect(decoded.width == width && decoded.height == height && decoded.format == .rgb8)
            // Chroma subsampling loses the picture's one-pixel colour detail; 4:4:4 keeps it.
            if width * height >= 64 {
                let error = Self.meanSquaredError(image, decoded)
                #expect(error < (sampling == .s444 ? 10 : 40), "MSE \(error)")
            }
            // Optimized tables and progressive scans code the same coefficients: the same pixels.
            options.optimizeHuffmanTables = true
            let optimized = try Self.encode(image, options)
            #expect(optimized.count <= bytes.count)
            #expect(try Self.decode(optimized).pixels == decoded.pixels)
            options.optimizeHuffmanTables = false
            options.progressive = true
            #expect(try Self.decode(try Self.encode(image, options)).pixels == decoded.pixels)
            options.restartInterval = .mcus(2)
            #expect(try Self.decode(try Self.encode(image, options)).pixels == decoded.pixels)
            options.progressive = false
            options.restartInterval = .mcuRows(1)
            #expect(try Self.decode(try Self.encode(image, options)).pixels == decoded.pixels)
        }
    }

    @Test func grayAndAlphaAndSixteenBitInputs() throws {
        let gray = try Self.picture(width: 40, height: 30, format: .gray8)
        let bytes = try Self.encode(gray)
        let decoded = try Self.decode(bytes)
        #expect(decoded.format == .gray8)
        #expect(Self.meanSquaredError(gray, decoded) < 205)
        // RGBA drops alpha: the same file as the RGB pixels.
        let rgb = try Self.picture(width: 40, height: 30, format: .rgb8)
        var rgba = try Image(width: 40, height: 30, format: .rgba8)
        var rgb16 = try Image(width: 40, height: 30, format: .rgb16)
        for y in 0 ..< 30 {
            let source = rgb.row(y)
            rgba.withMutableRow(y) { row in
                for x in 0 ..< 40 {
                    for c in 0 ..< 3 { row[4 * x + c] = source[3 * x + c] }
                    row[4 * x + 3] = UInt8(x)
                }
            }
            rgb16.withMutableRow(y) { row in
                for x in 0 ..< 40 {
                    for c in 0 ..< 3 {
                        row[6 * x + 2 * c] = source[3 * x + c]
                        row[6 * x + 2 * c + 1] = source[3 * x + c]
                    }
                }
            }
        }
        let reference = try Self.encode(rgb)
        #expect(try Self.encode(rgba) == reference)
        // v × 257 rounds back to v.
        #expect(try Self.encode(rgb16) == reference)
    }

    /// The header bytes cjpeg writes: JFIF 1.01, aspect 1:1, then DQT 0, DQT 1, SOF0 with
    /// Y 2×2 and chroma 1×1, four DHTs, SOS.
    @Test func headerOrderIsCjpegs() throws {
        let bytes = try Self.encode(try Self.picture(width: 16, height: 16, format: .rgb8))
        #expect(Array(bytes[0 ..< 20]) == [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
        var markers: [UInt8] = []
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            markers.append(bytes[i + 1])
            if bytes[i + 1] == 0xDA { break }
            i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        #expect(markers == [0xE0, 0xDB, 0xDB, 0xC0, 0xC4, 0xC4, 0xC4, 0xC4, 0xDA])
    }

    /// ICC.1 Annex B.4: a profile over one segment's capacity is split into numbered APP2
    /// chunks right after APP0, which join back into the profile.
    @Test func iccProfileChunks() throws {
        let profile = (0 ..< 150_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var options = JPEGEncoderOptions()
        options.iccProfile = profile
        let bytes = try Self.encode(try Self.picture(width: 8, height: 8, format: .rgb8), options)
        var i = 2 + 18, joined: [UInt8] = [], sequence: [UInt8] = []
        while bytes[i] == 0xFF, bytes[i + 1] == 0xE2 {
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            #expect(Array(bytes[i + 4 ..< i + 16]) == Array("ICC_PROFILE".utf8) + [0])
            sequence.append(bytes[i + 16])
            #expect(bytes[i + 17] == 3)
            joined += bytes[i + 18 ..< i + 2 + length]
            i += 2 + length
        }
        #expect(sequence == [1, 2, 3])
        #expect(joined == profile)
        _ = try Self.decode(bytes)
        options.iccProfile = [UInt8](repeating: 0, count: 255 * 65519 + 1)
        #expect(throws: JPEGEncodingError.self) { try JPEGEncoder(options: options, ledger: MemoryLedger(), sink: ByteArraySink()) }
    }

    @Test func badOptionsAndImagesAreTypedErrors() throws {
        #expect(throws: JPEGEncodingError.invalidOption("quality 0 is not in 1…100")) {
            try JPEGEncoder(options: JPEGEncoderOptions(quality: 0), ledger: MemoryLedger(), sink: ByteArraySink())
        }
        // A size JPEG cannot hold is refused in `begin`, before any row is decoded.
        var encoder = try JPEGEncoder(ledger: MemoryLedger(), sink: ByteArraySink())
        #expect(throws: CoreError.sinkStopped(row: 0)) {
            try encoder.begin(RowStreamHeader(width: 70000, height: 1, format: .rgb8))
        }
        #expect(throws: JPEGEncodingError.unsupportedImage("size 70000×1 (each side must be 1…65535)")) {
            try encoder.finish()
        }
        var short = try JPEGEncoder(ledger: MemoryLedger(), sink: ByteArraySink())
        try short.begin(RowStreamHeader(width: 8, height: 8, format: .gray8))
        let row = [UInt8](repeating: 0, count: 8)
        try row.withUnsafeBufferPointer { (row) throws(CoreError) in try short.consume(row, at: RowPlacement(y: 0, width: 8)) }
        // A row out of order stops the decode at that row.
        #expect(throws: CoreError.sinkStopped(row: 5)) {
            try row.withUnsafeBufferPointer { (row) throws(CoreError) in try short.consume(row, at: RowPlacement(y: 5, width: 8)) }
        }
        #expect(throws: JPEGEncodingError.incompleteImage(rowsGiven: 1, height: 8)) { try short.finish() }
        // A ledger limit refuses the buffers before anything is written.
        var limited = try JPEGEncoder(ledger: MemoryLedger(limit: 20_000), sink: ByteArraySink())
        #expect(throws: CoreError.self) { try limited.begin(RowStreamHeader(width: 4000, height: 8, format: .rgb8)) }
    }

    /// A streamed 4000×3000 RGB encode, rows made on the fly, into a counting sink: the
    /// ledger's peak and the heap's growth.
    static func streamedTwelveMegapixels(_ options: JPEGEncoderOptions) throws -> (peak: Int, growth: Int?, bytes: Int) {
        let width = 4000, height = 3000
        let ledger = MemoryLedger()
        let (count, growth) = try HeapMeter.peakGrowth(ledger: ledger) { () throws -> Int in
            var encoder = try JPEGEncoder(options: options, ledger: ledger, sink: ByteCountingSink())
            try encoder.begin(RowStreamHeader(width: width, height: height, format: .rgb8))
            var row = [UInt8](repeating: 0, count: width * 3)
            for y in 0 ..< height {
                for x in 0 ..< width {
                    row[3 * x] = UInt8(truncatingIfNeeded: x &+ y)
                    row[3 * x + 1] = UInt8(truncatingIfNeeded: x &* 3)
                    row[3 * x + 2] = UInt8(truncatingIfNeeded: y &* 5)
                }
                try row.withUnsafeBufferPointer { (row) throws(CoreError) in try encoder.consume(row, at: RowPlacement(y: y, width: width)) }
            }
            try encoder.finish()
            return encoder.sink.count
        }
        if let growth {
            #expect(abs(growth - ledger.peakBytes) <= ledger.peakBytes / 10 + 64 * 1024,
                    "heap growth \(growth), ledger peak \(ledger.peakBytes)")
        }
        return (ledger.peakBytes, growth, count)
    }

    /// Issue 17's bound: a streamed 12 MP 4:2:0 encode with the standard tables holds at most
    /// 1 MiB, and the heap agrees with the ledger.
    @Test func streamedTwelveMegapixelEncodeStaysUnderOneMebibyte() throws {
        let result = try Self.streamedTwelveMegapixels(JPEGEncoderOptions())
        #expect(result.bytes > 100_000)
        #expect(result.peak <= 1 << 20)
        print("JPEG encoder memory: 4000x3000 4:2:0 standard tables, ledger peak \(result.peak) B, "
            + "heap growth \(result.growth.map(String.init) ?? "n/a") B")
    }

    /// Optimized tables and progressive output hold every quantised coefficient: 2 bytes per
    /// coefficient, 1.5 coefficients per pixel at 4:2:0 (the MCU grid's padding included),
    /// plus the streaming buffers — 36.1 MB + 0.35 MB for 12 MP.
    @Test func optimizedAndProgressiveHoldTheCoefficients() throws {
        let coefficients = (500 * 376 + 2 * 250 * 188) * 64 * 2
        for (optimize, progressive) in [(true, false), (false, true)] {
            var options = JPEGEncoderOptions()
            options.optimizeHuffmanTables = optimize
            options.progressive = progressive
            let result = try Self.streamedTwelveMegapixels(options)
            #expect(result.peak >= coefficients && result.peak <= coefficients + 512 * 1024)
            print("JPEG encoder memory: 4000x3000 4:2:0 \(progressive ? "progressive" : "optimized tables"), "
                + "ledger peak \(result.peak) B (coefficients \(coefficients) B), "
                + "heap growth \(result.growth.map(String.init) ?? "n/a") B")
        }
    }
}
