import PareCore
@testable import PareICC
import Testing
import TestSupport

/// The integer row conversion (`SRGBRowConverter`) stage by stage against the Double
/// oracle (`SRGBConverter.convertExactly`), and the sink that runs it on decoded rows.
@Suite struct RowConversionTests {
    /// ProPhoto's colorants with three kinds of curve: gamma 1.8, `para` type 0 and a table.
    static func wideGamut() throws -> SRGBConverter {
        var builder = ProfileBuilder.sRGBLike()
        builder.tags[2] = ("rXYZ", ProfileBuilder.xyz(0.7977, 0.2880, 0.0))
        builder.tags[3] = ("gXYZ", ProfileBuilder.xyz(0.1352, 0.7119, 0.0))
        builder.tags[4] = ("bXYZ", ProfileBuilder.xyz(0.0313, 0.0001, 0.8249))
        builder.tags[5] = ("rTRC", ProfileBuilder.gammaCurve(1.8))
        builder.tags[6] = ("gTRC", ProfileBuilder.para(0, [1.8]))
        builder.tags[7] = ("bTRC", ProfileBuilder.tableCurve((0 ..< 1024).map { UInt16($0 * $0 * 65535 / (1023 * 1023)) }))
        return try #require(SRGBConverter(profile: try ICCProfile(bytes: builder.build())))
    }

    /// A Cineon-like log curve (a 1024-entry table): the curve whose bend made converting
    /// after resampling lose the most.
    static func logCurve() -> SRGBConverter {
        let table = (0 ..< 1024).map { i -> UInt16 in
            let linear = ICCMath.exp(Double(i - 685) * 0.002 / 0.6 * ICCMath.ln2 * 3.3219280948873626)
            return UInt16(min(max((linear - 0.0108) / (1 - 0.0108), 0), 1) * 65535)
        }
        return SRGBConverter(primaries: .adobeRGB, curve: .table(table))
    }

    static func grayGamma1() -> SRGBConverter { SRGBConverter(grayCurve: .identity) }

    /// Every entry of the encoding table is the rounded sRGB code of its step's linear
    /// light, although the table is filled from 255 thresholds rather than 16,385 powers.
    @Test func encodingTableIsTheRoundedCurve() {
        let table = SRGBRowConverter.encodeTable()
        let steps = 1 << SRGBRowConverter.encodeBits
        #expect(table.count == steps + 1)
        var differing = 0
        for i in 0 ... steps {
            let exact = UInt8(min(255, SRGBCurve.encode(Double(i) / Double(steps)) * 255 + 0.5))
            #expect((Int(table[i]) - Int(exact)).magnitude <= 1, "step \(i)")
            if table[i] != exact { differing += 1 }
        }
        // Only where a step's value lies within rounding of a half code.
        #expect(differing <= 2)
        #expect(table[0] == 0 && table[steps] == 255)
    }

    /// 8-bit RGB over a 17³ grid (and the grid's extremes) within one code of the oracle,
    /// for the wide-gamut profile and the log curve.
    @Test func rgb8AgreesWithTheOracle() throws {
        for converter in [try Self.wideGamut(), Self.logCurve()] {
            var pixels: [UInt8] = []
            for r in stride(from: 0, through: 256, by: 16) {
                for g in stride(from: 0, through: 256, by: 16) {
                    for b in stride(from: 0, through: 256, by: 16) {
                        pixels += [UInt8(min(r, 255)), UInt8(min(g, 255)), UInt8(min(b, 255))]
                    }
                }
            }
            let fast = converter.convert(pixels, format: .rgb8)
            var worst = 0
            for p in stride(from: 0, to: pixels.count, by: 3) {
                let exact = converter.convertExactly(Array(pixels[p ..< p + 3]))
                for c in 0 ..< 3 { worst = max(worst, abs(Int(fast[p + c]) - Int(exact[c]))) }
            }
            #expect(worst <= 1)
        }
    }

