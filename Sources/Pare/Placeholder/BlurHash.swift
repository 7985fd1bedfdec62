import PareCore

/// BlurHash (Wolt, 2017): a picture as a short base-83 string of a few cosine components of
/// its linear-light colours.
///
/// Each component (x, y) is the mean over the pixels of cos(π·x·i/W)·cos(π·y·j/H) times the
/// pixel's linear RGB (doubled for the AC components); the DC term is stored as an sRGB colour
/// in 4 base-83 digits, each AC component's channels as sign·√|v/max| quantised to 19 levels
/// in 2 digits, after a digit for the component counts and one for the largest AC magnitude.
/// The arithmetic follows the reference C encoder's, single-precision sums included, so that
/// the same pixels give the same string.
public enum BlurHash {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)

    /// The hash of `width`×`height` RGB pixels (8 bits each) with `x`×`y` components (1…9
    /// each; 4×3 is the usual choice); nil for components out of range or short pixels.
    public static func encode(width: Int, height: Int, rgb: [UInt8], x xComponents: Int = 4,
                              y yComponents: Int = 3) -> String? {
        guard (1 ... 9).contains(xComponents), (1 ... 9).contains(yComponents), width > 0, height > 0,
              rgb.count >= width * height * 3 else { return nil }
        var linear = [Float](repeating: 0, count: 256)
        for v in 0 ..< 256 { linear[v] = sRGBToLinear(v) }
        var factors: [(Float, Float, Float)] = []
        for yc in 0 ..< yComponents {
            for xc in 0 ..< xComponents {
                var r: Float = 0, g: Float = 0, b: Float = 0
                let normalisation: Float = xc == 0 && yc == 0 ? 1 : 2
                for y in 0 ..< height {
                    let cy = Maths.cos(Float(Double.pi * Double(yc) * Double(y) / Double(height)))
                    for x in 0 ..< width {
                        let basis = Maths.cos(Float(Double.pi * Double(xc) * Double(x) / Double(width))) * cy
                        let i = 3 * (x + y * width)
                        r += basis * linear[Int(rgb[i])]
                        g += basis * linear[Int(rgb[i + 1])]
                        b += basis * linear[Int(rgb[i + 2])]
                    }
                }
                let scale = normalisation / Float(width * height)
                factors.append((r * scale, g * scale, b * scale))
            }
        }
        var hash: [UInt8] = []
        func append(_ value: Int, digits: Int) {
            var divisor = 1
            for _ in 1 ..< digits { divisor *= 83 }
            for _ in 0 ..< digits {
                hash.append(alphabet[(value / divisor) % 83])
                divisor /= 83
            }
        }
        append((xComponents - 1) + (yComponents - 1) * 9, digits: 1)
        let ac = factors.dropFirst()
        var maximum: Float = 1
        if ac.isEmpty {
            append(0, digits: 1)
        } else {
            var actual: Float = 0
            for f in ac { actual = max(max(max(abs(f.0), actual), abs(f.1)), abs(f.2)) }
            let quantised = Int(max(0, min(82, (actual * 166 - 0.5).rounded(.down))))
            maximum = (Float(quantised) + 1) / 166
            append(quantised, digits: 1)
        }
        let dc = factors[0]
        append(linearToSRGB(dc.0) << 16 + linearToSRGB(dc.1) << 8 + linearToSRGB(dc.2), digits: 4)
        for f in ac {
            func quantise(_ v: Float) -> Int { Int(max(0, min(18, (signPow(v / maximum, 0.5) * 9 + 9.5).rounded(.down)))) }
            append(quantise(f.0) * 19 * 19 + quantise(f.1) * 19 + quantise(f.2), digits: 2)
        }
        return String(decoding: hash, as: UTF8.self)
    }

    /// The picture a hash stands for at `width`×`height`, RGB8; nil for a malformed hash.
    /// `punch` scales the AC components (1 is the picture as encoded).
    public static func decode(_ text: String, width: Int, height: Int, punch: Float = 1) -> Image? {
        let hash = Array(text.utf8)
        guard width > 0, height > 0, hash.count >= 6 else { return nil }
        func value(_ range: Range<Int>) -> Int? {
            var v = 0
            for c in hash[range] {
                guard let digit = alphabet.firstIndex(of: c) else { return nil }
                v = v * 83 + digit
            }
            return v
        }
        guard let size = value(0 ..< 1), let quantisedMaximum = value(1 ..< 2), let dcValue = value(2 ..< 6) else { return nil }
        let ny = size / 9 + 1, nx = size % 9 + 1
        guard hash.count == 4 + 2 * nx * ny else { return nil }
        let maximum = (Float(quantisedMaximum) + 1) / 166 * punch
        var colours: [(Float, Float, Float)] = [(sRGBToLinear(dcValue >> 16), sRGBToLinear(dcValue >> 8 & 255),
                                                 sRGBToLinear(dcValue & 255))]
        for i in 1 ..< nx * ny {
            guard let v = value(4 + i * 2 ..< 6 + i * 2) else { return nil }
            func channel(_ q: Int) -> Float { signPow((Float(q) - 9) / 9, 2) * maximum }
            colours.append((channel(v / (19 * 19)), channel(v / 19 % 19), channel(v % 19)))
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0 ..< height {
            for x in 0 ..< width {
                var r: Float = 0, g: Float = 0, b: Float = 0
                for j in 0 ..< ny {
                    for i in 0 ..< nx {
                        let basis = Maths.cos(Float(Double.pi * Double(x) * Double(i) / Double(width)))
                            * Maths.cos(Float(Double.pi * Double(y) * Double(j) / Double(height)))
                        let c = colours[i + j * nx]
                        r += c.0 * basis
                        g += c.1 * basis
                        b += c.2 * basis
                    }
                }
                let at = 3 * (x + y * width)
                pixels[at] = UInt8(linearToSRGB(r))
                pixels[at + 1] = UInt8(linearToSRGB(g))
                pixels[at + 2] = UInt8(linearToSRGB(b))
            }
        }
        return Image(width: width, height: height, format: .rgb8, pixels: pixels)
    }

    /// IEC 61966-2-1's curve each way, with the reference's mix of single and double
    /// precision (the constants are doubles, the powers single).
    static func sRGBToLinear(_ value: Int) -> Float {
        let v = Float(value) / 255
        if Double(v) <= 0.04045 { return Float(Double(v) / 12.92) }
        return Maths.pow(Float((Double(v) + 0.055) / 1.055), 2.4)
    }

    static func linearToSRGB(_ value: Float) -> Int {
        let v = max(0, min(1, value))
        if Double(v) <= 0.0031308 { return Int(Double(v) * 12.92 * 255 + 0.5) }
        return Int((1.055 * Double(Maths.pow(v, Float(1 / 2.4))) - 0.055) * 255 + 0.5)
    }

    static func signPow(_ value: Float, _ exponent: Float) -> Float {
        Float(signOf: value, magnitudeOf: Maths.pow(abs(value), exponent))
    }
}
