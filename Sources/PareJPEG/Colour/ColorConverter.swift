/// Colour conversion of one output row to gray8 or rgb8.
///
/// YCbCr → RGB is JFIF's (ITU-T T.871 §7): R = Y + 1.402·(Cr−128), G = Y − 0.34414·(Cb−128)
/// − 0.71414·(Cr−128), B = Y + 1.772·(Cb−128), in 16-bit fixed point with libjpeg's rounding
/// (the G terms are summed before one rounding shift). Adobe's CMYK is stored inverted
/// (APP14, transform 0); YCCK (transform 2) is YCbCr→RGB inverted, with K passed through.
/// CMYK becomes RGB as R = round(C·K/255), G = round(M·K/255), B = round(Y·K/255) on the
/// stored (inverted) values, as `djpeg -pnm` writes it.
enum ColorConverter {
    static let crToR = 91881   // round(1.40200 · 2^16)
    static let cbToB = 116130  // round(1.77200 · 2^16)
    static let crToG = 46802   // round(0.71414 · 2^16)
    static let cbToG = 22554   // round(0.34414 · 2^16)
    static let half = 1 << 15

    @inline(__always)
    static func clamp(_ x: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: x < 0 ? 0 : (x > 255 ? 255 : x))
    }

    static func yCbCrToRGB(_ y: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>,
                           count: Int, output: UnsafeMutablePointer<UInt8>) {
        // 32-bit arithmetic: every intermediate fits, and the loop vectorises.
        var out = output
        for i in 0 ..< count {
            let luma = Int32(y[i]), blue = Int32(cb[i]) &- 128, red = Int32(cr[i]) &- 128
            out[0] = clamp32(luma &+ ((Int32(crToR) &* red &+ Int32(half)) &>> 16))
            out[1] = clamp32(luma &+ ((Int32(half) &- Int32(cbToG) &* blue &- Int32(crToG) &* red) &>> 16))
            out[2] = clamp32(luma &+ ((Int32(cbToB) &* blue &+ Int32(half)) &>> 16))
            out += 3
        }
    }

    @inline(__always)
    static func clamp32(_ x: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(max(x, 0), 255))
    }

    static func interleave(_ r: UnsafePointer<UInt8>, _ g: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>,
                           count: Int, output: UnsafeMutablePointer<UInt8>) {
        var out = output
        for i in 0 ..< count {
            out[0] = r[i]
            out[1] = g[i]
            out[2] = b[i]
            out += 3
        }
    }

    /// round(a·k/255) in integers: floor((2ak + 255) / 510).
    @inline(__always)
    static func scaleByK(_ a: Int, _ k: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: (2 * a * k + 255) / 510)
    }

    static func cmykToRGB(_ c: UnsafePointer<UInt8>, _ m: UnsafePointer<UInt8>, _ y: UnsafePointer<UInt8>,
                          _ k: UnsafePointer<UInt8>, count: Int, output: UnsafeMutablePointer<UInt8>) {
        var out = output
        for i in 0 ..< count {
            let key = Int(k[i])
            out[0] = scaleByK(Int(c[i]), key)
            out[1] = scaleByK(Int(m[i]), key)
            out[2] = scaleByK(Int(y[i]), key)
            out += 3
        }
    }

    static func ycckToRGB(_ y: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>,
                          _ k: UnsafePointer<UInt8>, count: Int, output: UnsafeMutablePointer<UInt8>) {
        var out = output
        for i in 0 ..< count {
            let luma = Int(y[i]), blue = Int(cb[i]) - 128, red = Int(cr[i]) - 128, key = Int(k[i])
            let c = Int(clamp(255 - (luma + ((crToR * red + half) >> 16))))
            let m = Int(clamp(255 - (luma + ((half - cbToG * blue - crToG * red) >> 16))))
            let yellow = Int(clamp(255 - (luma + ((cbToB * blue + half) >> 16))))
            out[0] = scaleByK(c, key)
            out[1] = scaleByK(m, key)
            out[2] = scaleByK(yellow, key)
            out += 3
        }
    }
}
