import PareCore
import Testing
import TestSupport
@testable import PareJPEG

/// Replays `Fixtures/regressions/encoder/` the way `Fuzz/encoder.swift` runs an input: eight
/// request bytes (width, height, quality, format and sampling, coding, restart interval), the
/// rest pixels repeated to fill the image. Every encode must succeed and decode without a
/// warning at its size, the optimized, progressive or restart-marked file to the baseline
/// file's pixels, with the ledger back to zero.
@Suite struct EncoderRegressionTests {
    static func decode(_ bytes: [UInt8], ledger: MemoryLedger) throws -> (Image, [String]) {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        var builder = ImageBuilder(ledger: ledger)
        try decoder.decode(scale: .full, into: &builder)
        return (try #require(builder.image), decoder.warnings.map { "\($0)" })
    }

    @Test func everyRegressionEncodesAndDecodesBack() throws {
        let inputs = Regressions.inputs("encoder")
        try #require(!inputs.isEmpty, "no inputs in \(Regressions.folder("encoder"))")
        for input in inputs {
            let data = input.bytes
            try #require(input.isFuzzerInput && data.count >= 9, "\(input.name): not an encoder fuzzer input")
            let width = (Int(data[0]) << 8 | Int(data[1])) % 128 + 1
            let height = (Int(data[2]) << 8 | Int(data[3])) % 128 + 1
            let formats: [PixelFormat] = [.gray8, .grayAlpha8, .rgb8, .rgba8, .rgb16]
            let format = formats[Int(data[5] & 7) % formats.count]
            var options = JPEGEncoderOptions(quality: Int(data[4]) % 100 + 1,
                                             sampling: ChromaSampling.allCases[Int(data[5] >> 3 & 3) % 3])
            let coding = data[6]
            options.forceBaseline = coding & 16 != 0
            if coding & 32 != 0 { options.iccProfile = data }
            let pixels = Array(data[8...])
            var image = try Image(width: width, height: height, format: format)
            var k = 0
            for y in 0 ..< height {
                image.withMutableRow(y) { row in
                    for i in 0 ..< row.count {
                        row[i] = pixels[k]
                        k = k + 1 == pixels.count ? 0 : k + 1
                    }
                }
            }
            let ledger = MemoryLedger(limit: 64 << 20)
            func encode(_ options: JPEGEncoderOptions) throws -> [UInt8] {
                var encoder = try JPEGEncoder(options: options, ledger: ledger, sink: ByteArraySink())
                try encoder.encode(image)
                return encoder.sink.bytes
            }
            do {
                let (reference, warnings) = try Self.decode(try encode(options), ledger: ledger)
                #expect(warnings.isEmpty && reference.width == width && reference.height == height, "\(input.name): \(warnings)")
                options.optimizeHuffmanTables = coding & 1 != 0
                options.progressive = coding & 2 != 0
                if coding & 4 != 0 { options.restartInterval = .mcus(Int(data[7])) }
                if coding & 8 != 0 { options.restartInterval = .mcuRows(Int(data[7])) }
                if options.optimizeHuffmanTables || options.progressive || options.restartInterval != nil {
                    let (other, warnings) = try Self.decode(try encode(options), ledger: ledger)
                    #expect(warnings.isEmpty && other.pixels == reference.pixels, "\(input.name): \(warnings)")
                }
            }
            #expect(ledger.currentBytes == 0, "\(input.name)")
        }
    }
}