    /// Pure ProPhoto green is outside sRGB: red goes negative and is clipped to 0, as the
    /// oracle clips it, not wrapped.
    @Test func outOfGamutClips() throws {
        let converter = try Self.wideGamut()
        let out = converter.convert(0, 255, 0)
        #expect([out.0, out.1, out.2] == converter.convertExactly([0, 255, 0]))
        #expect(out.0 == 0)
        #expect(converter.convert(255, 255, 255) == (255, 255, 255))
        #expect(converter.convert(0, 0, 0) == (0, 0, 0))
    }

    /// RGBA: colour converted, alpha copied.
    @Test func alphaIsCopied() throws {
        let converter = try Self.wideGamut()
        let pixels: [UInt8] = [10, 200, 30, 7, 255, 0, 128, 9, 90, 90, 90, 11]
        let out = converter.convert(pixels, format: .rgba8)
        #expect(Self.matchesOracle(out, pixels, format: .rgba8, converter))
        #expect([out[3], out[7], out[11]] == [7, 9, 11])
    }

    /// Whether `out` is `input` converted as the oracle (`convertExactly`: Double, no
    /// tables) converts it, within one code per colour sample, alpha copied as it is
    /// (16-bit samples big-endian, out as 8 bits).
    static func matchesOracle(_ out: [UInt8], _ input: [UInt8], format: PixelFormat, _ converter: SRGBConverter) -> Bool {
        let bytes = format.bytesPerPixel / format.channels, colours = format.hasAlpha ? format.channels - 1 : format.channels
        let pixels = input.count / format.bytesPerPixel
        guard out.count == pixels * format.channels else { return false }
        for p in 0 ..< pixels {
            let samples = (0 ..< format.channels).map { c in
                bytes == 1 ? Int(input[p * format.bytesPerPixel + c])
                    : Int(input[p * format.bytesPerPixel + 2 * c]) << 8 | Int(input[p * format.bytesPerPixel + 2 * c + 1])
            }
            let exact = converter.convertExactly(Array(samples[..<colours]), maxValue: bytes == 1 ? 255 : 65535)
            for c in 0 ..< colours where abs(Int(out[p * format.channels + c]) - Int(exact[c])) > 1 { return false }
            if format.hasAlpha, Int(out[p * format.channels + colours]) != (bytes == 1 ? samples[colours] : samples[colours] >> 8) {
                return false
            }
        }
        return true
    }

