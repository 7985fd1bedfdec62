import PareCore
@testable import PareICC
import Testing
import TestSupport

/// LUT-based profiles (ICC.1 10.8 lut16Type, 10.9 lut8Type, 10.12 lutAToBType): each type
/// read from a built profile and evaluated at points worked out by hand, the fast rows
/// (`LUTRowConverter`) against the plain evaluation, and malformed tags.
@Suite struct LUTTests {
    /// An affine function of the inputs, which every interpolation of its grid values
    /// reproduces exactly: a wrong stride or axis order shows at once.
    static func affine(_ x: [Double]) -> [Double] {
        let weights: [[Double]] = [[0.30, 0.15, 0.10, 0.05], [0.05, 0.35, 0.10, 0.20], [0.20, 0.05, 0.30, 0.10]]
        return (0 ..< 3).map { o in 0.1 + (0 ..< x.count).reduce(0.0) { $0 + weights[o][$1] * x[$1] } }
    }

    static func affineNode(points: Int) -> ([Int]) -> [Double] {
        { indices in affine(indices.map { Double($0) / Double(points - 1) }) }
    }

    @Test func lut16CMYKWithXYZ() throws {
        let lut = ProfileBuilder.lut16(inputs: 4, points: 3, node: Self.affineNode(points: 3))
        let profile = try ICCProfile(bytes: ProfileBuilder.lutProfile("CMYK", pcs: "XYZ ", lut).build())
        let chain = try #require(profile.deviceToPCS)
        #expect(chain.type == ICCSignature("mft2") && chain.inputChannels == 4 && chain.pcs == .xyz)
        for point in [[0.0, 0, 0, 0], [1.0, 1, 1, 1], [0.2, 0.7, 0.4, 0.9], [0.9, 0.1, 0.55, 0.3]] {
            let value = chain.evaluate(point), expected = Self.affine(point)
            for o in 0 ..< 3 { #expect(abs(value[o] - expected[o]) < 1e-4, "\(point)") }
        }
        // u1Fixed15 (ICC.1 6.3.4.3): 0x8000 is 1.0, so the normalised 0.5 is XYZ 0.50001.
        #expect(abs(chain.xyz([0.5, 0.5, 0.5])[1] - 32767.5 / 32768) < 1e-9)
    }

    /// lut16 with Lab keeps the v2 encoding in every version (10.8): L* 100 is 0xFF00.
    @Test func lut16LabIsTheLegacyEncoding() throws {
        let white = [Double(0xFF00) / 65535, Double(0x8000) / 65535, Double(0x8000) / 65535]
        let lut = ProfileBuilder.lut16(inputs: 3, points: 2) { _ in white }
        let profile = try ICCProfile(bytes: ProfileBuilder.lutProfile("RGB ", pcs: "Lab ", lut).build())
        let chain = try #require(profile.deviceToPCS)
        #expect(chain.pcs == .labV2)
        let xyz = chain.xyz(chain.evaluate([0.3, 0.6, 0.9]))
        #expect(abs(xyz[0] - 0.9642) < 1e-4 && abs(xyz[1] - 1) < 1e-4 && abs(xyz[2] - 0.8249) < 1e-4)
        let converter = try #require(SRGBConverter(profile: profile))
        #expect(converter.convertExactly([10, 200, 30]) == [255, 255, 255])
        #expect(converter.convert(10, 200, 30) == (255, 255, 255))
    }

    /// lut8 gray to Lab: a squaring input table and a CLUT of L* = 100·x: L* 25 at x = 0.5.
    @Test func lut8GrayWithLab() throws {
        let lut = ProfileBuilder.lut8(inputs: 1, points: 5, table: { UInt8((Double($0 * $0) / 255).rounded()) }) {
            [Double($0[0]) / 4, 128.0 / 255, 128.0 / 255]
        }
        let profile = try ICCProfile(bytes: ProfileBuilder.lutProfile("GRAY", pcs: "Lab ", lut).build())
        let chain = try #require(profile.deviceToPCS)
        #expect(chain.type == ICCSignature("mft1") && chain.pcs == .lab && chain.inputChannels == 1)
        let pcs = chain.evaluate([128.0 / 255])
        #expect(abs(pcs[0] * 100 - 25.2) < 0.3)
        // L* 25.2 is Y 0.0452, sRGB code 60 (IEC 61966-2-1).
        let converter = try #require(SRGBConverter(profile: profile))
        #expect(converter.model == .gray)
        #expect(converter.convertExactly([128]) == [60])
        #expect(abs(Int(converter.convert(gray: 128)) - 60) <= 1)
    }

    /// lutAToB with every element, in 10.12.1's order: A (x²), CLUT (the affine grid),
    /// M (x^0.5), matrix (½ on the diagonal, offsets 0.1) and B (x²).
    @Test func lutAToBAppliesItsElementsInOrder() throws {
        let lut = ProfileBuilder.lutAToB(inputs: 3, points: 3, a: ProfileBuilder.para(0, [2]), m: ProfileBuilder.para(0, [0.5]),
                                         b: ProfileBuilder.para(0, [2]), matrix: [0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5, 0.1, 0.1, 0.1],
                                         node: Self.affineNode(points: 3))
        let profile = try ICCProfile(bytes: ProfileBuilder.lutProfile("RGB ", pcs: "Lab ", lut).build())
        let chain = try #require(profile.deviceToPCS)
        #expect(chain.type == ICCSignature("mAB ") && chain.pcs == .lab)
        let input = [0.6, 0.2, 0.9]
        let clut = Self.affine(input.map { $0 * $0 })
        let expected = clut.map { v -> Double in
            let afterMatrix = 0.5 * v.squareRoot() + 0.1
            return afterMatrix * afterMatrix
        }
        let value = chain.evaluate(input)
        for o in 0 ..< 3 { #expect(abs(value[o] - expected[o]) < 1e-4) }
    }

    /// lutAToB gray to XYZ, the form an XYB or a gray v4 profile takes: A curve and CLUT
    /// only, B curves the identity.
    @Test func lutAToBGrayWithXYZ() throws {
        let identity = ProfileBuilder.para(0, [1])
        var lut = ProfileBuilder.lutAToB(inputs: 1, points: 9, a: ProfileBuilder.para(0, [2.2]), m: identity,
                                         b: identity, matrix: [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]) {
            let y = Double($0[0]) / 8 * 32768 / 65535
            return [0.9642 * y, y, 0.8249 * y]
        }
        // No M curves and no matrix: offsets 16 and 20 of the tag become 0.
        for i in 16 ..< 24 { lut[i] = 0 }
        let profile = try ICCProfile(bytes: ProfileBuilder.lutProfile("GRAY", pcs: "XYZ ", lut).build())
        let converter = try #require(SRGBConverter(profile: profile))
        // Y = (128/255)^2.2 = 0.2195, which sRGB's curve (not a pure 2.2) encodes as 129.
        #expect(converter.convertExactly([128]) == [129])
        #expect(converter.convert(gray: 128) == 129)
    }

    /// The rows with the chain at every pixel (CMYK's resampled grid turned off), as the
    /// fast path for RGB and gray and the grid's oracle for CMYK.
    static func perPixel(_ converter: SRGBConverter, _ pixels: [UInt8], format: PixelFormat) -> [UInt8] {
        guard var rows = converter.rows(for: format) else { return pixels }
        rows.lut?.exactCMYK = true
        let count = pixels.count / format.bytesPerPixel
        var out = [UInt8](repeating: 0, count: count * converter.outputFormat(for: format).bytesPerPixel)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { rows.convert(source, into: $0, width: count) }
        }
        return out
    }

    /// The per-pixel rows against the plain evaluation over random pixels, for each type and
    /// PCS: within one code.
    @Test func fastRowsAgreeWithThePlainEvaluation() throws {
        let curved: (Double) -> Double = { ICCMath.pow($0, 1.8) }
        let labNode: ([Int], Int) -> [Double] = { indices, points in
            let x = indices.map { Double($0) / Double(points - 1) }
            let l = 0.15 + 0.8 * (x.reduce(0, +) / Double(x.count)), a = 0.35 + 0.3 * x[0], b = 0.6 - 0.25 * x[x.count - 1]
            return [l, a, b]
        }
        let profiles: [(String, String, [UInt8], PixelFormat)] = [
            ("CMYK", "Lab ", ProfileBuilder.lut16(inputs: 4, points: 9, inputEntries: 256, table: curved) { labNode($0, 9) }, .cmyk8),
            ("CMYK", "XYZ ", ProfileBuilder.lut16(inputs: 4, points: 5, node: Self.affineNode(points: 5)), .cmyk8),
            ("RGB ", "Lab ", ProfileBuilder.lut8(inputs: 3, points: 17) { labNode($0, 17) }, .rgb8),
            ("RGB ", "Lab ", ProfileBuilder.lutAToB(inputs: 3, points: 9, a: ProfileBuilder.para(0, [2.2]),
                                                    m: ProfileBuilder.para(0, [1.1]), b: ProfileBuilder.para(0, [0.9]),
                                                    matrix: [0.9, 0.05, 0, 0, 0.95, 0.02, 0.01, 0, 0.97, 0.02, 0.01, 0.01]) {
                labNode($0, 9)
            }, .rgb8),
            ("GRAY", "Lab ", ProfileBuilder.lut16(inputs: 1, points: 33, inputEntries: 1024, table: curved) { labNode($0, 33) }, .gray8),
        ]
        var rng = SplitMix(state: 0x1CC)
        for (space, pcs, lut, format) in profiles {
            let converter = try #require(SRGBConverter(profile: try ICCProfile(bytes: ProfileBuilder.lutProfile(space, pcs: pcs, lut).build())))
            var pixels: [UInt8] = []
            for _ in 0 ..< 3000 * format.channels { pixels.append(UInt8(truncatingIfNeeded: rng.next())) }
            let fast = Self.perPixel(converter, pixels, format: format)
            let out = converter.outputFormat(for: format).channels
            var worst = 0
            for p in 0 ..< 3000 {
                let pixel = Array(pixels[p * format.channels ..< (p + 1) * format.channels])
                let plain = converter.convertExactly(pixel)
                for c in 0 ..< out { worst = max(worst, abs(Int(fast[p * out + c]) - Int(plain[c]))) }
            }
            #expect(worst <= 1, "\(space) \(pcs) \(lut[0 ..< 4].map { Character(Unicode.Scalar($0)) })")
        }
    }

    func error(_ space: String, _ lut: [UInt8], pcs: String = "XYZ ", options: ICCOptions = ICCOptions()) -> ICCError? {
        do {
            _ = try ICCProfile(bytes: ProfileBuilder.lutProfile(space, pcs: pcs, lut).build(), options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test func malformedLUTsAreTypedErrors() throws {
        let node = Self.affineNode(points: 2)
        let tagStart = 128 + 4 + 3 * 12 + ProfileBuilder.desc("LUT test").count + 20
        // Three inputs in a CMYK profile.
        #expect(error("CMYK", ProfileBuilder.lut16(inputs: 3, points: 2, node: node))
            == .malformedLUT(tag: "A2B0", offset: tagStart + 8, problem: .channels(inputs: 3, outputs: 3)))
        // One grid point.
        #expect(error("RGB ", ProfileBuilder.lut16(inputs: 3, points: 1, node: node))
            == .malformedLUT(tag: "A2B0", offset: tagStart + 10, problem: .gridPoints(1)))
        // A lut16 table of one entry.
        var oneEntry = ProfileBuilder.lut16(inputs: 3, points: 2, node: node)
        oneEntry[49] = 1
        #expect(error("RGB ", oneEntry) == .malformedLUT(tag: "A2B0", offset: tagStart + 48, problem: .tableEntries(1)))
        // The CLUT cut short.
        let whole = ProfileBuilder.lut16(inputs: 3, points: 2, node: node)
        guard case .tagTooShort(tag: "A2B0", _, _, _)? = error("RGB ", Array(whole.dropLast(20))) else {
            Issue.record("short lut16 accepted")
            return
        }
        let identity = ProfileBuilder.para(0, [1])
        let mAB = ProfileBuilder.lutAToB(inputs: 3, points: 2, a: identity, m: identity, b: identity,
                                         matrix: [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], node: node)
        #expect(error("RGB ", mAB) == nil)
        // A CLUT precision of 3 bytes.
        var precision = mAB
        let clutAt = Int(ProfileBuilder.readBE32(mAB, 24))
        precision[clutAt + 16] = 3
        #expect(error("RGB ", precision) == .malformedLUT(tag: "A2B0", offset: tagStart + clutAt + 16, problem: .precision(3)))
        // A CLUT without A curves (10.12.1 allows none such).
        var noA = mAB
        for i in 28 ..< 32 { noA[i] = 0 }
        #expect(error("RGB ", noA) == .malformedLUT(tag: "A2B0", offset: tagStart + 12, problem: .elements))
        // An offset off the four-byte grid.
        var unaligned = mAB
        unaligned[15] += 2
        #expect(error("RGB ", unaligned)
            == .malformedLUT(tag: "A2B0", offset: tagStart + 12, problem: .elementOffset(Int(ProfileBuilder.readBE32(mAB, 12)) + 2)))
        // The description names the tag, the problem and the byte.
        #expect("\(error("RGB ", precision)!)" == "ICC: tag 'A2B0': CLUT precision of 3 bytes (1 or 2 allowed) at byte \(tagStart + clutAt + 16)")
    }

    /// A2B1 (colorimetric) is the one relative colorimetric uses when present.
    @Test func prefersAToB1() throws {
        var builder = ProfileBuilder.lutProfile("RGB ", pcs: "XYZ ", ProfileBuilder.lut8(inputs: 3, points: 2) { _ in [0, 0, 0] })
        builder.tags.append(("A2B1", ProfileBuilder.lut16(inputs: 3, points: 2) { _ in [0.5, 0.5, 0.5] }))
        let chain = try #require(try ICCProfile(bytes: builder.build()).deviceToPCS)
        #expect(chain.type == ICCSignature("mft2"))
    }
}

/// ghostscript's CMYK profiles (libgs-common; skipped without them) through the fast rows
/// and the plain evaluation, against values LittleCMS gives.
@Suite struct SystemLUTTests {
    static let ghostscript = "/usr/share/color/icc/ghostscript"

