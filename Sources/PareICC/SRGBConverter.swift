import PareCore

/// Converts pixels from a matrix/TRC RGB colour space or a gray TRC colour space to sRGB,
/// relative colorimetric (ICC.1 F.3 and F.2, with the sRGB profile's inverse on the way
/// out):
///
/// 1. each channel through its TRC to linear light, by a lookup table per channel;
/// 2. the 3×3 matrix whose columns are the colorants, to PCS XYZ (D50), multiplied ahead
///    of time by the inverse of sRGB's own matrix: sRGB's D65 primaries adapted to D50 by
///    the linear Bradford transform (ICC.1 Annex E.3), as an sRGB profile's colorants are;
/// 3. clipped to 0…1 and encoded with the sRGB curve (IEC 61966-2-1) by a lookup table.
///
/// The colorants of a profile are already relative to the PCS white (ICC.1 F.3: `chad`
/// records how the device white was adapted to D50, and `wtpt` is D50 in v4 and in most v2
/// display profiles), so relative colorimetric needs no further adaptation on the source
/// side. Gray: `kTRC` gives the PCS Y of a neutral, which sRGB shows as R = G = B; the
/// output stays gray with the sRGB curve.
///
/// The tables and the integer arithmetic that runs them over rows are `SRGBRowConverter`;
/// `convertExactly` is the same conversion in Double without tables, the oracle they are
/// tested against.
public struct SRGBConverter: Sendable {
    public enum Model: Sendable, Equatable {
        /// Three curves and the matrix from linear RGB to linear sRGB.
        case rgb
        /// One curve, Y to sRGB gray.
        case gray
        /// CMYK through a LUT profile to sRGB (`PixelFormat.cmyk8` in, RGB out).
        case cmyk
    }

    public let model: Model
    /// A LUT profile's device-to-PCS chain; the curves and matrix are then unused, except
    /// `matrix`, which is PCS XYZ to linear sRGB.
    let lut: ICCLut?
    let curves: [ICCToneCurve]
    /// The curves give L*/100 (gray with a Lab PCS), not linear light.
    let lightness: Bool
    /// Row-major, linear source RGB to linear sRGB (identity for gray), each entry within
    /// ±`maxCoefficient` (a non-finite entry, from singular colorants, is 0).
    let matrix: [Double]
    /// No colour space's matrix to sRGB comes near this (ProPhoto's largest entry is about
    /// 2); only a damaged profile's would, and clipping it keeps the integer sums of
    /// `SRGBRowConverter` within 32 bits.
    static let maxCoefficient = 5.0
    /// The tables for 8-bit samples, made once with the converter.
    let rows8: SRGBRowConverter
    /// True when every ramp of every channel (each primary alone, and gray) comes out within
    /// one code of itself: the source is an sRGB profile (profiles of sRGB differ in their
    /// curve tables and colorant rounding by less than that), and pixels are left untouched.
    public private(set) var isIdentity = false

    /// A matrix/TRC RGB or gray TRC profile, else a GRAY, RGB or CMYK profile's LUT
    /// (`ICCProfile.deviceToPCS`); nil for Lab and other profiles.
    public init?(profile: ICCProfile) {
        if profile.isMatrixTRC, let colorants = profile.colorants, let curves = profile.rgbCurves {
            self.init(colorants: colorants, curves: curves)
        } else if profile.isGrayTRC, let curve = profile.grayCurve {
            self.init(grayCurve: curve, lightness: profile.header.connectionSpace == .lab)
        } else if let lut = profile.deviceToPCS {
            self.init(lut: lut)
        } else {
            return nil
        }
    }

    /// A LUT-based profile's chain, then the PCS (D50) to sRGB by the same matrix the
    /// matrix/TRC path ends with; nil when the chain cannot run over rows (see
    /// `LUTRowConverter.init`).
    init?(lut: ICCLut) {
        let toSRGB = Matrix3.invert(ColourPrimaries.sRGBToPCS)
        guard let rows = LUTRowConverter(lut, toSRGB: toSRGB) else { return nil }
        model = lut.inputChannels == 1 ? .gray : (lut.inputChannels == 3 ? .rgb : .cmyk)
        self.lut = lut
        curves = []
        matrix = toSRGB
        lightness = false
        rows8 = SRGBRowConverter(lut: rows, model: model)
        isIdentity = model != .cmyk && rampsUnchanged()
    }

