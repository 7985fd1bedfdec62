import PareCore
@testable import PareICC
import Testing
import TestSupport

/// The parser on built profiles (every rule, one broken at a time) and on every profile
/// Debian's icc-profiles-free and colord-data install (skipped without them).
@Suite struct ProfileTests {
    static let systemFolder = "/usr/share/color/icc"

    @Test func readsABuiltProfile() throws {
        let bytes = ProfileBuilder.sRGBLike().build()
        let profile = try ICCProfile(bytes: bytes)
        #expect(profile.header.version == "4.3.0")
        #expect("\(profile.header.colourSpace)" == "RGB ")
        #expect("\(profile.header.profileClass)" == "mntr")
        #expect(profile.description == "test sRGB")
        #expect(profile.tags.count == 8)
        #expect(profile.isMatrixTRC)
        #expect(abs(profile.colorants![1].y - 0.7169) < 1e-4)
        #expect(abs(profile.whitePoint!.z - 0.8249) < 1e-4)
        #expect(profile.bytes == bytes)
    }

    @Test func mlucPrefersEnglish() throws {
        var builder = ProfileBuilder.sRGBLike()
        builder.tags[0] = ("desc", ProfileBuilder.mluc([("deDE", "Deutsch"), ("enGB", "British"), ("enUS", "American")]))
        #expect(try ICCProfile(bytes: builder.build()).description == "American")
        builder.tags[0] = ("desc", ProfileBuilder.mluc([("deDE", "Deutsch"), ("enGB", "British")]))
        #expect(try ICCProfile(bytes: builder.build()).description == "British")
        builder.tags[0] = ("desc", ProfileBuilder.desc("version 2 text"))
        #expect(try ICCProfile(bytes: builder.build()).description == "version 2 text")
    }

    @Test func sharedTagDataIsAllowed() throws {
        let bytes = ProfileBuilder.sRGBLike().build { entries in
            var e = entries
            e[6] = ("gTRC", e[5].1, e[5].2)
            e[7] = ("bTRC", e[5].1, e[5].2)
            return e
        }
        #expect(try ICCProfile(bytes: bytes).rgbCurves?.count == 3)
    }

