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

    /// YCbCr → RGB eight pixels at a time in 16-bit lanes, the plain loop
    /// (`yCbCrToRGBPlain`) finishing the row. Each term is split so that 16-bit products do
    /// it exactly (StageTests compares the two over every (Y, Cb, Cr)):
    ///
    /// - with (k·x + 2^15) >> 16 = (⌊k·x / 2^15⌋ + 1) >> 1 and ⌊k·x / 2^15⌋ the high half of
    ///   the 16-bit product (2x)·k, R's 91881 = 2^16 + 26345 and B's 116130 = 2·2^16 − 14942
    ///   need one high-half product each;
    /// - G's two products are summed before the one rounding shift, so they are widened to
    ///   32 bits (−46802 = −2^16 + 18734 keeps both factors within 16 bits).
    // Never inlined: compiled on its own, its lane code stays vectorised whatever becomes of
    // its callers (Benchmarks/README.md, "Instructions").
    @inline(never)
    static func yCbCrToRGB(_ y: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>,
                           count: Int, output: UnsafeMutablePointer<UInt8>) {
        #if hasFeature(Embedded)
        // Small cores have no vector unit: the lane form only adds code there.
        yCbCrToRGBPlain(y, cb, cr, count: count, output: output)
        #else
        typealias Lanes = ShortLanes.Short
        @inline(__always) func roundedHigh(_ x: Lanes, _ k: Int16) -> Lanes {
            (ShortLanes.truncate(ShortLanes.product(x &<< 1, k) &>> 16) &+ 1) &>> 1
        }
        let bias = Lanes(repeating: 128)
        var i = 0
        // SAFETY: each step reads 8 samples of each row from i and writes 8-byte words at
        // output + 3i + 6k, k < 4, ending 2 bytes past its 24; i + 8 < count keeps both in
        // the rows (3·(i + 8) + 2 ≤ 3·count).
        while i + 8 < count {
            let luma = ShortLanes.load(y + i), blue = ShortLanes.load(cb + i) &- bias
            let red = ShortLanes.load(cr + i) &- bias
            let r = luma &+ red &+ roundedHigh(red, 26345)
            let b = luma &+ (blue &<< 1) &+ roundedHigh(blue, -14942)
            let gTerm = (ShortLanes.product(blue, Int16(-cbToG)) &+ ShortLanes.product(red, 18734)
                &+ ShortLanes.Long(repeating: Int32(half))) &>> 16
            let g = luma &- red &+ ShortLanes.truncate(gTerm)
            @inline(__always) func limited(_ v: Lanes) -> ShortLanes.Long {
                // A loop of scalar limits into bytes, which the optimiser turns into one
                // saturating pack (x86: packuswb). `clamped` rests on the standard library's
                // generic pointwiseMax and pointwiseMin being inlined, and once the module
                // grew they were left as two calls a vector.
                var bytes = ShortLanes.Bytes()
                for lane in 0 ..< 8 { bytes[lane] = UInt8(truncatingIfNeeded: min(max(v[lane], 0), 255)) }
                return ShortLanes.lanes(bytes)
            }
            // One pixel a 32-bit word (R, G, B, 0), then two pixels a 64-bit word of 6 bytes.
            let words = unsafeBitCast(limited(r) | limited(g) &<< 8 | limited(b) &<< 16, to: SIMD4<UInt64>.self)
            let pairs = (words & SIMD4(repeating: 0xFF_FFFF)) | ((words &>> 8) & SIMD4(repeating: 0xFFFF_FF00_0000))
            let out = UnsafeMutableRawPointer(output + 3 * i)
            out.storeBytes(of: pairs[0], as: UInt64.self)
            out.storeBytes(of: pairs[1], toByteOffset: 6, as: UInt64.self)
            out.storeBytes(of: pairs[2], toByteOffset: 12, as: UInt64.self)
            out.storeBytes(of: pairs[3], toByteOffset: 18, as: UInt64.self)
            i += 8
        }
        yCbCrToRGBPlain(y + i, cb + i, cr + i, count: count - i, output: output + 3 * i)
        #endif
    }

    /// The conversion as libjpeg states it, one pixel at a time: the oracle of `yCbCrToRGB`.
    static func yCbCrToRGBPlain(_ y: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>,
                                count: Int, output: UnsafeMutablePointer<UInt8>) {
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

    /// The ink amounts of a four-component frame (0 = no ink), for a CMYK profile: Adobe
    /// stores CMYK inverted, so C = 255 − stored; YCCK's YCbCr decodes to the inverted
    /// stored CMY, which are then the inks themselves, and K is stored inverted.
    static func inkAmounts(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ c: UnsafePointer<UInt8>,
                           _ k: UnsafePointer<UInt8>, ycck: Bool, count: Int, output: UnsafeMutablePointer<UInt8>) {
        var out = output
        for i in 0 ..< count {
            if ycck {
                let luma = Int(a[i]), blue = Int(b[i]) - 128, red = Int(c[i]) - 128
                out[0] = clamp(luma + ((crToR * red + half) >> 16))
                out[1] = clamp(luma + ((half - cbToG * blue - crToG * red) >> 16))
                out[2] = clamp(luma + ((cbToB * blue + half) >> 16))
            } else {
                out[0] = 255 - a[i]
                out[1] = 255 - b[i]
                out[2] = 255 - c[i]
            }
            out[3] = 255 - k[i]
            out += 4
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
