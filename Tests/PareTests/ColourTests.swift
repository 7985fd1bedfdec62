import Foundation
import Pare
import PareICC
import ParePNG
import Testing
import TestSupport

/// Colour through the pipeline: the profile every corpus file carries against ExifTool's
/// reading (`exif/ref/<stem>.json`), the sRGB shortcut, carrying a profile into PNG, and
/// the warning for a CMYK profile.
@Suite struct ColourTests {
    static func reference(_ path: String) -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: path),
              let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return nil }
        return list.first
    }

    @Test(.requiresCorpus) func profilesAgreeWithExifTool() throws {
        let root = Corpus.path
        var checked = 0
        for name in FileSystem.list(root + "/exif/ref") where name.hasSuffix(".json") {
            guard let ref = Self.reference("\(root)/exif/ref/\(name)"),
                  let description = ref["ICC_Profile:ProfileDescription"] as? String,
                  let file = ref["SourceFile"] as? String else { continue }
            let path = file.hasPrefix("exif/") || file.hasPrefix("png/") ? "\(root)/\(file)" : file
            let source = try ImageSource(path: path)
            let profile = try #require(try source.properties().iccProfile, "\(file)")
            #expect(profile.description == description, "\(file)")
            #expect("\(profile.header.colourSpace)" == ref["ICC-header:ColorSpaceData"] as? String, "\(file)")
            #expect("\(profile.header.profileClass)" == ref["ICC-header:ProfileClass"] as? String, "\(file)")
            checked += 1
        }
        #expect(checked == 9)
    }

    /// Canon_40D carries IEC's sRGB profile: `--colour srgb` leaves every pixel as it is.
    @Test(.requiresCorpus) func sRGBSourceTakesTheShortcut() throws {
        let path = Corpus.path + "/exif/cameras/Canon_40D.jpg"
        var options = ThumbnailOptions(maxPixelSize: 64)
        let kept = try ImageSource(path: path).thumbnail(options: options)
        options.colour = .sRGB
        let converted = try ImageSource(path: path).thumbnail(options: options)
        #expect(converted.image.pixels == kept.image.pixels)
        guard case .sRGB = converted.colour else {
            Issue.record("not tagged sRGB")
            return
        }
        guard case let .profile(profile) = kept.colour else {
            Issue.record("profile not carried")
            return
        }
        #expect(profile.description == "sRGB IEC61966-2.1")
        #expect(try #require(SRGBConverter(profile: profile)).isIdentity)
    }

    /// The CMYK file's SWOP profile is not applied to its EXIF thumbnail (a YCbCr JPEG, the
    /// cheapest source) and not carried, and says so.
    @Test(.requiresCorpus) func cmykProfileWarns() throws {
        var options = ThumbnailOptions(maxPixelSize: 64)
        options.colour = .sRGB
        let thumbnail = try ImageSource(path: Corpus.path + "/exif/edge/mx-Multiple_ICC_segments.jpg").thumbnail(options: options)
        let name = try #require(thumbnail.warnings.lazy.compactMap { warning -> ProfileName? in
            if case let .colour(.notApplied(name)) = warning { return name }
            return nil
        }.first)
        #expect(name.colourSpace == .cmyk && name.lutType.map { "\($0)" } == "mft2" && name.name == "U.S. Web Coated (SWOP) v2")
        #expect(thumbnail.warnings.contains {
            "\($0)" == "colour: the CMYK profile 'U.S. Web Coated (SWOP) v2' (A2B0 mft2) cannot be applied to these pixels; not applied"
        })
        #expect(thumbnail.warnings.contains { $0 == .colour(.notCarried(name, output: .rgb8)) })
        guard case .untagged = thumbnail.colour else {
            Issue.record("a CMYK profile was attached to RGB output")
            return
        }
    }

    /// A YCCK JPEG tagged with a CMYK profile (SWOP) is converted through it in `.keep` as in
    /// `.sRGB` (an RGB output cannot carry a CMYK profile): the same pixels, tagged sRGB,
    /// no colour warning, and not the naive conversion's pixels.
    @Test(.requiresCorpus) func taggedCMYKConvertsInKeepMode() throws {
        let path = Corpus.path + "/jpeg/conformance/jd-ycck.jpg"
        var options = ThumbnailOptions(maxPixelSize: 64)
        options.embedded = .never
        let kept = try ImageSource(path: path).thumbnail(options: options)
        options.colour = .sRGB
        let converted = try ImageSource(path: path).thumbnail(options: options)
        #expect(kept.image.format == .rgb8 && kept.image.pixels == converted.image.pixels)
        #expect(!kept.warnings.contains { if case .colour = $0 { return true } else { return false } })
        guard case .sRGB = kept.colour else {
            Issue.record("a converted CMYK thumbnail is not tagged sRGB")
            return
        }
        // The naive conversion (R = (1 − C)(1 − K)…) is what an unreadable profile leaves.
        var naive = options
        naive.icc.maxProfileBytes = 16
        let plain = try ImageSource(path: path).thumbnail(options: naive)
        let difference = zip(plain.image.pixels, kept.image.pixels).map { abs(Int($0) - Int($1)) }
        #expect(difference.reduce(0, +) / difference.count >= 4)
    }

    /// An untagged CMYK JPEG takes `cmykProfile` (ghostscript's default_cmyk.icc, skipped
    /// without libgs-common); without it, the naive conversion and no tag.
    @Test(.requiresCorpus, .enabled(if: FileManager.default.fileExists(atPath: ColourTests.defaultCMYK)))
    func untaggedCMYKTakesTheGivenProfile() throws {
        let path = Corpus.path + "/jpeg/conformance/jdmoz-jpg-cmyk-2.jpg"
        var options = ThumbnailOptions(maxPixelSize: 64)
        let plain = try ImageSource(path: path).thumbnail(options: options)
        guard case .untagged = plain.colour else {
            Issue.record("an untagged CMYK thumbnail was tagged")
            return
        }
        let data = try #require(FileManager.default.contents(atPath: Self.defaultCMYK))
        options.cmykProfile = try ICCProfile(bytes: [UInt8](data))
        let converted = try ImageSource(path: path).thumbnail(options: options)
        guard case .sRGB = converted.colour else {
            Issue.record("a CMYK thumbnail converted by cmykProfile is not tagged sRGB")
            return
        }
        #expect(converted.image.pixels != plain.image.pixels)
        // The profile's paper white: ink 0 is sRGB white within a code or two.
        let converter = try #require(SRGBConverter(profile: options.cmykProfile!))
        #expect(converter.convert([0, 0, 0, 0], format: .cmyk8).allSatisfy { $0 >= 253 })
    }

    static let defaultCMYK = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

    /// The conversion runs before the resampler. A PNG whose gAMA says 1.0 (linear light):
    /// on the left, columns alternating 0 and 255; on the right, 128 everywhere. Halved, the
    /// left averages sRGB 0 and 255 (about 128; converting after resampling would give sRGB's
    /// encoding of linear 0.5, 188) and the right is sRGB's 128 in linear light, 188.
    @Test func convertsBeforeResampling() throws {
        let width = 64, height = 16
        var pixels: [UInt8] = []
        for _ in 0 ..< height {
            for x in 0 ..< width {
                let v: UInt8 = x >= width / 2 ? 128 : x % 2 == 0 ? 0 : 255
                pixels += [v, v, v]
            }
        }
        var file = try PNGEncoder().encode(Image(width: width, height: height, format: .rgb8, pixels: pixels))
        // gAMA (PNG 3rd ed. 11.3.2.2) 100000: gamma 1.0, after IHDR (8 + 25 bytes).
        let gama = Array("gAMA".utf8) + [0, 1, 0x86, 0xA0]
        file.insert(contentsOf: [0, 0, 0, 4] + gama + Self.bigEndian(Self.crc32(gama)), at: 33)
        var options = ThumbnailOptions(maxPixelSize: width / 2)
        options.filter = .triangle
        options.colour = .sRGB
        let thumbnail = try ImageSource(bytes: file).thumbnail(options: options)
        #expect(thumbnail.warnings.isEmpty)
        guard case .sRGB = thumbnail.colour else {
            Issue.record("not tagged sRGB")
            return
        }
        let row = thumbnail.image.row(thumbnail.image.height / 2)
        #expect(abs(Int(row[3 * 6]) - 128) <= 2)
        #expect(abs(Int(row[3 * 26]) - 188) <= 1)
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }

    /// PNG's CRC-32 (ISO 3309, PNG 3rd ed. 5.5), bit by bit.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0 ..< 8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    /// PNGEncoder's iCCP holds the profile byte for byte, as ParePNG reads it back.
    @Test func pngCarriesTheProfile() throws {
        let ledger = MemoryLedger()
        let image = try Image(width: 3, height: 2, format: .rgb8)
        var encoder = PNGEncoder()
        let profile = (0 ..< 5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        encoder.iccProfile = profile
        let file = try encoder.encode(image)
        let decoder = try PNGDecoder(source: MemoryByteSource(file), ledger: ledger)
        let iccp = try #require(decoder.metadata.iccProfile)
        #expect(iccp.name == "ICC profile")
        #expect(try iccp.inflated(limit: 1 << 20, ledger: ledger) == profile)
        encoder.iccProfile = nil
        encoder.srgbIntent = 1
        let tagged = try PNGDecoder(source: MemoryByteSource(try encoder.encode(image)), ledger: ledger)
        #expect(tagged.metadata.srgbIntent == 1)
    }
}

