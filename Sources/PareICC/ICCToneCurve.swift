/// A one-dimensional transfer curve (a TRC): `curveType` (ICC.1 10.6) or
/// `parametricCurveType` (10.18). Domain and range are 0…1: device value to linear light
/// for the TRC tags of matrix/TRC profiles (F.3).
public enum ICCToneCurve: Sendable, Equatable {
    /// `curv` with no entries: y = x.
    case identity
    /// `curv` with one entry, a u8Fixed8Number exponent: y = x^gamma.
    case gamma(Double)
    /// `curv` with two or more entries, evenly spaced over 0…1, each a uInt16 of 1/65535;
    /// values between entries are interpolated linearly (10.6).
    case table([UInt16])
    /// `para`: function type 0…4 and its parameters g, a, b, c, d, e, f (Table 68).
    case parametric(function: Int, parameters: [Double])

    /// The parameters each function type takes (Table 67).
    static let parameterCounts = [1, 3, 4, 5, 7]

    /// y for x, clamped to 0…1 as ICC.1 10.6 and 10.18 require; a value the arithmetic
    /// cannot give (a negative base) reads as 0.
    public func evaluate(_ x: Double) -> Double {
        let x = min(max(x, 0), 1)
        let y: Double
        switch self {
        case .identity:
            y = x
        case let .gamma(gamma):
            y = ICCMath.pow(x, gamma)
        case let .table(entries):
            let position = x * Double(entries.count - 1)
            let index = min(Int(position), entries.count - 2)
            let fraction = position - Double(index)
            y = (Double(entries[index]) * (1 - fraction) + Double(entries[index + 1]) * fraction) / 65535
        case let .parametric(function, p):
            y = Self.parametric(function, p, x)
        }
        return y.isNaN ? 0 : min(max(y, 0), 1)
    }

    /// Table 68. Types 1 and 2 switch at x = −b/a, types 3 and 4 at x = d.
    private static func parametric(_ function: Int, _ p: [Double], _ x: Double) -> Double {
        func power(_ a: Double, _ b: Double) -> Double { ICCMath.pow(max(a * x + b, 0), p[0]) }
        switch function {
        case 0: return ICCMath.pow(x, p[0])
        case 1: return x >= -p[2] / p[1] ? power(p[1], p[2]) : 0
        case 2: return x >= -p[2] / p[1] ? power(p[1], p[2]) + p[3] : p[3]
        case 3: return x >= p[4] ? power(p[1], p[2]) : p[3] * x
        default: return x >= p[4] ? power(p[1], p[2]) + p[5] : p[3] * x + p[6]
        }
    }
}

/// The few transcendental functions colour needs, in plain Swift so that the module keeps
/// to the standard library (no C maths library on bare-metal targets). Used only to fill
/// lookup tables, a few thousand calls per image; accurate to about 1e-15 relative.
enum ICCMath {
    static let ln2 = 0.6931471805599453

    /// x^y for x ≥ 0 (0^y is 0 for y > 0, 1 for y = 0).
    static func pow(_ x: Double, _ y: Double) -> Double {
        if x <= 0 { return y > 0 ? 0 : 1 }
        if y == 0 || x == 1 { return 1 }
        return exp(y * log(x))
    }

    /// Natural logarithm for finite x > 0: x = m·2^e with m in [√½, √2), then
    /// ln m = 2·atanh(s), s = (m−1)/(m+1), |s| ≤ 0.172, by its odd series.
    static func log(_ x: Double) -> Double {
        var m = x.significand, e = Double(x.exponent)
        if m > 1.4142135623730951 {
            m /= 2
            e += 1
        }
        let s = (m - 1) / (m + 1), s2 = s * s
        var term = s, sum = 0.0, k = 1.0
        while k < 40 {
            sum += term / k
            term *= s2
            k += 2
        }
        return 2 * sum + e * ln2
    }

    /// e^t: t = k·ln2 + r with |r| ≤ ln2/2, e^r by its Taylor series, scaled by 2^k.
    /// Saturates to 0 and +∞ outside the range of Double.
    static func exp(_ t: Double) -> Double {
        if t.isNaN { return t }
        if t > 709.7 { return .infinity }
        if t < -745 { return 0 }
        let k = (t / ln2).rounded()
        let r = t - k * ln2
        var term = 1.0, sum = 1.0
        for n in 1 ... 24 {
            term *= r / Double(n)
            sum += term
        }
        return sum * pow2(Int(k))
    }

    /// 2^k by building the Double, halving twice to reach the subnormals.
    private static func pow2(_ k: Int) -> Double {
        if k < -1020 { return Double(sign: .plus, exponent: k + 60, significand: 1) / 1_152_921_504_606_846_976 }
        return Double(sign: .plus, exponent: k, significand: 1)
    }
}
