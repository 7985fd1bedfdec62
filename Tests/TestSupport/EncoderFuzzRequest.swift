import PareCore

/// How the `encoder` fuzz target reads an input, shared by the target (Fuzz/run.sh compiles
/// this file into it) and by `EncoderRegressionTests`, which replays the committed inputs:
/// width (1…128 from bytes 0–1) and height (1…128 from bytes 2–3), byte 4 the quality
/// (1…100), byte 5 the pixel format (gray8, grayAlpha8, rgb8, rgba8, rgb16) in bits 0–2 and
/// the sampling (index into `ChromaSampling.allCases`) in bits 3–4, byte 6 the coding (bit 0
/// optimized tables, 1 progressive, 2 restart every N MCUs, 3 every N MCU rows, 4 force
/// baseline, 5 the whole input as ICC profile), byte 7 N; the rest are the pixels, repeated
/// to fill the image.
public struct EncoderFuzzRequest {
    public static let formats: [PixelFormat] = [.gray8, .grayAlpha8, .rgb8, .rgba8, .rgb16]
    public let width: Int, height: Int, quality: Int, samplingIndex: Int, restart: Int
    public let format: PixelFormat
    public let coding: UInt8
    public let pixels: [UInt8]

    /// Nil for an input of fewer than 9 bytes (the target skips those).
    public init?(_ data: [UInt8]) {
        guard data.count >= 9 else { return nil }
        width = (Int(data[0]) << 8 | Int(data[1])) % 128 + 1
        height = (Int(data[2]) << 8 | Int(data[3])) % 128 + 1
        quality = Int(data[4]) % 100 + 1
        format = Self.formats[Int(data[5] & 7) % Self.formats.count]
        samplingIndex = Int(data[5] >> 3 & 3) % 3
        coding = data[6]
        restart = Int(data[7])
        pixels = Array(data[8...])
    }

    public var optimize: Bool { coding & 1 != 0 }
    public var progressive: Bool { coding & 2 != 0 }
    public var restartEveryMCUs: Bool { coding & 4 != 0 }
    public var restartEveryRows: Bool { coding & 8 != 0 }
    public var forceBaseline: Bool { coding & 16 != 0 }
    public var carriesProfile: Bool { coding & 32 != 0 }

    /// The image: the pixel bytes repeated row after row.
    public func image() throws(CoreError) -> Image {
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
        return image
    }
}
