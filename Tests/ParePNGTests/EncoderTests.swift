import PareCore
import ParePNG
import Testing
import TestSupport

/// The encoder's output decodes back to the same pixels, for every format and odd sizes.
@Suite struct PNGEncoderTests {
    static let sizes = [(1, 1), (7, 9), (17, 33), (1023, 1), (1, 1023), (64, 48)]

    /// Random pixels (left to the None or Sub filters) or smooth gradients with noise
    /// (which the Up, Average and Paeth filters win).
    static func makeImage(_ format: PixelFormat, _ width: Int, _ height: Int, smooth: Bool,
                          ledger: MemoryLedger, rng: inout SplitMix) throws -> Image {
        var image = try Image(width: width, height: height, format: format)
        for y in 0 ..< height {
            image.withMutableRow(y) { row in
                for i in 0 ..< row.count {
                    let noise = UInt8(truncatingIfNeeded: rng.next())
                    row[i] = smooth ? UInt8(truncatingIfNeeded: (i / format.bytesPerPixel) * 3 + y * 5 + i % 3 * 40 + Int(noise & 3)) : noise
                }
            }
        }
        return image
    }

    /// Every format PNG has (not `cmyk8`, which the encoder refuses).
    @Test(arguments: PixelFormat.allCases.filter { $0 != .cmyk8 })
    func roundTripIsIdentical(format: PixelFormat) throws {
        var rng = SplitMix(state: 0x5EED)
        for (width, height) in Self.sizes {
            for smooth in [false, true] {
                let ledger = MemoryLedger()
                let image = try Self.makeImage(format, width, height, smooth: smooth, ledger: ledger, rng: &rng)
                for level in [0, 6, 9] {
                    let png = try PNGEncoder(ledger: ledger, compressionLevel: level).encode(image)
                    let decoded = try PNGDecoder.decodeImage(png, ledger: ledger)
                    #expect(decoded.format == format)
                    #expect(decoded.width == width && decoded.height == height)
                    #expect(decoded.pixels == image.pixels, "\(format) \(width)x\(height) smooth \(smooth) level \(level)")
                }
            }
        }
    }

    @Test func adaptiveFilteringUsesSeveralFiltersAndCompressesGradients() throws {
        var rng = SplitMix(state: 7)
        let ledger = MemoryLedger()
        let image = try Self.makeImage(.rgb8, 256, 64, smooth: true, ledger: ledger, rng: &rng)
        let png = try PNGEncoder(ledger: ledger).encode(image)
        // Inflate the IDAT data and read each row's filter type.
        let data = chunks(of: png).filter { $0.0 == "IDAT" }.flatMap { $0.1 }
        let raw = try #require(zlibInflate(data, expected: 64 * (256 * 3 + 1)))
        let filters = Set((0 ..< 64).map { raw[$0 * (256 * 3 + 1)] })
        #expect(filters.count >= 2, "filters used: \(filters)")
        #expect(!filters.contains(0))
        #expect(png.count < 256 * 64 * 3 / 2)
        #expect(chunks(of: png).map(\.0) == ["IHDR", "IDAT", "IEND"])
    }

    @Test func invalidSettingsAreTypedErrors() throws {
        let ledger = MemoryLedger()
        let image = try Image(width: 2, height: 2, format: .gray8)
        #expect(throws: PNGError.self) { try PNGEncoder(ledger: ledger, compressionLevel: 12).encode(image) }
        let empty = try Image(width: 0, height: 3, format: .rgb8)
        #expect(throws: PNGError.unsupportedEncoding(reason: "size 0x3")) { try PNGEncoder(ledger: ledger).encode(empty) }
    }
}