/// Hostile input through the colour path: every malformed corpus file, and every fuzzing
/// regression of the ICC parser, read and (where it decodes) thumbnailed with `--colour
/// srgb`. Errors are fine; a trap fails the run.
@Suite struct HostileColourTests {
    @Test(.requiresCorpus) func malformedCorpus() {
        let root = Corpus.path
        var thumbnails = 0, errors = 0
        for folder in ["jpeg/malformed", "png/malformed", "exif/malformed", "exif/edge"] {
            for name in FileSystem.list("\(root)/\(folder)") {
                var options = ThumbnailOptions(maxPixelSize: 32)
                options.colour = .sRGB
                do {
                    let image = try ImageSource(path: "\(root)/\(folder)/\(name)").thumbnail(options: options).image
                    #expect(max(image.width, image.height) <= 32 && min(image.width, image.height) >= 1, "\(folder)/\(name)")
                    thumbnails += 1
                } catch {
                    #expect(!error.description.isEmpty, "\(folder)/\(name)")
                    errors += 1
                }
            }
        }
        // The corpus is fixed, so is the split between thumbnails and typed errors. Two
        // damaged TIFFs of exif/malformed (mx-its-m3, mx-its-m8) give the strips before
        // their damage, with warnings, since TIFF image data is decoded.
        print("malformed corpus in sRGB: \(thumbnails) thumbnails, \(errors) typed errors")
        #expect(thumbnails == 65 && errors == 88)
    }