    /// RGB with these PCS (D50-relative) colorants and tone curves.
    public init(colorants: [ICCXYZ], curves: [ICCToneCurve]) {
        let source = [colorants[0].x, colorants[1].x, colorants[2].x,
                      colorants[0].y, colorants[1].y, colorants[2].y,
                      colorants[0].z, colorants[1].z, colorants[2].z]
        self.init(model: .rgb, curves: curves, matrix: Matrix3.multiply(Matrix3.invert(ColourPrimaries.sRGBToPCS), source))
    }

    /// Gray with this tone curve. With `lightness` (a profile whose PCS is Lab) the curve
    /// gives L*/100, not Y (ICC.1 F.2), and Y follows from CIE 15 (L* = 116·f(Y) − 16).
    public init(grayCurve: ICCToneCurve, lightness: Bool = false) {
        self.init(model: .gray, curves: [grayCurve], matrix: Matrix3.identity, lightness: lightness)
    }

    /// RGB given by chromaticities (CIE xy of white, red, green, blue) and one decoding
    /// curve for the three channels: PNG cHRM with gAMA, or a colour space an EXIF tag names.
    public init(primaries: ColourPrimaries, curve: ICCToneCurve) {
        let toPCS = primaries.matrixToPCS
        let colorants = (0 ..< 3).map { ICCXYZ(toPCS[$0], toPCS[3 + $0], toPCS[6 + $0]) }
        self.init(colorants: colorants, curves: [curve, curve, curve])
    }

    private init(model: Model, curves: [ICCToneCurve], matrix: [Double], lightness: Bool = false) {
        let limit = Self.maxCoefficient
        let matrix = matrix.map { $0.isNaN ? 0 : min(max($0, -limit), limit) }
        self.model = model
        lut = nil
        self.curves = curves
        self.matrix = matrix
        self.lightness = lightness
        rows8 = SRGBRowConverter(model: model, curves: curves, lightness: lightness, matrix: matrix, sampleBits: 8)
        isIdentity = rampsUnchanged()
    }

    /// The row converter for `format`: the 8-bit tables, or 16-bit ones made now (a
    /// 4,097-entry table per curve); nil when the format does not fit the model (gray
    /// samples for an RGB space, or RGB for a gray one).
    public func rows(for format: PixelFormat) -> SRGBRowConverter? {
        guard accepts(format) else { return nil }
        if var rows = rows8.lut {
            rows.channels = format.channels
            rows.sampleBits = 8 * format.bytesPerSample
            return SRGBRowConverter(lut: rows, model: model)
        }
        var rows = format.bytesPerSample == 1 ? rows8
            : SRGBRowConverter(model: model, curves: curves, lightness: lightness, matrix: matrix, sampleBits: 16)
        rows.channels = format.channels
        return rows
    }

    /// True when pixels of `format` can be converted: RGB and RGBA (alpha untouched) for an
    /// RGB space, gray and gray+alpha for a gray one, 8 or 16 bits.
    public func accepts(_ format: PixelFormat) -> Bool {
        model == .cmyk ? format == .cmyk8 : format != .cmyk8 && format.isGray == (model == .gray)
    }

    /// The format of the rows converted from `format`: 8-bit samples, RGB for CMYK.
    func outputFormat(for format: PixelFormat) -> PixelFormat {
        format == .cmyk8 ? .rgb8 : format.eightBit
    }

    /// Each channel's ramp alone and the gray ramp, through the tables, within one code.
    private func rampsUnchanged() -> Bool {
        var ramp: [UInt8] = []
        for v in 0 ... 255 {
            let value = UInt8(v)
            ramp += model == .gray ? [value] : [value, 0, 0, 0, value, 0, 0, 0, value, value, value, value]
        }
        let out = convert(ramp, format: model == .gray ? .gray8 : .rgb8)
        for i in 0 ..< ramp.count where (Int(out[i]) - Int(ramp[i])).magnitude > 1 { return false }
        return true
    }

