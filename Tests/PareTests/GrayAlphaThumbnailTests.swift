import Testing
@testable import Pare
import PareCore
import PareICC
import PareJPEG
import ParePNG
import TestSupport

/// Gray + alpha (PNG colour type 4) stays gray + alpha through the thumbnail: resampled with
/// alpha premultiplied as RGBA is, turned upright, written as PNG colour type 4 or PAM
/// GRAYSCALE_ALPHA, composited into gray for JPEG, its gray profile carried.
@Suite struct GrayAlphaThumbnailTests {
    /// A PNG of `pixels` (gray, alpha pairs), written by ParePNG's encoder.
    static func png(width: Int, height: Int, _ pixels: [UInt8], profile: [UInt8]? = nil) throws -> [UInt8] {
        var encoder = PNGEncoder(ledger: MemoryLedger())
        encoder.iccProfile = profile
        return try encoder.encode(Image(width: width, height: height, format: .grayAlpha8, pixels: pixels))
    }

    static func thumbnail(_ bytes: [UInt8], size: Int, filter: ResamplingFilter = .lanczos3) throws -> Thumbnail {
        var options = ThumbnailOptions(maxPixelSize: size)
        options.filter = filter
        return try ImageSource(bytes: bytes).thumbnail(options: options)
    }

    /// Opaque light gray beside fully transparent black: the area filter averages colour
    /// weighted by alpha, so the gray keeps its value (200), and alpha halves (127.5 → 128).
    /// Averaging the stored gray without alpha would give 100.
    @Test func resamplesPremultipliedAndStaysGrayAlpha() throws {
        let thumbnail = try Self.thumbnail(try Self.png(width: 2, height: 1, [200, 255, 0, 0]), size: 1, filter: .area)
        #expect(thumbnail.image.format == .grayAlpha8)
        #expect(thumbnail.image.width == 1 && thumbnail.image.height == 1)
        #expect(thumbnail.image.pixels == [200, 128])
    }

    /// At the source's size the rows pass through: the thumbnail's pixels are the file's.
    @Test func sameSizeKeepsEveryPixel() throws {
        let file = SyntheticPNG.make(width: 40, height: 30, channels: 2, interlaced: false)
        let decoded = try PNGDecoder.decodeImage(file, ledger: MemoryLedger())
        #expect(decoded.format == .grayAlpha8)
        let thumbnail = try Self.thumbnail(file, size: 40)
        #expect(thumbnail.image.format == .grayAlpha8)
        #expect(thumbnail.image.pixels == decoded.pixels)
        // Shrunk, it is still gray + alpha, and the gray of each pixel equals what the same
        // picture expanded to RGBA gives in each of R, G and B (one premultiplied filter).
        let small = try Self.thumbnail(file, size: 13)
        var rgba: [UInt8] = []
        for i in stride(from: 0, to: decoded.pixels.count, by: 2) {
            rgba += [decoded.pixels[i], decoded.pixels[i], decoded.pixels[i], decoded.pixels[i + 1]]
        }
        let encoder = PNGEncoder(ledger: MemoryLedger())
        let rgbaFile = try encoder.encode(Image(width: 40, height: 30, format: .rgba8, pixels: rgba))
        let smallRGBA = try Self.thumbnail(rgbaFile, size: 13)
        #expect(small.image.format == .grayAlpha8 && smallRGBA.image.format == .rgba8)
        #expect(small.image.width == smallRGBA.image.width && small.image.height == smallRGBA.image.height)
        var expected: [UInt8] = []
        for i in stride(from: 0, to: smallRGBA.image.pixels.count, by: 4) {
            expected += [smallRGBA.image.pixels[i], smallRGBA.image.pixels[i + 3]]
        }
        #expect(small.image.pixels == expected)
    }

    /// PNG writes colour type 4 (PNG 3rd ed. §11.2.1) at 8 bits; Netpbm a PAM of
    /// GRAYSCALE_ALPHA; JPEG the composite over the background, in gray over a gray
    /// background and in colour over a coloured one.
    @Test func encodersKeepOrCompositeTheAlpha() throws {
        let thumbnail = try Self.thumbnail(try Self.png(width: 2, height: 1, [200, 255, 0, 0]), size: 1, filter: .area)
        let png = try ImageEncoding.encode(thumbnail.image, as: .png)
        #expect(png[24] == 8 && png[25] == 4, "IHDR bit depth 8, colour type 4")
        #expect(try PNGDecoder.decodeImage(png, ledger: MemoryLedger()) == thumbnail.image)

        let pam = try ImageEncoding.encode(thumbnail.image, as: .netpbm)
        let header = "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n"
        #expect(pam == Array(header.utf8) + [200, 128])
        #expect(ImageFileFormat.netpbm.fileExtension(for: thumbnail.image.format) == "pam")

        // Over white: (200·128 + 255·127) / 255 ≈ 227.9, so 227 or 228 after the JPEG round trip.
        let jpeg = try ImageEncoding.encode(thumbnail.image, as: .jpeg)
        let gray = try JPEGDecoder.decodeImage(jpeg, ledger: MemoryLedger())
        #expect(gray.format == .gray8)
        #expect(abs(Int(gray.pixels[0]) - 228) <= 1, "\(gray.pixels)")
        let overRed = try ImageEncoding.encode(thumbnail.image, as: .jpeg,
                                               background: BackgroundColour(red: 255, green: 0, blue: 0))
        #expect(try JPEGDecoder.decodeImage(overRed, ledger: MemoryLedger()).format == .rgb8)
    }

    /// A gray profile describes gray + alpha as it does gray: the thumbnail carries it.
    @Test func grayProfileIsCarried() throws {
        var builder = ProfileBuilder()
        builder.colourSpace = "GRAY"
        builder.tags = [("desc", ProfileBuilder.mluc([("enUS", "test gray")])),
                        ("wtpt", ProfileBuilder.xyz(0.9642, 1, 0.8249)), ("kTRC", ProfileBuilder.gammaCurve(2.2))]
        let profile = builder.build()
        let file = try Self.png(width: 4, height: 2, [UInt8](repeating: 128, count: 16), profile: profile)
        let thumbnail = try Self.thumbnail(file, size: 2)
        #expect(thumbnail.image.format == .grayAlpha8)
        #expect(!thumbnail.warnings.contains { if case .colour = $0 { true } else { false } }, "\(thumbnail.warnings)")
        guard case let .profile(carried) = thumbnail.colour else {
            Issue.record("the gray profile was not carried: \(thumbnail.colour)")
            return
        }
        #expect(carried.bytes == profile)
    }

    /// `pare thumbnail --out-dir` writes PNG where there is alpha: a gray+alpha input gives a
    /// gray+alpha PNG.
    @Test func outDirWritesAGrayAlphaPNG() throws {
        let pare = try #require(CommandRunner.pare, "the pare executable beside the test bundle")
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        try #require(CommandRunner.write(SyntheticPNG.make(width: 64, height: 48, channels: 2, interlaced: false),
                                         to: folder + "/ga.png"))
        let outcome = try #require(CommandRunner.run(pare, ["thumbnail", folder + "/ga.png", "--size", "16",
                                                            "--out-dir", folder + "/out"]))
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let written = try #require(FileSystem.read(folder + "/out/ga.png"))
        #expect(written[24] == 8 && written[25] == 4, "IHDR bit depth 8, colour type 4")
        let image = try PNGDecoder.decodeImage(written, ledger: MemoryLedger())
        #expect(image.format == .grayAlpha8 && image.width == 16 && image.height == 12)
    }
}