    /// 16-bit samples (big-endian) interpolate their decoding table: within one code of
    /// the oracle over a ramp of 16-bit values, and out as 8-bit samples.
    @Test func sixteenBitAgreesWithTheOracle() throws {
        for (converter, format) in [(try Self.wideGamut(), PixelFormat.rgb16), (Self.logCurve(), .rgba16),
                                    (Self.grayGamma1(), .gray16), (Self.grayGamma1(), .grayAlpha16)] {
            let colours = format.isGray ? 1 : 3
            var samples: [Int] = []
            for v in stride(from: 0, through: 65535, by: 257 * 3 + 1) {
                for c in 0 ..< format.channels { samples.append(c < colours ? (v * (c + 1)) % 65536 : 65535 - v) }
            }
            let bytes = samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 255)] }
            let out = converter.convert(bytes, format: format)
            #expect(out.count == samples.count)
            var worst = 0
            for p in stride(from: 0, to: samples.count, by: format.channels) {
                let exact = converter.convertExactly(Array(samples[p ..< p + colours]), maxValue: 65535)
                for c in 0 ..< colours { worst = max(worst, abs(Int(out[p + c]) - Int(exact[c]))) }
                if format.hasAlpha {
                    #expect(Int(out[p + colours]) == (samples[p + colours] * 255 + 32767) / 65535)
                }
            }
            #expect(worst <= 1, "\(format)")
        }
    }

    /// Gray: gamma 1.0 is linear Y, so each code becomes the sRGB encoding of code / 255,
    /// exactly (LittleCMS's 8-bit transform interpolates the darkest codes: 6 for 1, not 13).
    @Test func grayIsOneTable() {
        let converter = Self.grayGamma1()
        let ramp = (0 ... 255).map { UInt8($0) }
        let out = converter.convert(ramp, format: .gray8)
        #expect(out == ramp.map { converter.convertExactly([$0])[0] })
        #expect(Array(out[0 ..< 4]) == [0, 13, 22, 28])
        #expect(converter.convert(gray: 128) == 188)
        let withAlpha = converter.convert([128, 77], format: .grayAlpha8)
        #expect(withAlpha == [188, 77])
    }

    /// Formats the model does not fit are refused, not misread.
    @Test func formatsThatDoNotFit() throws {
        #expect(try Self.wideGamut().rows(for: .gray8) == nil)
        #expect(Self.grayGamma1().rows(for: .rgb8) == nil)
        #expect(try Self.wideGamut().rows(for: .rgba16) != nil)
    }

    /// Damaged colorants (huge, or a singular matrix) give clipped coefficients: pixels
    /// come out, the integer sums do not overflow, and the tables agree with the oracle.
    @Test func hostileMatricesDoNotTrap() {
        let huge = SRGBConverter(colorants: [ICCXYZ(30000, -30000, 1), ICCXYZ(-30000, 30000, 1), ICCXYZ(1, 1, 30000)],
                                 curves: [.identity, .identity, .identity])
        #expect(huge.matrix.allSatisfy { abs($0) <= SRGBConverter.maxCoefficient })
        let singular = SRGBConverter(colorants: [ICCXYZ(0, 0, 0), ICCXYZ(0, 0, 0), ICCXYZ(0, 0, 0)],
                                     curves: [.identity, .identity, .identity])
        for converter in [huge, singular] {
            for pixel in [[255, 255, 255], [255, 0, 0], [0, 255, 0], [0, 0, 255], [128, 0, 255]] as [[UInt8]] {
                let fast = converter.convert(pixel, format: .rgb8)
                let exact = converter.convertExactly(pixel)
                for c in 0 ..< 3 { #expect(abs(Int(fast[c]) - Int(exact[c])) <= 1) }
            }
            _ = converter.convert([255, 255, 255, 0, 0, 255], format: .rgb16)
        }
    }

    /// A row longer than either buffer is cut to fit.
    @Test func shortBuffersAreRespected() throws {
        var rows = try #require(try Self.wideGamut().rows(for: .rgb8))
        let source: [UInt8] = [1, 2, 3, 4, 5, 6]
        var destination = [UInt8](repeating: 9, count: 4)
        source.withUnsafeBufferPointer { s in
            destination.withUnsafeMutableBufferPointer { rows.convert(s, into: $0, width: 100) }
        }
        #expect(destination[3] == 9)
    }
}

/// Rows collected as they arrive, with the header the sink was given.
struct CollectedRows: RowSink {
    var header: RowStreamHeader?
    var rows: [(RowPlacement, [UInt8])] = []

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) { self.header = header }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        rows.append((placement, Array(row)))
    }
}

@Suite struct ConvertingSinkTests {
    func run(_ converter: SRGBConverter?, _ header: RowStreamHeader, _ rows: [[UInt8]], placements: [RowPlacement]? = nil,
             ledger: MemoryLedger = MemoryLedger()) throws -> SRGBConvertingSink<CollectedRows> {
        var sink = SRGBConvertingSink(converter: converter, ledger: ledger, downstream: CollectedRows())
        try sink.begin(header)
        for (y, row) in rows.enumerated() {
            try row.withUnsafeBufferPointer { (row) throws(CoreError) in
                try sink.consume(row, at: placements?[y] ?? RowPlacement(y: y, width: header.width))
            }
        }
        return sink
    }

    /// CMYK rows through a LUT profile: the resampled grid (`CMYKCodeGrid`) is counted in the
    /// ledger from `begin`, refused when it does not fit, and given back with the sink.
    @Test func cmykGridIsCountedInTheLedger() throws {
        let lut = ProfileBuilder.lut16(inputs: 4, points: 5, node: LUTTests.affineNode(points: 5))
        let converter = try #require(SRGBConverter(profile: try ICCProfile(bytes: ProfileBuilder.lutProfile("CMYK", pcs: "XYZ ", lut).build())))
        let header = RowStreamHeader(width: 2, height: 1, format: .cmyk8)
        let ledger = MemoryLedger()
        do {
            var sink = SRGBConvertingSink(converter: nil, cmyk: converter, ledger: ledger, downstream: CollectedRows())
            try sink.begin(header)
            #expect(ledger.currentBytes == CMYKCodeGrid.bytes + 6)
            try [0, 0, 0, 0, 255, 128, 0, 40].withUnsafeBufferPointer { (row) throws(CoreError) in
                try sink.consume(row, at: RowPlacement(y: 0, width: 2))
            }
            #expect(sink.downstream.rows.first?.1 == converter.convert([0, 0, 0, 0, 255, 128, 0, 40], format: .cmyk8))
        }
        #expect(ledger.currentBytes == 0 && ledger.peakBytes == CMYKCodeGrid.bytes + 6)
        let tight = MemoryLedger(limit: CMYKCodeGrid.bytes)
        var refused = SRGBConvertingSink(converter: nil, cmyk: converter, ledger: tight, downstream: CollectedRows())
        #expect(throws: CoreError.self) { try refused.begin(header) }
    }