    /// Each input is parsed with default and with tight limits (as `Fuzz/icc.swift` does);
    /// a parsed profile's tags and curves are read and a matrix/TRC or gray one converts a
    /// row. At least one input must be there, and each must end in a profile or a typed error.
    @Test func fuzzingRegressions() throws {
        let inputs = Regressions.inputs("icc")
        try #require(!inputs.isEmpty, "no inputs in \(Regressions.folder("icc"))")
        var tight = ICCOptions()  // Fuzz/icc.swift's tight limits
        (tight.maxTags, tight.maxCurvePoints, tight.maxTextBytes, tight.maxTextRecords, tight.maxFixedMagnitude) = (16, 256, 64, 4, 4)
        for input in inputs {
            for options in [ICCOptions(), tight] {
                do {
                    let profile = try ICCProfile(bytes: input.bytes, options: options)
                    for tag in profile.tags { _ = "\(tag.signature)" }
                    for curve in profile.rgbCurves ?? [] { _ = curve.evaluate(0.5) }
                    if let converter = SRGBConverter(profile: profile) {
                        let gray = converter.model == .gray
                        #expect(converter.convertExactly(gray ? [128] : [1, 128, 255] as [UInt8]).count == (gray ? 1 : 3),
                                "\(input.name)")
                    }
                } catch {
                    #expect(error.description.hasPrefix("ICC"), "\(input.name): \(error)")
                }
            }
        }
    }
}
