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
        if channels == 3 {
            let done = convertRGBLanes(pixels, count: count, y: y, cb: cb, cr: cr)
            convertPixels(pixels + 3 &* done, stride: 3, count: count &- done, y: y + done, cb: cb + done, cr: cr + done)
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

extension ForwardColor {
    /// The same sums in 16-bit lanes, sixteen pixels at a time, with only 16-bit multiplies
    /// and adds (which baseline SSE2 has; it has no 32-bit lane multiply). Each coefficient
    /// c splits into 256·⌊c/256⌋ + (c mod 256), so that a sum S = Σ c·x + offset becomes
    /// 256·A + L with A = Σ ⌊c/256⌋·x + ⌊offset/256⌋ and L = Σ (c mod 256)·x + offset mod 256.
    /// For each output the low parts of the three coefficients add up to 256 (libjpeg's
    /// coefficients add up to 65536 or to 0), so L ≤ 255 · 256 + 255 fits 16 bits; and since
    /// 0 ≤ S < 2^24, ⌊S / 256⌋ = A + ⌊L / 256⌋ lies in 0…65535, so A may wrap while it is summed
    /// and the result ⌊S / 2^16⌋ = (A + L >> 8) >> 8 is exact. `EncoderTests` checks every RGB
    /// triple against `convert`.
    typealias Lanes = SIMD8<UInt16>
    typealias Words = SIMD4<UInt32>

    /// One output sample for eight pixels: coefficients (cR, cG, cB) and the offset, ×65536.
    @inline(__always)
    static func sumLanes(_ r: Lanes, _ g: Lanes, _ b: Lanes, _ cR: Int32, _ cG: Int32, _ cB: Int32,
                         _ offset: Int32) -> Lanes {
        @inline(__always) func high(_ c: Int32) -> UInt16 { UInt16(truncatingIfNeeded: c &>> 8) }
        @inline(__always) func low(_ c: Int32) -> UInt16 { UInt16(truncatingIfNeeded: c & 0xFF) }
        let a = r &* high(cR) &+ g &* high(cG) &+ b &* high(cB) &+ Lanes(repeating: high(offset))
        let l = r &* low(cR) &+ g &* low(cG) &+ b &* low(cB) &+ Lanes(repeating: low(offset))
        return (a &+ (l &>> 8)) &>> 8
    }

    /// Converts whole groups of sixteen RGB pixels while two more pixels follow them (the
    /// loads read four bytes past a group); returns how many pixels it converted.
    ///
    /// Sixteen pixels are 48 bytes, four groups of four pixels in three 32-bit words each:
    /// R0 G0 B0 R1 | G1 B1 R2 G2 | B2 R3 G3 B3. Loading each group as a vector (at byte 12·j)
    /// and transposing gives words w0, w1, w2 whose lane j is that word of group j. Masks and
    /// shifts then gather, per 32-bit lane, pixels 4j and 4j+2 of one channel into the two
    /// 16-bit halves (the "even" vectors), and pixels 4j+1 and 4j+3 (the "odd" ones); the
    /// results of the two join as even | odd << 8, which puts the sixteen samples in order.
    static func convertRGBLanes(_ pixels: UnsafePointer<UInt8>, count: Int, y: UnsafeMutablePointer<UInt8>,
                                cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>) -> Int {
        let low = Words(repeating: 0xFF), high = Words(repeating: 0xFF_0000)
        @inline(__always) func lanes(_ w: Words) -> Lanes { unsafeBitCast(w, to: Lanes.self) }
        var x = 0
        // SAFETY: x + 18 ≤ count: the group's 48 bytes and the 4 read past them are pixels of
        // the row, and 16 samples from x are inside each plane.
        while x &+ 18 <= count {
            let p = UnsafeRawPointer(pixels + 3 &* x)
            let v0 = p.loadUnaligned(as: Words.self), v1 = p.loadUnaligned(fromByteOffset: 12, as: Words.self)
            let v2 = p.loadUnaligned(fromByteOffset: 24, as: Words.self)
            let v3 = p.loadUnaligned(fromByteOffset: 36, as: Words.self)
            // The 4×4 transpose of the groups' words (the fourth word, of the next group, unused).
            let t0 = Words(v0[0], v1[0], v0[1], v1[1]), t1 = Words(v2[0], v3[0], v2[1], v3[1])
            let t2 = Words(v0[2], v1[2], v0[3], v1[3]), t3 = Words(v2[2], v3[2], v2[3], v3[3])
            let w0 = Words(lowHalf: t0.lowHalf, highHalf: t1.lowHalf)
            let w1 = Words(lowHalf: t0.highHalf, highHalf: t1.highHalf)
            let w2 = Words(lowHalf: t2.lowHalf, highHalf: t3.lowHalf)
            let rEven = lanes(w0 & low | w1 & high), rOdd = lanes(w0 &>> 24 | (w2 &<< 8) & high)
            let gEven = lanes((w0 &>> 8) & low | (w1 &>> 8) & high), gOdd = lanes(w1 & low | w2 & high)
            let bEven = lanes((w0 &>> 16) & low | (w2 &<< 16) & high), bOdd = lanes((w1 &>> 8) & low | (w2 &>> 8) & high)
            @inline(__always) func store(_ cR: Int32, _ cG: Int32, _ cB: Int32, _ offset: Int32,
                                         _ plane: UnsafeMutablePointer<UInt8>) {
                let even = sumLanes(rEven, gEven, bEven, cR, cG, cB, offset)
                let odd = sumLanes(rOdd, gOdd, bOdd, cR, cG, cB, offset)
                UnsafeMutableRawPointer(plane + x).storeBytes(of: even | odd &<< 8, as: Lanes.self)
            }
            store(yR, yG, yB, half, y)
            store(cbR, cbG, cbB, chromaOffset + half - 1, cb)
            store(crR, crG, crB, chromaOffset + half - 1, cr)
            x &+= 16
        }
        return x
    }
}
