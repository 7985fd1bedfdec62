/// RGB → YCbCr for encoding (JFIF 1.02, "Conversion to and from RGB"; T.871 §7):
///
///     Y  =  0.299 R + 0.587 G + 0.114 B
///     Cb = −0.16874 R − 0.33126 G + 0.5 B + 128
///     Cr =  0.5 R − 0.41869 G − 0.08131 B + 128
///
/// in the 16-bit fixed point libjpeg uses, so that the same pixels give the same samples:
/// each coefficient is rounded to a multiple of 2^−16, Y is rounded to nearest, and Cb and
/// Cr add one half less one unit before truncating (which keeps them ≤ 255 for B or R of 255).
enum ForwardColor {
    /// The coefficients × 65536, rounded.
    static let yR: Int32 = 19595, yG: Int32 = 38470, yB: Int32 = 7471
    static let cbR: Int32 = -11059, cbG: Int32 = -21709, cbB: Int32 = 32768
    static let crR: Int32 = 32768, crG: Int32 = -27439, crB: Int32 = -5329
    static let half: Int32 = 1 << 15
    static let chromaOffset: Int32 = 128 << 16

    /// One pixel, the plain formula: the oracle for `convertRow`.
    static func convert(r: UInt8, g: UInt8, b: UInt8) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let r = Int32(r), g = Int32(g), b = Int32(b)
        let y = (yR * r + yG * g + yB * b + half) >> 16
        let cb = (cbR * r + cbG * g + cbB * b + chromaOffset + half - 1) >> 16
        let cr = (crR * r + crG * g + crB * b + chromaOffset + half - 1) >> 16
        return (UInt8(y), UInt8(cb), UInt8(cr))
    }

    /// `count` pixels of `channels` interleaved bytes (RGB first; a fourth, alpha, is
    /// skipped) into three planes.
    static func convertRow(_ pixels: UnsafePointer<UInt8>, channels: Int, count: Int,
                           y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>,
                           cr: UnsafeMutablePointer<UInt8>) {
        // A constant stride lets the compiler vectorise the interleaved loads.
        if channels == 3 {
            convertPixels(pixels, stride: 3, count: count, y: y, cb: cb, cr: cr)
        } else {
            convertPixels(pixels, stride: 4, count: count, y: y, cb: cb, cr: cr)
        }
    }

    @inline(__always)
    static func convertPixels(_ pixels: UnsafePointer<UInt8>, stride: Int, count: Int,
                              y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>,
                              cr: UnsafeMutablePointer<UInt8>) {
        // SAFETY: the caller gives `count` pixels of `stride` bytes and planes of `count`.
        for x in 0 ..< count {
            let p = pixels + x &* stride
            let r = Int32(p[0]), g = Int32(p[1]), b = Int32(p[2])
            y[x] = UInt8(truncatingIfNeeded: (yR &* r &+ yG &* g &+ yB &* b &+ half) &>> 16)
            cb[x] = UInt8(truncatingIfNeeded: (cbR &* r &+ cbG &* g &+ cbB &* b &+ (chromaOffset + half - 1)) &>> 16)
            cr[x] = UInt8(truncatingIfNeeded: (crR &* r &+ crG &* g &+ crB &* b &+ (chromaOffset + half - 1)) &>> 16)
        }
    }
}
