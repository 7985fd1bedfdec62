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
                for compression in PNGCompression.allCases {
                    let png = try PNGEncoder(ledger: ledger, compression: compression).encode(image)
                    let decoded = try PNGDecoder.decodeImage(png, ledger: ledger)
                    #expect(decoded.format == format)
                    #expect(decoded.width == width && decoded.height == height)
                    #expect(decoded.pixels == image.pixels, "\(format) \(width)x\(height) smooth \(smooth) \(compression)")
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

    /// `default` sends a photograph-like image (noise on gradients) to `RunLengthDeflater`
    /// and a drawing (a tile repeated) to zlib at level 6, whose header says so (FLEVEL 2:
    /// 0x78 0x9C; the run-length stream writes 0x78 0x01); `small` is never larger than
    /// `default`, nor `default` than `fast`.
    @Test func defaultChoosesTheStreamByTheImage() throws {
        var rng = SplitMix(state: 11)
        let ledger = MemoryLedger()
        let photo = try Self.makeImage(.rgb8, 300, 200, smooth: true, ledger: ledger, rng: &rng)
        let tile = (0 ..< 8 * 8 * 3).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        var drawing = try Image(width: 300, height: 200, format: .rgb8)
        for y in 0 ..< 200 {
            drawing.withMutableRow(y) { row in
                for x in 0 ..< 300 { for c in 0 ..< 3 { row[3 * x + c] = tile[(y % 8 * 8 + x % 8) * 3 + c] } }
            }
        }
        for (name, image, header) in [("photo", photo, [UInt8](arrayLiteral: 0x78, 0x01)), ("drawing", drawing, [0x78, 0x9C])] {
            let sizes = try PNGCompression.allCases.map { compression -> Int in
                let png = try PNGEncoder(ledger: ledger, compression: compression).encode(image)
                if compression == .default {
                    let data = chunks(of: png).first { $0.0 == "IDAT" }!.1
                    #expect(Array(data.prefix(2)) == header, "\(name)")
                }
                return png.count
            }
            #expect(sizes[2] <= sizes[1] && sizes[1] <= sizes[0], "\(name): fast, default, small \(sizes)")
        }
    }

    @Test func emptyImagesAreTypedErrors() throws {
        let ledger = MemoryLedger()
        let empty = try Image(width: 0, height: 3, format: .rgb8)
        #expect(throws: PNGError.unsupportedEncoding(reason: "size 0x3")) { try PNGEncoder(ledger: ledger).encode(empty) }
    }
}
