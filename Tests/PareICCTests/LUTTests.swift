import PareCore
@testable import PareICC
import Testing
import TestSupport

/// LUT profiles: ghostscript's CMYK profiles (libgs-common; skipped without them) through
/// the fast rows and the plain evaluation, against values LittleCMS gives.
@Suite struct SystemLUTTests {
    static let ghostscript = "/usr/share/color/icc/ghostscript"

    static func load(_ name: String) throws -> ICCProfile {
        try ICCProfile(bytes: try #require(FileSystem.read(ghostscript + "/" + name)))
    }

    /// CMYK ink amounts and the sRGB LittleCMS 2 gives for them (Pillow's ImageCms,
    /// relative colorimetric, 8-bit transform).
    @Test(.enabled(if: FileSystem.exists(SystemLUTTests.ghostscript + "/ps_cmyk.icc")))
    func psCMYKAgreesWithLittleCMS() throws {
        let converter = try #require(SRGBConverter(profile: try Self.load("ps_cmyk.icc")))
        #expect(converter.model == .cmyk)
        let cases: [([UInt8], [UInt8])] = [
            ([0, 0, 0, 0], [255, 255, 255]), ([0, 100, 220, 40], [254, 179, 77]), ([0, 255, 100, 100], [237, 0, 129]),
            ([40, 100, 0, 160], [138, 91, 166]), ([160, 160, 160, 100], [48, 91, 91]), ([220, 0, 40, 160], [0, 164, 126]),
        ]
        for (ink, expected) in cases {
            let fast = converter.convert(ink, format: .cmyk8)
            let plain = converter.convertExactly(ink)
            for c in 0 ..< 3 {
                #expect(abs(Int(fast[c]) - Int(plain[c])) <= 1, "\(ink): fast \(fast) plain \(plain)")
                #expect(abs(Int(plain[c]) - Int(expected[c])) <= 2, "\(ink): plain \(plain) LittleCMS \(expected)")
            }
        }
    }
}
