import PareCore
import TestSupport
import Testing
@testable import Pare

/// ThumbHash and BlurHash against their reference encoders on a small picture: an 8×6 gradient
/// (R = 32x, G = 40y, B = 9xy, each mod 256). The expected values are the references' outputs
/// for these pixels: PyPI thumbhash 0.1.2 `rgba_to_thumb_hash` and blurhash-python 1.2.2
/// `encode` (the C encoder). `Tests/cli/placeholder-check.sh` compares every corpus photo.
@Suite struct PlaceholderTests {
    static let width = 8, height = 6
    static var rgba: [UInt8] {
        var out: [UInt8] = []
        for y in 0 ..< height {
            for x in 0 ..< width { out += [UInt8(x * 32 % 256), UInt8(y * 40 % 256), UInt8(x * y * 9 % 256), 255] }
        }
        return out
    }

    /// A thumbnail's placeholder is its pixels' own: for a thumbnail made as
    /// `ImageSource.placeholder` makes its picture (100 px, sRGB) the two agree, and a
    /// larger thumbnail is resampled to 100 px on its long side first.
    @Test func thumbnailPlaceholderIsItsPixels() throws {
        let source = try ImageSource(bytes: SyntheticJPEG.make(width: 900, height: 600))
        var options = ThumbnailOptions(maxPixelSize: 100)
        options.colour = .sRGB
        for kind in [PlaceholderKind.thumbHash, .blurHash()] {
            #expect(try source.thumbnail(options: options).placeholder(kind) == (try source.placeholder(kind)))
        }
        let large = try source.thumbnail(options: ThumbnailOptions(maxPixelSize: 300)).placeholder(.thumbHash)
        #expect(large.width == 100 && large.height == 67)
    }

    @Test func thumbHashEqualsTheReference() throws {
        let hash = try #require(ThumbHash.encode(width: Self.width, height: Self.height, rgba: Self.rgba))
        #expect(hash == [23, 25, 14, 21, 154, 112, 135, 135, 128, 120, 136, 135, 135, 120, 135, 135, 216, 26, 15, 231, 135])
        #expect(ThumbHash.expectedLength(hash) == hash.count)
        // Drawn back: 32 pixels wide at the hash's 7:5, colours near the picture's mean.
        let drawn = try #require(ThumbHash.decode(hash))
        #expect((drawn.width, drawn.height, drawn.format) == (32, 23, .rgba8))
        #expect(drawn.pixels[3] == 255)
    }

    /// With alpha (the reference Python encoder cannot encode alpha; the layout is the
    /// original's): the alpha byte follows the header, and the length is the header's.
    @Test func thumbHashWithAlpha() throws {
        var pixels = Self.rgba
        for i in stride(from: 3, to: pixels.count, by: 4) { pixels[i] = UInt8(i / 4 * 5 % 256) }
        let hash = try #require(ThumbHash.encode(width: Self.width, height: Self.height, rgba: pixels))
        #expect(hash[2] & 0x80 != 0)
        #expect(hash.count == ThumbHash.expectedLength(hash))
        let drawn = try #require(ThumbHash.decode(hash))
        #expect(drawn.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element < 128 })
    }

    @Test func thumbHashRefusesWhatItCannotHold() {
        #expect(ThumbHash.encode(width: 101, height: 10, rgba: [UInt8](repeating: 0, count: 101 * 40)) == nil)
        #expect(ThumbHash.encode(width: 0, height: 10, rgba: []) == nil)
        #expect(ThumbHash.encode(width: 4, height: 4, rgba: [UInt8](repeating: 0, count: 63)) == nil)
        #expect(ThumbHash.decode([1, 2, 3]) == nil)
    }

    @Test func blurHashEqualsTheReference() throws {
        var rgb: [UInt8] = []
        for (i, v) in Self.rgba.enumerated() where i % 4 != 3 { rgb.append(v) }
        #expect(BlurHash.encode(width: Self.width, height: Self.height, rgb: rgb) == "LjF=aD31a]xuzENMfTnPelfBfNf5")
        #expect(BlurHash.encode(width: Self.width, height: Self.height, rgb: rgb, x: 1, y: 1) == "00F=aD")
        #expect(BlurHash.encode(width: Self.width, height: Self.height, rgb: rgb, x: 9, y: 9)
            == "|jF=aD31a]xuJj%0FF-VFEzENMfTnPWonTWpnPWselfBfNf5fTf4fTf5fS%MORfQofWnofWnofWnd@e?fTe.fPe?fPe.fS%cOXfNofWroaWrodWnd{e-fUe:fNe@fNe=fR%cOXfNofWroaWrodWnd@e?fTe.fPe?fPe.fS")
        #expect(BlurHash.encode(width: Self.width, height: Self.height, rgb: rgb, x: 10, y: 3) == nil)
        let drawn = try #require(BlurHash.decode("LjF=aD31a]xuzENMfTnPelfBfNf5", width: 16, height: 12))
        #expect((drawn.width, drawn.height, drawn.format) == (16, 12, .rgb8))
        #expect(BlurHash.decode("LjF=aD31a]xuzENMfTnPelfBfNf", width: 16, height: 12) == nil)
        #expect(BlurHash.decode("LjF=aD31a]xuzENMfTnPelfBfNf\u{7F}", width: 16, height: 12) == nil)
    }

    @Test func base64RoundTrip() {
        for bytes in [[], [0], [0, 1], [0, 1, 2], [255, 254, 253, 252], Array(0 ... 255)] as [[UInt8]] {
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
        #expect(Base64.decode("not base64!") == nil)
    }

    /// From a file: the 100-pixel picture the thumbnail path makes, upright, in sRGB; the
    /// sample photo's ThumbHash is landscape after its Orientation 6.
    @Test func fromAnImageSource() throws {
        let source = try ImageSource(path: EncodedThumbnailTests.sample)
        let thumbHash = try source.placeholder(.thumbHash)
        #expect((thumbHash.width, thumbHash.height) == (100, 75))
        let bytes = try #require(Base64.decode(thumbHash.text))
        #expect(bytes[4] & 0x80 != 0)
        var options = ThumbnailOptions(maxPixelSize: 100)
        options.colour = .sRGB
        let picture = try source.thumbnail(options: options).image
        #expect(thumbHash == (try Placeholder(.thumbHash, of: picture)))
        let blurHash = try source.placeholder(.blurHash(x: 4, y: 3))
        #expect(blurHash.text.utf8.count == 28)
    }
}
