/// The pixel layouts Pare produces: interleaved channels, 8 or 16 bits per sample.
/// 16-bit samples are stored big-endian (as in PNG and PAM), so a row's bytes mean the same
/// on every machine.
///
/// `cmyk8` is the one device format that is not gray or RGB: a JPEG decoder asked for it
/// (`JPEGOptions.cmykSamples`) hands out the ink amounts of a CMYK or YCCK frame (0 = no
/// ink) for a profile to convert; nothing downstream of that conversion ever sees it.
public enum PixelFormat: Sendable, Equatable, CaseIterable {
    case gray8, grayAlpha8, rgb8, rgba8
    case gray16, grayAlpha16, rgb16, rgba16
    case cmyk8

    public var channels: Int {
        switch self {
        case .gray8, .gray16: return 1
        case .grayAlpha8, .grayAlpha16: return 2
        case .rgb8, .rgb16: return 3
        case .rgba8, .rgba16, .cmyk8: return 4
        }
    }

    public var bytesPerSample: Int {
        switch self {
        case .gray8, .grayAlpha8, .rgb8, .rgba8, .cmyk8: return 1
        case .gray16, .grayAlpha16, .rgb16, .rgba16: return 2
        }
    }

    public var bytesPerPixel: Int { channels * bytesPerSample }

    public var hasAlpha: Bool { self != .cmyk8 && (channels == 2 || channels == 4) }

    public var isGray: Bool { channels <= 2 }

    /// The same channels at 8 bits per sample.
    public var eightBit: PixelFormat {
        switch self {
        case .gray8, .gray16: return .gray8
        case .grayAlpha8, .grayAlpha16: return .grayAlpha8
        case .rgb8, .rgb16: return .rgb8
        case .rgba8, .rgba16: return .rgba8
        case .cmyk8: return .cmyk8
        }
    }
}
