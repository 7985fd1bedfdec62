import PareCore
import PareICC

/// The colour a thumbnail's or a conversion's file should declare.
public enum OutputColour: Sendable {
    /// Nothing known: no tag is written (readers assume sRGB).
    case untagged
    /// Tagged sRGB: the source was sRGB, or `--colour srgb` converted it. PNG gets an
    /// `sRGB` chunk (relative colorimetric); no profile is embedded.
    case sRGB
    /// The source's own profile, to be embedded byte for byte.
    case profile(ICCProfile)
}

/// The colour stage of a thumbnail and of `pare convert`, one for both. Before decoding it
/// chooses the conversion, which `sink(ledger:into:)` runs on the decoded rows on their way
/// to the resampler or the encoder (converting at the decoded resolution, before
/// resampling: see `SRGBConvertingSink`); after, `outputColour` says what the output file
/// declares: the source's profile carried, sRGB, or nothing, with a warning for a profile
/// that could be neither converted nor carried.
@_spi(CommandLine) public struct ColourStage: Sendable {
    public let handling: ColourHandling
    public let source: SourceColour
    /// What rows go through: nil with `.keep`, for a source with no colour facts or sRGB
    /// ones, and for a profile that is not matrix/TRC.
    public let converter: SRGBConverter?

    public init(_ handling: ColourHandling, source: SourceColour) {
        self.handling = handling
        self.source = source
        converter = handling == .sRGB ? source.converter : nil
    }

    /// `downstream` behind the conversion (a pass-through when there is none).
    public func sink<Downstream: RowSink>(ledger: MemoryLedger, into downstream: Downstream) -> SRGBConvertingSink<Downstream> {
        SRGBConvertingSink(converter: converter, ledger: ledger, downstream: downstream)
    }

    /// What the output declares once the rows, decoded as `decoded` pixels (8 or 16 bits),
    /// have become an image of `output` pixels; problems are added to `warnings`.
    public func outputColour(decoded: PixelFormat, output: PixelFormat, warnings: inout [ThumbnailWarning]) -> OutputColour {
        let profile = source.profile
        if handling == .sRGB {
            if let converter {
                if converter.accepts(decoded) { return .sRGB }
                warnings.append(.colour("a \(converter.model == .gray ? "gray" : "RGB") colour space cannot convert "
                    + "\(decoded.eightBit) pixels; not converted"))
            } else if let profile {
                warnings.append(.colour("\(Self.describe(profile)) is not a matrix/TRC profile; not applied"))
            } else {
                // No profile, or one of the tags that mean sRGB: the pixels already are sRGB.
                return .sRGB
            }
        }
        if let profile {
            if Self.fits(profile, output) { return .profile(profile) }
            warnings.append(.colour("\(Self.describe(profile)) does not fit \(output) output; not carried"))
            return .untagged
        }
        return source.implied == .sRGB ? .sRGB : .untagged
    }

    static func fits(_ profile: ICCProfile, _ format: PixelFormat) -> Bool {
        switch profile.header.colourSpace {
        case .rgb: return !format.isGray
        case .gray: return format.channels == 1
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
