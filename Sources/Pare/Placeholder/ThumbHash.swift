import PareCore

/// ThumbHash (Evan Wallace, 2023): a picture of at most 100×100 pixels as about 25 bytes that
/// decode to a blurred 32-pixel version of it, with its aspect ratio and alpha.
///
/// The picture is split into luminance L = (R + G + B)/3 and two opponent channels
/// P = (R + G)/2 − B and Q = R − G (and alpha), transparent pixels taking the average colour.
/// Each channel goes through a 2-D DCT, of which only the low frequencies in a triangle are
/// kept (cx·ny < nx·(ny − cy): up to 7 across the long side for L, 3×3 for P and Q, 5×5 for
/// alpha); the DC terms and each channel's largest AC magnitude go into a 5-byte header (6
/// with alpha), each AC coefficient, divided by that largest one, into 4 bits. The arithmetic
/// and its order follow the reference encoder's, so that the same pixels give the same
/// bytes, rounding half to even as Python's reference does.
public enum ThumbHash {
    /// The largest side the encoder accepts.
    public static let maxSide = 100

    /// The hash of `width`×`height` RGBA pixels (8 bits each, not premultiplied); nil when
    /// a side is 0 or above `maxSide`, or `rgba` is short.
    public static func encode(width w: Int, height h: Int, rgba: [UInt8]) -> [UInt8]? {
        guard w > 0, h > 0, w <= maxSide, h <= maxSide, rgba.count >= w * h * 4 else { return nil }
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0 ..< w * h {
            let j = i * 4
            let alpha = Double(rgba[j + 3]) / 255
            avgR += alpha / 255 * Double(rgba[j])
            avgG += alpha / 255 * Double(rgba[j + 1])
            avgB += alpha / 255 * Double(rgba[j + 2])
            avgA += alpha
        }
        if avgA > 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }
        let hasAlpha = avgA < Double(w * h)
        let lLimit = hasAlpha ? 5.0 : 7.0
        let longest = Double(max(w, h))
        let lx = max(1, Int((lLimit * Double(w) / longest).rounded(.toNearestOrEven)))
        let ly = max(1, Int((lLimit * Double(h) / longest).rounded(.toNearestOrEven)))
        var l = [Double](), p = [Double](), q = [Double](), a = [Double]()
        l.reserveCapacity(w * h); p.reserveCapacity(w * h); q.reserveCapacity(w * h); a.reserveCapacity(w * h)
        for i in 0 ..< w * h {
            let j = i * 4
            let alpha = Double(rgba[j + 3]) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * Double(rgba[j])
            let g = avgG * (1 - alpha) + alpha / 255 * Double(rgba[j + 1])
            let b = avgB * (1 - alpha) + alpha / 255 * Double(rgba[j + 2])
            l.append((r + g + b) / 3)
            p.append((r + g) / 2 - b)
            q.append(r - g)
            a.append(alpha)
        }

