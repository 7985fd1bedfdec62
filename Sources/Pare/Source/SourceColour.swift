import PareCore
import PareEXIF
import PareICC
import ParePNG

/// A colour space a file names without embedding a profile.
public enum ImpliedColourSpace: Sendable, Equatable {
    /// PNG `sRGB` (PNG 3rd ed. §11.3.2.5), or EXIF ColorSpace 1 (Exif 2.32 §4.6.5 Table 8).
    case sRGB
    /// Adobe RGB (1998): EXIF ColorSpace 0xFFFF ("uncalibrated") with the Interoperability
    /// index "R03" (DCF 2.0 option file), as cameras set to Adobe RGB write it.
    case adobeRGB
    /// PNG `gAMA` (1/100000 units, the encoding exponent), with `cHRM` when present
    /// (§11.3.2.2, §11.3.2.1); without `cHRM` the primaries are taken as sRGB's.
    case pngGamma(gamma: Int, chromaticities: PNGChromaticities?)
}

/// The colour facts of an input, read with its headers: the embedded ICC profile (JPEG
/// APP2 chunks, PNG iCCP, TIFF InterColorProfile), else the colour space its tags imply.
/// A profile wins over implied tags (PNG 3rd ed. §11.3.2: iCCP over sRGB over gAMA/cHRM).
public struct SourceColour: Sendable {
    public var profile: ICCProfile?
    public var implied: ImpliedColourSpace?
    /// Why a profile was not read, or what was wrong with its chunks.
    public var warnings: [ColourWarning] = []

    /// No colour facts: the pixels are read as sRGB.
    public init() {}

    /// The conversion `--colour srgb` applies, nil when none can be made (no colour
    /// information, which means sRGB; or a profile that is not matrix/TRC).
    public var converter: SRGBConverter? {
        if let profile { return SRGBConverter(profile: profile) }
        switch implied {
        case .adobeRGB:
            return SRGBConverter(primaries: .adobeRGB, curve: ColourPrimaries.adobeRGBCurve)
        case let .pngGamma(gamma, chromaticities):
            // gAMA stores the encoding exponent; its reciprocal decodes.
            guard gamma > 0 else { return nil }
            let curve = ICCToneCurve.gamma(100000 / Double(gamma))
            guard let c = chromaticities, c.whiteY > 0, c.redY > 0, c.greenY > 0, c.blueY > 0 else {
                return SRGBConverter(primaries: .sRGB, curve: curve)
            }
            func xy(_ x: Int, _ y: Int) -> (Double, Double) { (Double(x) / 100000, Double(y) / 100000) }
            return SRGBConverter(primaries: ColourPrimaries(white: xy(c.whiteX, c.whiteY), red: xy(c.redX, c.redY),
                                                             green: xy(c.greenX, c.greenY), blue: xy(c.blueX, c.blueY)),
                                 curve: curve)
        case .sRGB, nil:
            return nil
        }
    }

    /// JPEG: the APP2 chunks joined (ICC.1 B.4), else EXIF ColorSpace and Interop index.
    public static func jpeg<Source: ByteSource>(_ metadata: JPEGMetadata, in source: Source, options: ICCOptions) -> SourceColour {
        var colour = SourceColour()
        if !metadata.iccChunks.isEmpty {
            let (bytes, warnings) = ICCChunkAssembler.assemble(
                metadata.iccChunks.map { ICCChunkLocation(offset: $0.offset, length: $0.length) }, in: source, options: options)
            colour.warnings += warnings.map(ColourWarning.profile)
            if let bytes { colour.parse(bytes, options: options) }
        }
        if colour.profile == nil, let exif = metadata.exif { colour.implied = implied(by: exif) }
        return colour
    }

    /// PNG: iCCP inflated within the smaller of the metadata budget and the profile limit,
    /// else sRGB, else gAMA with cHRM.
    static func png(_ metadata: PNGMetadata, exif: EXIFMetadata?, png options: PNGOptions, icc: ICCOptions,
                    ledger: MemoryLedger) -> SourceColour {
        var colour = SourceColour()
        if let compressed = metadata.iccProfile {
            do {
                let bytes = try compressed.inflated(limit: min(options.maxMetadataBytes, icc.maxProfileBytes), ledger: ledger)
                colour.parse(bytes, options: icc)
            } catch {
                colour.warnings.append(.compressedProfile(error))
            }
        }
        if colour.profile == nil {
            if metadata.srgbIntent != nil {
                colour.implied = .sRGB
            } else if let gamma = metadata.gamma {
                colour.implied = .pngGamma(gamma: gamma, chromaticities: metadata.chromaticities)
            } else if let exif {
                colour.implied = implied(by: exif)
            }
        }
        return colour
    }

    /// TIFF: the InterColorProfile tag of IFD0 (TIFF/EP 2.6.4, tag 34675), read from the
    /// file (the EXIF reader keeps only values up to its own limit).
    static func tiff<Source: ByteSource>(_ exif: EXIFMetadata, in source: Source, options: ICCOptions) -> SourceColour {
        var colour = SourceColour()
        if let entry = exif.ifd("IFD0")?.entry(0x8773), entry.type == 7 || entry.type == 1 {
            let count = Int(entry.count)
            if count > options.maxProfileBytes {
                colour.warnings.append(.profile(.profileTooLarge(size: count, limit: options.maxProfileBytes)))
            } else {
                do {
                    colour.parse(try source.bytes(at: entry.valueOffset, count: count), options: options)
                } catch {
                    colour.warnings.append(.unreadableProfile(error))
                }
            }
        }
        if colour.profile == nil { colour.implied = implied(by: exif) }
        return colour
    }

    /// A container that stores the profile whole (WebP's ICCP chunk), else EXIF's
    /// ColorSpace and Interop index.
    static func embedded(_ profile: [UInt8]?, exif: EXIFMetadata?, options: ICCOptions) -> SourceColour {
        var colour = SourceColour()
        if let profile {
            if profile.count > options.maxProfileBytes {
                colour.warnings.append(.profile(.profileTooLarge(size: profile.count, limit: options.maxProfileBytes)))
            } else {
                colour.parse(profile, options: options)
            }
        }
        if colour.profile == nil, let exif { colour.implied = implied(by: exif) }
        return colour
    }

    private mutating func parse(_ bytes: [UInt8], options: ICCOptions) {
        do {
            profile = try ICCProfile(bytes: bytes, options: options)
        } catch {
            warnings.append(.profile(error))
        }
    }

    /// Exif 2.32 Table 8: ColorSpace (0xA001) 1 is sRGB; 0xFFFF with the Interoperability
    /// index (InteropIFD tag 0x0001) "R03" is Adobe RGB.
    private static func implied(by exif: EXIFMetadata) -> ImpliedColourSpace? {
        let colorSpace = exif.ifd("ExifIFD")?.entry(0xA001)?.integer()
        if colorSpace == 1 { return .sRGB }
        if colorSpace == 0xFFFF, exif.ifd("InteropIFD")?.entry(0x0001)?.string == "R03" { return .adobeRGB }
        return nil
    }
}