    /// Pixels of `format` through the tables, as `SRGBRowConverter` converts rows: 8-bit
    /// samples out whatever came in. For tests and small jobs; rows go through `rows(for:)`.
    public func convert(_ pixels: [UInt8], format: PixelFormat) -> [UInt8] {
        guard var rows = rows(for: format) else { return pixels }
        let count = pixels.count / format.bytesPerPixel
        var out = [UInt8](repeating: 0, count: count * outputFormat(for: format).bytesPerPixel)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { rows.convert(source, into: $0, width: count) }
        }
        return out
    }

    /// One RGB pixel through the tables.
    public func convert(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (UInt8, UInt8, UInt8) {
        let out = convert([r, g, b], format: .rgb8)
        return (out[0], out[1], out[2])
    }

    /// One gray pixel through the tables.
    public func convert(gray: UInt8) -> UInt8 {
        convert([gray], format: .gray8)[0]
    }

    /// Linear light from a curve's output: itself, or Y from L*/100.
    static func linear(_ value: Double, lightness: Bool) -> Double {
        guard lightness else { return value }
        let l = value * 100
        if l <= 8 { return l / 903.2962962962963 }
        let f = (l + 16) / 116
        return f * f * f
    }

    /// The oracle: the same conversion in Double, without tables, for samples of `maxValue`
    /// (255 or 65535), rounded to 8 bits.
    public func convertExactly(_ pixel: [Int], maxValue: Int = 255) -> [UInt8] {
        if let lut {
            let xyz = lut.xyz(lut.evaluate(pixel.map { Double($0) / Double(maxValue) }))
            let out = model == .gray ? [xyz[1]] : Matrix3.apply(matrix, xyz)
            return out.map { UInt8(min(255, max(0, SRGBCurve.encode(min(max($0, 0), 1)) * 255 + 0.5))) }
        }
        let linear = (0 ..< pixel.count).map {
            Self.linear(curves[min($0, curves.count - 1)].evaluate(Double(pixel[$0]) / Double(maxValue)),
                        lightness: lightness)
        }
        let out = model == .gray ? linear : Matrix3.apply(matrix, linear)
        return out.map { UInt8(min(255, max(0, SRGBCurve.encode(min(max($0, 0), 1)) * 255 + 0.5))) }
    }

    /// The oracle for 8-bit samples.
    public func convertExactly(_ pixel: [UInt8]) -> [UInt8] {
        convertExactly(pixel.map { Int($0) })
    }
}

/// The sRGB transfer function (IEC 61966-2-1 §5.2, 5.3).
public enum SRGBCurve {
    /// As an ICC parametric curve, type 3 (what sRGB profiles hold in their TRC tags).
    /// Computed, not stored: Embedded Swift 6.3 crashes emitting an enum constant with an
    /// array payload for the host target.
    public static var decodingCurve: ICCToneCurve { ICCToneCurve.parametric(
        function: 3, parameters: [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]) }

    /// Linear light to the encoded value, both 0…1.
    public static func encode(_ linear: Double) -> Double {
        linear <= 0.0031308 ? 12.92 * linear : 1.055 * ICCMath.pow(linear, 1 / 2.4) - 0.055
    }

    /// The encoded value to linear light, both 0…1: `encode`'s inverse.
    public static func decode(_ encoded: Double) -> Double {
        encoded <= 0.04045 ? encoded / 12.92 : ICCMath.pow((encoded + 0.055) / 1.055, 2.4)
    }
}

/// Chromaticities of a colour space's white and primaries (CIE 1931 xy).
public struct ColourPrimaries: Sendable, Equatable {
    public var white: (x: Double, y: Double)
    public var red: (x: Double, y: Double)
    public var green: (x: Double, y: Double)
    public var blue: (x: Double, y: Double)

    public init(white: (Double, Double), red: (Double, Double), green: (Double, Double), blue: (Double, Double)) {
        self.white = (white.0, white.1)
        self.red = (red.0, red.1)
        self.green = (green.0, green.1)
        self.blue = (blue.0, blue.1)
    }