    @Test func convertsEachRowBeforeTheDownstream() throws {
        let converter = try RowConversionTests.wideGamut()
        let rows: [[UInt8]] = [[10, 20, 30, 200, 100, 50], [0, 255, 0, 1, 2, 3]]
        let sink = try run(converter, RowStreamHeader(width: 2, height: 2, format: .rgb8), rows)
        #expect(sink.isSRGB)
        #expect(sink.downstream.header?.format == .rgb8)
        for (out, row) in zip(sink.downstream.rows.map(\.1), rows) {
            #expect(RowConversionTests.matchesOracle(out, row, format: .rgb8, converter))
        }
    }

    /// Adam7 passes: each pass's row keeps its placement; its pixels are converted.
    @Test func interlacedPlacementsPassThrough() throws {
        let converter = try RowConversionTests.wideGamut()
        let placements = [RowPlacement(y: 0, xOrigin: 0, xStep: 8, width: 1), RowPlacement(y: 0, xOrigin: 4, xStep: 8, width: 1)]
        let rows: [[UInt8]] = [[10, 20, 30], [40, 50, 60]]
        let sink = try run(converter, RowStreamHeader(width: 5, height: 1, format: .rgb8, interlaced: true), rows,
                           placements: placements)
        #expect(sink.downstream.rows.map(\.0) == placements)
        for (out, row) in zip(sink.downstream.rows.map(\.1), rows) {
            #expect(RowConversionTests.matchesOracle(out, row, format: .rgb8, converter))
        }
    }

    /// 16-bit rows reach the downstream as 8-bit rows of the same channels.
    @Test func sixteenBitRowsBecomeEightBit() throws {
        let converter = try RowConversionTests.wideGamut()
        let row: [UInt8] = [0x12, 0x34, 0xFF, 0xFF, 0, 0, 0x80, 0, 0x80, 0, 0x80, 0, 0xAB, 0xCD, 0x40, 0x00]
        let sink = try run(converter, RowStreamHeader(width: 2, height: 1, format: .rgba16), [row])
        #expect(sink.downstream.header?.format == .rgba8)
        #expect(RowConversionTests.matchesOracle(sink.downstream.rows.first?.1 ?? [], row, format: .rgba16, converter))
    }

    /// No converter, an sRGB source, or rows the converter does not fit: the rows pass
    /// untouched and no buffer is taken.
    @Test func passesThroughWithoutAllocating() throws {
        let row: [UInt8] = [10, 20, 30, 40, 50, 60]
        let header = RowStreamHeader(width: 2, height: 1, format: .rgb8)
        let identity = try #require(SRGBConverter(profile: try ICCProfile(bytes: ProfileBuilder.sRGBLike().build())))
        #expect(identity.isIdentity)
        for (converter, gray, isSRGB) in [(nil, false, false), (identity, false, true),
                                          (RowConversionTests.grayGamma1(), false, false),
                                          (try RowConversionTests.wideGamut(), true, false)] as [(SRGBConverter?, Bool, Bool)] {
            let ledger = MemoryLedger()
            let sink = try run(converter, gray ? RowStreamHeader(width: 6, height: 1, format: .gray8) : header, [row],
                               ledger: ledger)
            #expect(sink.downstream.rows.first?.1 == row)
            #expect(sink.isSRGB == isSRGB)
            #expect(ledger.allocationCount == 0)
        }
    }
}