    func error(_ bytes: [UInt8], options: ICCOptions = ICCOptions()) -> ICCError? {
        do {
            _ = try ICCProfile(bytes: bytes, options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test func hostileHeadersAndTables() {
        let good = ProfileBuilder.sRGBLike().build()
        #expect(error(Array(good[0 ..< 100])) == .truncated(size: 100))
        var unsigned = good
        unsigned[36] = 0x41
        #expect(error(unsigned) == .badSignature)
        #expect(error(Array(good.dropLast(4))) == .sizeMismatch(declared: good.count, actual: good.count - 4))
        var small = ICCOptions()
        small.maxProfileBytes = 300
        #expect(error(good, options: small) == .profileTooLarge(size: good.count, limit: 300))
        small = ICCOptions()
        small.maxTags = 4
        #expect(error(good, options: small) == .tooManyTags(count: 8, limit: 4))
        let outside = ProfileBuilder.sRGBLike().build { entries in
            var e = entries
            e[2] = ("wtpt", 0x7FFF_FFF0, 20)
            return e
        }
        #expect(error(outside) == .tagOutsideProfile(tag: "wtpt", offset: 0x7FFF_FFF0, size: 20, profileSize: outside.count))
        let intoTable = ProfileBuilder.sRGBLike().build { entries in
            var e = entries
            e[2] = ("wtpt", 40, 20)
            return e
        }
        #expect(error(intoTable) == .tagOutsideProfile(tag: "wtpt", offset: 40, size: 20, profileSize: intoTable.count))
        var overlapAt = 0
        let overlapping = ProfileBuilder.sRGBLike().build { entries in
            var e = entries
            overlapAt = e[1].1 + 8
            e[2] = ("rXYZ", overlapAt, 20)
            return e
        }
        #expect(error(overlapping) == .overlappingTags(first: "wtpt", second: "rXYZ", offset: overlapAt))
    }

    @Test func hostileTags() {
        func with(_ signature: String, _ data: [UInt8], options: ICCOptions = ICCOptions()) -> ICCError? {
            var builder = ProfileBuilder.sRGBLike()
            let index = builder.tags.firstIndex { $0.0 == signature }!
            builder.tags[index] = (signature, data)
            return error(builder.build(), options: options)
        }
        // A curve that claims four billion points.
        let huge = Array("curv".utf8) + [0, 0, 0, 0] + ProfileBuilder.be32(0xFFFF_FFFF)
        guard case let .countTooLarge(tag, _, count, limit)? = with("rTRC", huge) else {
            Issue.record("huge curve count accepted")
            return
        }
        #expect(tag == "rTRC" && count == 0xFFFF_FFFF && limit == 65536)
        // A curve whose points run past its tag.
        guard case .tagTooShort(tag: "gTRC", _, needed: 12 + 2 * 300, size: 16)? =
            with("gTRC", Array("curv".utf8) + [0, 0, 0, 0] + ProfileBuilder.be32(300) + [0, 0, 0, 0]) else {
            Issue.record("short curve accepted")
            return
        }
        // Colorants of 30,000: representable as s15Fixed16, absurd as colour.
        guard case .absurdValue(tag: "rXYZ", _, raw: Int32(30000 * 65536))? = with("rXYZ", ProfileBuilder.xyz(30000, 0, 0)) else {
            Issue.record("absurd colorant accepted")
            return
        }
        #expect(with("bTRC", ProfileBuilder.para(5, [1])).map { "\($0)" }?.contains("parametric function type 5") == true)
        guard case .absurdValue(tag: "rTRC", _, _)? = with("rTRC", ProfileBuilder.para(1, [2.2, 0, 0])) else {
            Issue.record("para with a = 0 accepted")
            return
        }
        guard case .absurdValue(tag: "rTRC", _, _)? = with("rTRC", ProfileBuilder.para(0, [-1])) else {
            Issue.record("negative gamma accepted")
            return
        }
        guard case .wrongTagType(tag: "wtpt", type: "curv", _)? = with("wtpt", ProfileBuilder.gammaCurve(2.2)) else {
            Issue.record("a curve as white point accepted")
            return
        }
        var options = ICCOptions()
        options.maxTextBytes = 4
        guard case .countTooLarge(tag: "desc", _, _, limit: 4)? = with("desc", ProfileBuilder.desc("long text"), options: options) else {
            Issue.record("long description accepted")
            return
        }
    }

    @Test func toneCurves() {
        let sRGB = SRGBCurve.decodingCurve
        for v in stride(from: 0.0, through: 1.0, by: 1.0 / 64) {
            let expected = v <= 0.04045 ? v / 12.92 : ICCMath.pow((v + 0.055) / 1.055, 2.4)
            #expect(abs(sRGB.evaluate(v) - expected) < 1e-12)
            #expect(abs(SRGBCurve.encode(sRGB.evaluate(v)) - v) < 1e-9)
        }
        #expect(ICCToneCurve.table([0, 65535]).evaluate(0.25) == 0.25)
        #expect(abs(ICCToneCurve.table([0, 1000, 65535]).evaluate(0.25) - 500.0 / 65535) < 1e-12)
        #expect(abs(ICCToneCurve.gamma(2).evaluate(0.5) - 0.25) < 1e-15)
        #expect(ICCToneCurve.identity.evaluate(2) == 1)
        // Type 4 with its linear segment below d (sRGB written as type 4, e = f = 0).
        let four = ICCToneCurve.parametric(function: 4, parameters: [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045, 0, 0])
        #expect(abs(four.evaluate(0.02) - 0.02 / 12.92) < 1e-15)
        // Type 2 below −b/a gives c.
        #expect(ICCToneCurve.parametric(function: 2, parameters: [1, 1, -0.5, 0.25]).evaluate(0.25) == 0.25)
    }

    @Test func mathAgainstKnownValues() {
        #expect(abs(ICCMath.pow(2, 0.5) - 1.4142135623730951) < 1e-15)
        #expect(abs(ICCMath.pow(0.5, 2.4) - 0.18946457081379978) < 1e-15)
        #expect(abs(ICCMath.log(10) - 2.302585092994046) < 1e-14)
        #expect(abs(ICCMath.exp(-3) - 0.049787068367863944) < 1e-16)
        #expect(ICCMath.pow(0, 2.2) == 0 && ICCMath.pow(0, 0) == 1)
        #expect(ICCMath.exp(1000) == .infinity && ICCMath.exp(-1000) == 0)
    }

    /// Every profile of icc-profiles-free and colord-data: RGB display profiles are
    /// matrix/TRC, gray ones gray TRC, the Lab and named-colour ones neither. Run when both
    /// packages are installed (other packages, ghostscript's among them, also put profiles
    /// under the folder).
    @Test(.enabled(if: FileSystem.exists(ProfileTests.systemFolder + "/ITULab.icc")
                       && FileSystem.exists(ProfileTests.systemFolder + "/colord/AdobeRGB1998.icc")))
    func systemProfiles() throws {
        var paths = FileSystem.list(Self.systemFolder).map { "\(Self.systemFolder)/\($0)" }
        paths += FileSystem.list(Self.systemFolder + "/colord").map { "\(Self.systemFolder)/colord/\($0)" }
        var read = 0
        for path in paths where path.lowercased().hasSuffix(".icc") || path.lowercased().hasSuffix(".icm") {
            let profile = try ICCProfile(bytes: FileSystem.read(path)!)
            read += 1
            let space = "\(profile.header.colourSpace)"
            #expect(space != "RGB " || profile.isMatrixTRC, "\(path)")
            #expect(space != "GRAY" || profile.isGrayTRC, "\(path)")
            #expect(profile.description?.isEmpty == false, "\(path)")
        }
        #expect(read >= 30)
        let adobe = try ICCProfile(bytes: FileSystem.read(Self.systemFolder + "/colord/AdobeRGB1998.icc")!)
        #expect(adobe.description == "Compatible with Adobe RGB (1998)")
        #expect(abs(adobe.colorants![0].x - 0.6097) < 1e-3, "\(adobe.colorants![0])")
        #expect(abs(adobe.colorants![1].y - 0.6274) < 2e-3, "\(adobe.colorants![1])")
        #expect(adobe.chromaticAdaptation?.count == 9)
        let lab = try ICCProfile(bytes: FileSystem.read(Self.systemFolder + "/ITULab.icc")!)
        #expect("\(lab.aToB0Type!)" == "mft2" || "\(lab.aToB0Type!)" == "mAB ")
    }
}