    public static func == (a: ColourPrimaries, b: ColourPrimaries) -> Bool {
        a.white == b.white && a.red == b.red && a.green == b.green && a.blue == b.blue
    }

    /// IEC 61966-2-1 (ITU-R BT.709 primaries, D65).
    public static let sRGB = ColourPrimaries(white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.30, 0.60),
                                             blue: (0.15, 0.06))
    /// Adobe RGB (1998) §4.2: what an Exif Interoperability index "R03" names.
    public static let adobeRGB = ColourPrimaries(white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.21, 0.71),
                                                 blue: (0.15, 0.06))
    /// Adobe RGB (1998) §4.3.4: gamma 563/256.
    public static let adobeRGBCurve = ICCToneCurve.gamma(563.0 / 256)

    /// The PCS illuminant, D50 (ICC.1 7.2.16).
    static let d50 = ICCXYZ(0.9642, 1.0, 0.8249)

    /// sRGB's colorants as an sRGB profile holds them.
    static let sRGBToPCS = ColourPrimaries.sRGB.matrixToPCS

    /// Linear RGB to XYZ under this white (SMPTE RP 177 §3.3: the primaries' XYZ scaled so
    /// that RGB = 1 gives the white with Y = 1), then adapted to D50 by Bradford.
    public var matrixToPCS: [Double] {
        func xyz(_ c: (x: Double, y: Double)) -> [Double] { [c.x / c.y, 1, (1 - c.x - c.y) / c.y] }
        let r = xyz(red), g = xyz(green), b = xyz(blue), w = xyz(white)
        let primaries = [r[0], g[0], b[0], r[1], g[1], b[1], r[2], g[2], b[2]]
        let scale = Matrix3.apply(Matrix3.invert(primaries), w)
        let toXYZ = (0 ..< 9).map { primaries[$0] * scale[$0 % 3] }
        return Matrix3.multiply(Bradford.adaptation(from: ICCXYZ(w[0], w[1], w[2]), to: Self.d50), toXYZ)
    }
}

/// The linear Bradford chromatic adaptation (ICC.1:2022 Annex E.3).
enum Bradford {
    static let cone = [0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296]

    /// The matrix taking XYZ under `source` white to XYZ under `destination` white.
    static func adaptation(from source: ICCXYZ, to destination: ICCXYZ) -> [Double] {
        let s = Matrix3.apply(cone, [source.x, source.y, source.z])
        let d = Matrix3.apply(cone, [destination.x, destination.y, destination.z])
        let scale = [d[0] / s[0], 0, 0, 0, d[1] / s[1], 0, 0, 0, d[2] / s[2]]
        return Matrix3.multiply(Matrix3.invert(cone), Matrix3.multiply(scale, cone))
    }
}

/// 3×3 matrices, row-major in nine Doubles.
enum Matrix3 {
    static let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]

    static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        (0 ..< 9).map { i in
            let row = i / 3, column = i % 3
            return a[3 * row] * b[column] + a[3 * row + 1] * b[3 + column] + a[3 * row + 2] * b[6 + column]
        }
    }

    static func apply(_ m: [Double], _ v: [Double]) -> [Double] {
        (0 ..< 3).map { m[3 * $0] * v[0] + m[3 * $0 + 1] * v[1] + m[3 * $0 + 2] * v[2] }
    }

    /// By cofactors; a singular matrix gives non-finite entries, which the clipping of
    /// `SRGBConverter` turns into 0.
    static func invert(_ m: [Double]) -> [Double] {
        let c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8], c2 = m[3] * m[7] - m[4] * m[6]
        let det = m[0] * c0 + m[1] * c1 + m[2] * c2
        return [c0 / det, (m[2] * m[7] - m[1] * m[8]) / det, (m[1] * m[5] - m[2] * m[4]) / det,
                c1 / det, (m[0] * m[8] - m[2] * m[6]) / det, (m[2] * m[3] - m[0] * m[5]) / det,
                c2 / det, (m[1] * m[6] - m[0] * m[7]) / det, (m[0] * m[4] - m[1] * m[3]) / det]
    }
}