    static func load(_ name: String) throws -> ICCProfile {
        try ICCProfile(bytes: try #require(FileSystem.read(ghostscript + "/" + name)))
    }

    /// CMYK ink amounts and the sRGB LittleCMS gives for them (Pillow's ImageCms, relative
    /// colorimetric, its default 8-bit transform; away from the deep shadows, where its
    /// 17-point precalculation departs from the profile's 5-point grid).
    @Test(.enabled(if: FileSystem.exists(SystemLUTTests.ghostscript + "/ps_cmyk.icc")))
    func psCMYKAgreesWithLittleCMS() throws {
        let converter = try #require(SRGBConverter(profile: try Self.load("ps_cmyk.icc")))
        #expect(converter.model == .cmyk)
        let cases: [([UInt8], [UInt8])] = [
            ([0, 0, 0, 0], [255, 255, 255]), ([0, 100, 220, 40], [254, 179, 77]), ([0, 255, 100, 100], [237, 0, 129]),
            ([40, 100, 0, 160], [138, 91, 166]), ([160, 160, 160, 100], [48, 91, 91]), ([220, 0, 40, 160], [0, 164, 126]),
        ]
        for (ink, expected) in cases {
            let grid = converter.convert(ink, format: .cmyk8)
            let perPixel = LUTTests.perPixel(converter, ink, format: .cmyk8)
            let plain = converter.convertExactly(ink)
            for c in 0 ..< 3 {
                #expect(abs(Int(perPixel[c]) - Int(plain[c])) <= 1, "\(ink): per pixel \(perPixel) plain \(plain)")
                #expect(abs(Int(plain[c]) - Int(expected[c])) <= 2, "\(ink): plain \(plain) LittleCMS \(expected)")
                #expect(abs(Int(grid[c]) - Int(expected[c])) <= 1, "\(ink): grid \(grid) LittleCMS \(expected)")
            }
        }
    }

    /// The resampled CMYK grid against the chain at every pixel, over random inks through
    /// ghostscript's default_cmyk.icc (a smooth 9-point lut16): how far 17 points per ink
    /// depart from the profile's own evaluation. Most inks land within a code; the largest
    /// departures (up to 14 codes) are in the deepest shadows, where sRGB's curve is
    /// steepest and a straight line between two nodes misses it most.
    @Test(.enabled(if: FileSystem.exists(SystemLUTTests.ghostscript + "/default_cmyk.icc")))
    func gridStaysNearTheChainOnASmoothProfile() throws {
        let converter = try #require(SRGBConverter(profile: try Self.load("default_cmyk.icc")))
        var rng = SplitMix(state: 0xC3)
        var pixels: [UInt8] = []
        for _ in 0 ..< 4 * 20000 { pixels.append(UInt8(truncatingIfNeeded: rng.next())) }
        let grid = converter.convert(pixels, format: .cmyk8)
        let perPixel = LUTTests.perPixel(converter, pixels, format: .cmyk8)
        var worst = 0, total = 0
        for i in 0 ..< grid.count {
            let difference = abs(Int(grid[i]) - Int(perPixel[i]))
            worst = max(worst, difference)
            total += difference
        }
        let mean = Double(total) / Double(grid.count)
        print("default_cmyk.icc, 20,000 random inks: grid against per pixel, max \(worst), mean \(mean)")
        #expect(worst <= 16)
        #expect(mean < 0.25)
    }
}
