import PareCore
import PareICC
import ParePNG

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

/// A colour problem met reading a source's colour facts or making an output. Wherever a
/// profile was not applied the pixels are the source's, as decoded.
public enum ColourWarning: Sendable, Equatable {
    /// The embedded profile, or the JPEG APP2 chunks that hold it, could not be read in
    /// full: a chunk repeated, missing or out of order (ICC.1 B.4), a malformed header or
    /// tag, a limit of `ICCOptions`.
    case profile(ICCError)
    /// A PNG `iCCP` chunk could not be inflated within the limits.
    case compressedProfile(PNGError)
    /// The bytes of a TIFF's profile could not be read from the file.
    case unreadableProfile(CoreError)
    /// `.sRGB` asked for, but the profile cannot be applied to the pixels (a Lab or other
    /// colour space's profile, a CMYK profile on RGB pixels, a LUT this reader refuses): not
    /// applied.
    case notApplied(ProfileName)
    /// The colour space is RGB (`gray` false) or gray and the decoded pixels are the other:
    /// not converted.
    case notConverted(gray: Bool, pixels: PixelFormat)
    /// The profile's colour space does not fit the output's channels (a CMYK profile on the
    /// RGB pixels of a CMYK JPEG): not carried.
    case notCarried(ProfileName, output: PixelFormat)
    /// Netpbm has no place for a profile: dropped.
    case droppedByNetpbm(ProfileName)
}

extension ColourWarning: CustomStringConvertible {
    /// One line, as `ThumbnailWarning` prints it after "colour: ".
    public var description: String {
        switch self {
        case let .profile(error): return "\(error)"
        case let .compressedProfile(error): return "iCCP: \(error)"
        case let .unreadableProfile(error): return "ICC: \(error)"
        case let .notApplied(profile): return "\(profile) cannot be applied to these pixels; not applied"
        case let .notConverted(gray, pixels):
            return "a \(gray ? "gray" : "RGB") colour space cannot convert \(pixels) pixels; not converted"
        case let .notCarried(profile, output): return "\(profile) does not fit \(output) output; not carried"
        case let .droppedByNetpbm(profile):
            return "Netpbm cannot carry an ICC profile; \(profile.byteCount)-byte profile '\(profile.name ?? "")' dropped"
        }
    }
}

/// A profile as a warning names it: its colour space, description, `A2B0` type and size.
public struct ProfileName: Sendable, Equatable, CustomStringConvertible {
    public var colourSpace: ICCSignature
    /// `desc`, when the profile has one.
    public var name: String?
    /// The type of `A2B0` (`mft1`, `mft2`, `mAB `), when present.
    public var lutType: ICCSignature?
    public var byteCount: Int

    public init(_ profile: ICCProfile) {
        colourSpace = profile.header.colourSpace
        name = profile.description
        lutType = profile.aToB0Type
        byteCount = profile.bytes.count
    }

    /// "the CMYK profile 'U.S. Web Coated (SWOP) v2' (A2B0 mft2)".
    public var description: String {
        var text = "the \(colourSpace) profile"
        if let name { text += " '\(name)'" }
        if let lutType { text += " (A2B0 \(lutType))" }
        return text.replacingSpaces()
    }
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
    /// What gray and RGB rows go through: nil with `.keep`, for a source with no colour
    /// facts or sRGB ones, and for a profile that cannot be applied (Lab, other spaces).
    public let converter: SRGBConverter?
    /// What CMYK rows go through in every mode (an RGB output cannot carry a CMYK
    /// profile): the source's CMYK profile, else `ThumbnailOptions.cmykProfile` for an
    /// untagged source; nil without either.
    public let cmykConverter: SRGBConverter?

    public init(_ handling: ColourHandling, source: SourceColour, cmykProfile: ICCProfile? = nil) {
        self.handling = handling
        self.source = source
        let rgbOrGray = source.converter.flatMap { $0.model == .cmyk ? nil : $0 }
        converter = handling == .sRGB ? rgbOrGray : nil
        let cmyk = (source.profile ?? cmykProfile).flatMap { $0.header.colourSpace == .cmyk ? SRGBConverter(profile: $0) : nil }
        cmykConverter = cmyk?.model == .cmyk ? cmyk : nil
    }

    /// True when a JPEG decoder should hand out CMYK frames as `cmyk8` rows
    /// (`JPEGOptions.cmykSamples`) for `cmykConverter`.
    public var wantsCMYKSamples: Bool { cmykConverter != nil }

    /// `downstream` behind the conversion (a pass-through when there is none).
    public func sink<Downstream: RowSink>(ledger: MemoryLedger, into downstream: Downstream) -> SRGBConvertingSink<Downstream> {
        SRGBConvertingSink(converter: converter, cmyk: cmykConverter, ledger: ledger, downstream: downstream)
    }

    /// What the output declares once the rows, decoded as `decoded` pixels (8 or 16 bits),
    /// have become an image of `output` pixels; problems are added to `warnings`. With
    /// `convertedCMYK` (`SRGBConvertingSink.convertedCMYK`) the rows were CMYK made sRGB.
    public func outputColour(decoded: PixelFormat, output: PixelFormat, convertedCMYK: Bool = false,
                             warnings: inout [ThumbnailWarning]) -> OutputColour {
        if convertedCMYK { return .sRGB }
        let profile = source.profile
        if handling == .sRGB {
            if let converter {
                if converter.accepts(decoded) { return .sRGB }
                warnings.append(.colour(.notConverted(gray: converter.model == .gray, pixels: decoded.eightBit)))
            } else if let profile {
                warnings.append(.colour(.notApplied(ProfileName(profile))))
            } else {
                // No profile, or one of the tags that mean sRGB: the pixels already are sRGB.
                return .sRGB
            }
        }
        if let profile {
            if Self.fits(profile, output) { return .profile(profile) }
            warnings.append(.colour(.notCarried(ProfileName(profile), output: output)))
            return .untagged
        }
        return source.implied == .sRGB ? .sRGB : .untagged
    }

    /// Whether `profile` describes `format`'s colour channels: an alpha channel is no colour
    /// (PNG 3rd ed. §13.16: alpha is linear coverage, untouched by colour management), so a
    /// gray profile fits gray+alpha as it fits gray.
    static func fits(_ profile: ICCProfile, _ format: PixelFormat) -> Bool {
        switch profile.header.colourSpace {
        case .rgb: return !format.isGray
        case .gray: return format.isGray
        default: return false
        }
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
