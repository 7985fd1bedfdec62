import PareCore
import PareICC

/// The colour a thumbnail's file should declare.
public enum OutputColour: Sendable {
    /// Nothing known: no tag is written (readers assume sRGB).
    case untagged
    /// Tagged sRGB: the source was sRGB, or `--colour srgb` converted it. PNG gets an
    /// `sRGB` chunk (relative colorimetric); no profile is embedded.
    case sRGB
    /// The source's own profile, to be embedded byte for byte.
    case profile(ICCProfile)
}

/// The colour stage of a thumbnail, run on the small image after resampling (so that
/// resampling happens in the source's encoding, as decoded, not in linear light) and
/// before orientation: keep the pixels and carry the profile, or convert to sRGB.
enum ThumbnailColour {
    static func apply(_ handling: ColourHandling, source colour: SourceColour, to image: inout Image,
                      warnings: inout [ThumbnailWarning]) -> OutputColour {
        let profile = colour.profile
        if handling == .sRGB {
            if let converter = colour.converter {
                if converter.apply(to: &image) { return .sRGB }
                warnings.append(.colour("a \(converter.model == .gray ? "gray" : "RGB") colour space cannot convert "
                    + "\(image.format) pixels; not converted"))
            } else if let profile {
                warnings.append(.colour("\(describe(profile)) is not a matrix/TRC profile; not applied"))
            } else {
                // No profile, or one of the tags that mean sRGB: the pixels already are sRGB.
                return .sRGB
            }
        }
        if let profile {
            if fits(profile, image.format) { return .profile(profile) }
            warnings.append(.colour("\(describe(profile)) does not fit \(image.format) output; not carried"))
            return .untagged
        }
        return colour.implied == .sRGB ? .sRGB : .untagged
    }

    static func fits(_ profile: ICCProfile, _ format: PixelFormat) -> Bool {
        switch profile.header.colourSpace {
        case .rgb: return format == .rgb8 || format == .rgba8
        case .gray: return format == .gray8
        default: return false
        }
    }

    /// "the CMYK profile 'U.S. Web Coated (SWOP) v2' (A2B0 mft2)".
    static func describe(_ profile: ICCProfile) -> String {
        var text = "the \(profile.header.colourSpace) profile"
        if let name = profile.description { text += " '\(name)'" }
        if let lut = profile.aToB0Type { text += " (A2B0 \(lut))" }
        return text.replacingSpaces()
    }
}

private extension String {
    /// Signatures end in spaces ("RGB "); one space between words reads better.
    func replacingSpaces() -> String {
        var out = "", lastWasSpace = false
        for c in self {
            if c == " " && lastWasSpace { continue }
            lastWasSpace = c == " "
            out.append(c)
        }
        return out
    }
}
