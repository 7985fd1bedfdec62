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

    /// The CMYK file's SWOP profile is not applied and not carried, and says so.
    @Test(.requiresCorpus) func cmykProfileWarns() throws {
        var options = ThumbnailOptions(maxPixelSize: 64)
        options.colour = .sRGB
        let thumbnail = try ImageSource(path: Corpus.path + "/exif/edge/mx-Multiple_ICC_segments.jpg").thumbnail(options: options)
        #expect(thumbnail.warnings.contains {
            $0 == .colour("the CMYK profile 'U.S. Web Coated (SWOP) v2' (A2B0 mft2) is not a matrix/TRC profile; not applied")
        })
        guard case .untagged = thumbnail.colour else {
            Issue.record("a CMYK profile was attached to RGB output")
            return
        }
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
        var files = 0
        for folder in ["jpeg/malformed", "png/malformed", "exif/malformed", "exif/edge"] {
            for name in FileSystem.list("\(root)/\(folder)") {
                var options = ThumbnailOptions(maxPixelSize: 32)
                options.colour = .sRGB
                _ = try? ImageSource(path: "\(root)/\(folder)/\(name)").thumbnail(options: options)
                files += 1
            }
        }
        #expect(files > 50)
    }

    @Test func fuzzingRegressions() {
        let folder = Corpus.fixtures + "/regressions/icc"
        var replayed = 0
        for name in FileSystem.list(folder) where !name.hasSuffix(".md") {
            guard let bytes = FileSystem.read("\(folder)/\(name)") else { continue }
            if let profile = try? ICCProfile(bytes: bytes), let converter = SRGBConverter(profile: profile) {
                _ = converter.convertExactly([1, 2, 3])
            }
            replayed += 1
        }
        #expect(replayed == FileSystem.list(folder).filter { !$0.hasSuffix(".md") }.count)
    }
}