        func encodeChannel(_ channel: [Double], _ nx: Int, _ ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
            var dc = 0.0, ac: [Double] = [], scale = 0.0
            var fx = [Double](repeating: 0, count: w)
            for cy in 0 ..< ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    var f = 0.0
                    for x in 0 ..< w { fx[x] = Maths.cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                    for y in 0 ..< h {
                        let fy = Maths.cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                        for x in 0 ..< w { f += channel[x + y * w] * fx[x] * fy }
                    }
                    f /= Double(w * h)
                    if cx > 0 || cy > 0 {
                        ac.append(f)
                        scale = max(scale, abs(f))
                    } else {
                        dc = f
                    }
                    cx += 1
                }
            }
            if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
            return (dc, ac, scale)
        }

        let (lDC, lAC, lScale) = encodeChannel(l, max(3, lx), max(3, ly))
        let (pDC, pAC, pScale) = encodeChannel(p, 3, 3)
        let (qDC, qAC, qScale) = encodeChannel(q, 3, 3)
        let (aDC, aAC, aScale) = hasAlpha ? encodeChannel(a, 5, 5) : (1.0, [], 1.0)
        let isLandscape = w > h
        func even(_ x: Double) -> Int { Int(x.rounded(.toNearestOrEven)) }
        let header24 = even(63 * lDC) | even(31.5 + 31.5 * pDC) << 6 | even(31.5 + 31.5 * qDC) << 12
            | even(31 * lScale) << 18 | (hasAlpha ? 1 : 0) << 23
        let header16 = (isLandscape ? ly : lx) | even(63 * pScale) << 3 | even(63 * qScale) << 9
            | (isLandscape ? 1 : 0) << 15
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16 & 255),
                             UInt8(header16 & 255), UInt8(header16 >> 8 & 255)]
        if hasAlpha { hash.append(UInt8((even(15 * aDC) | even(15 * aScale) << 4) & 255)) }
        var odd = false
        for ac in [lAC, pAC, qAC, aAC] {
            for f in ac {
                let u = UInt8(even(15 * f) & 15)
                if odd { hash[hash.count - 1] |= u << 4 } else { hash.append(u) }
                odd.toggle()
            }
        }
        return hash
    }

    /// The length in bytes a hash with this header has (the header says how many AC
    /// coefficients follow); nil when the bytes are too few for a header.
    public static func expectedLength(_ hash: [UInt8]) -> Int? {
        guard hash.count >= 5 else { return nil }
        let hasAlpha = hash[2] & 0x80 != 0, isLandscape = hash[4] & 0x80 != 0
        let short = Int(hash[3] & 7), long = hasAlpha ? 5 : 7
        let lx = max(3, isLandscape ? long : short), ly = max(3, isLandscape ? short : long)
        func count(_ nx: Int, _ ny: Int) -> Int {
            var n = 0
            for cy in 0 ..< ny {
                var cx = cy > 0 ? 0 : 1
                while cx * ny < nx * (ny - cy) { n += 1; cx += 1 }
            }
            return n
        }
        let nibbles = count(lx, ly) + 2 * count(3, 3) + (hasAlpha ? count(5, 5) : 0)
        return (hasAlpha ? 6 : 5) + (nibbles + 1) / 2
    }

    /// The picture a hash stands for: 32 pixels on its long side at the hash's aspect ratio,
    /// RGBA8; nil for a hash too short for its own header.
    public static func decode(_ hash: [UInt8]) -> Image? {
        guard hash.count >= 5 else { return nil }
        let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
        let header16 = Int(hash[3]) | Int(hash[4]) << 8
        let lDC = Double(header24 & 63) / 63
        let pDC = Double(header24 >> 6 & 63) / 31.5 - 1
        let qDC = Double(header24 >> 12 & 63) / 31.5 - 1
        let lScale = Double(header24 >> 18 & 31) / 31
        let hasAlpha = header24 >> 23 != 0
        let pScale = Double(header16 >> 3 & 63) / 63
        let qScale = Double(header16 >> 9 & 63) / 63
        let isLandscape = header16 >> 15 != 0
        let lx = max(3, isLandscape ? (hasAlpha ? 5 : 7) : header16 & 7)
        let ly = max(3, isLandscape ? header16 & 7 : (hasAlpha ? 5 : 7))
        guard !hasAlpha || hash.count >= 6 else { return nil }
        let aDC = hasAlpha ? Double(hash[5] & 15) / 15 : 1
        let aScale = hasAlpha ? Double(hash[5] >> 4) / 15 : 0
        let acStart = hasAlpha ? 6 : 5
        var acIndex = 0
        // Saturation is boosted by 1.25 to make up for the quantisation, as the reference does.
        func decodeChannel(_ nx: Int, _ ny: Int, _ scale: Double) -> [Double] {
            var ac: [Double] = []
            for cy in 0 ..< ny {
                var cx = cy > 0 ? 0 : 1
                while cx * ny < nx * (ny - cy) {
                    let at = acStart + acIndex >> 1
                    let nibble = at < hash.count ? Int(hash[at]) >> ((acIndex & 1) << 2) & 15 : 0
                    ac.append((Double(nibble) / 7.5 - 1) * scale)
                    acIndex += 1
                    cx += 1
                }
            }
            return ac
        }
        let lAC = decodeChannel(lx, ly, lScale)
        let pAC = decodeChannel(3, 3, pScale * 1.25)
        let qAC = decodeChannel(3, 3, qScale * 1.25)
        let aAC = hasAlpha ? decodeChannel(5, 5, aScale) : []
        let ratio = Double(isLandscape ? (hasAlpha ? 5 : 7) : header16 & 7)
            / Double(isLandscape ? header16 & 7 : (hasAlpha ? 5 : 7))
        guard ratio.isFinite, ratio > 0 else { return nil }
        let w = max(1, Int((ratio > 1 ? 32 : 32 * ratio).rounded()))
        let h = max(1, Int((ratio > 1 ? 32 / ratio : 32).rounded()))
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        var fx = [Double](repeating: 0, count: max(lx, hasAlpha ? 5 : 3))
        var fy = [Double](repeating: 0, count: max(ly, hasAlpha ? 5 : 3))
        func byte(_ v: Double) -> UInt8 { UInt8(max(0, 255 * min(1, v))) }
        for y in 0 ..< h {
            for x in 0 ..< w {
                var l = lDC, p = pDC, q = qDC, a = aDC
                for cx in 0 ..< fx.count { fx[cx] = Maths.cos(Double.pi / Double(w) * (Double(x) + 0.5) * Double(cx)) }
                for cy in 0 ..< fy.count { fy[cy] = Maths.cos(Double.pi / Double(h) * (Double(y) + 0.5) * Double(cy)) }
                var j = 0
                for cy in 0 ..< ly {
                    var cx = cy > 0 ? 0 : 1
                    let fy2 = fy[cy] * 2
                    while cx * ly < lx * (ly - cy) {
                        l += lAC[j] * fx[cx] * fy2
                        cx += 1; j += 1
                    }
                }
                j = 0
                for cy in 0 ..< 3 {
                    var cx = cy > 0 ? 0 : 1
                    let fy2 = fy[cy] * 2
                    while cx < 3 - cy {
                        let f = fx[cx] * fy2
                        p += pAC[j] * f
                        q += qAC[j] * f
                        cx += 1; j += 1
                    }
                }
                if hasAlpha {
                    j = 0
                    for cy in 0 ..< 5 {
                        var cx = cy > 0 ? 0 : 1
                        let fy2 = fy[cy] * 2
                        while cx < 5 - cy {
                            a += aAC[j] * fx[cx] * fy2
                            cx += 1; j += 1
                        }
                    }
                }
                let b = l - 2.0 / 3 * p
                let r = (3 * l - b + q) / 2
                let g = r - q
                let i = (y * w + x) * 4
                pixels[i] = byte(r); pixels[i + 1] = byte(g); pixels[i + 2] = byte(b); pixels[i + 3] = byte(a)
            }
        }
        return Image(width: w, height: h, format: .rgba8, pixels: pixels)
    }
}
