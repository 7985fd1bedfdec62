/// Dequantisation and inverse DCT (T.81 A.3.3, Figure A.5's IDCT; F.2.1.5 dequantisation),
/// fused: each coefficient is multiplied by its quantiser as it is read.
///
/// The 8×8 transform is libjpeg's integer "islow" method (the Loeffler–Ligtenberg–Moschytz
/// factorisation with 13-bit constants and 2 extra bits of precision between the passes), so
/// its output matches `djpeg -dct int` exactly. The reduced transforms evaluate the IDCT of
/// the low-frequency corner only: a k×k block from the k×k lowest frequencies, which is what
/// a k-point IDCT of those coefficients gives (scaled so that the DC level is unchanged).
/// Coefficients outside the corner are never read.
enum InverseDCT {
    static let constBits = 13
    static let pass1Bits = 2

    // 13-bit fixed-point constants: round(x · 2^13).
    static let fix0_298631336 = 2446
    static let fix0_390180644 = 3196
    static let fix0_541196100 = 4433
    static let fix0_765366865 = 6270
    static let fix0_899976223 = 7373
    static let fix1_175875602 = 9633
    static let fix1_306562965 = 10703
    static let fix1_501321110 = 12299
    static let fix1_847759065 = 15137
    static let fix1_961570560 = 16069
    static let fix2_053119869 = 16819
    static let fix2_562915447 = 20995
    static let fix3_072711026 = 25172

    /// Level shift (+128, T.81 A.3.1) and limiting to 0…255 of a descaled IDCT output,
    /// wrapping as libjpeg's 1024-entry range-limit table does, so that even absurd
    /// coefficients give libjpeg's pixels.
    @inline(__always)
    static func limit(_ x: Int) -> UInt8 {
        let t = (x &+ 128) & 1023
        return t < 256 ? UInt8(truncatingIfNeeded: t) : (t < 640 ? 255 : 0)
    }

    /// The sample a DC-only block of any size decodes to: DC·Q0/8, rounded, plus 128.
    @inline(__always)
    static func dcSample(_ coefficient: Int16, _ quantizer: Int32) -> UInt8 {
        limit((Int(coefficient) &* Int(quantizer) &+ 4) &>> 3)
    }

    /// Fills a `size`×`size` block with one value.
    @inline(__always)
    static func fill(_ value: UInt8, size: Int, output: UnsafeMutablePointer<UInt8>, stride: Int) {
        var row = output
        for _ in 0 ..< size {
            row.update(repeating: value, count: size)
            row += stride
        }
    }

    /// The full 8×8 islow transform. `workspace` holds 64 Int32.
    static func transform8(_ coefficients: UnsafePointer<Int16>, _ quantizers: UnsafePointer<Int32>,
                           output: UnsafeMutablePointer<UInt8>, stride: Int,
                           workspace: UnsafeMutablePointer<Int32>) {
        // Pass 1: columns, from coefficients to the workspace, scaled up by 2^pass1Bits.
        for column in 0 ..< 8 {
            let c = coefficients + column, q = quantizers + column, w = workspace + column
            if c[8] == 0, c[16] == 0, c[24] == 0, c[32] == 0, c[40] == 0, c[48] == 0, c[56] == 0 {
                let dc = Int32(truncatingIfNeeded: (Int(c[0]) &* Int(q[0])) &<< pass1Bits)
                for k in 0 ..< 8 { w[8 * k] = dc }
                continue
            }
            var z2 = Int(c[16]) &* Int(q[16]), z3 = Int(c[48]) &* Int(q[48])
            var z1 = (z2 &+ z3) &* fix0_541196100
            var tmp2 = z1 &+ z3 &* -fix1_847759065
            var tmp3 = z1 &+ z2 &* fix0_765366865
            z2 = Int(c[0]) &* Int(q[0])
            z3 = Int(c[32]) &* Int(q[32])
            var tmp0 = (z2 &+ z3) &<< constBits
            var tmp1 = (z2 &- z3) &<< constBits
            let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3, tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2

            tmp0 = Int(c[56]) &* Int(q[56])
            tmp1 = Int(c[40]) &* Int(q[40])
            tmp2 = Int(c[24]) &* Int(q[24])
            tmp3 = Int(c[8]) &* Int(q[8])
            z1 = tmp0 &+ tmp3
            z2 = tmp1 &+ tmp2
            z3 = tmp0 &+ tmp2
            var z4 = tmp1 &+ tmp3
            let z5 = (z3 &+ z4) &* fix1_175875602
            tmp0 = tmp0 &* fix0_298631336
            tmp1 = tmp1 &* fix2_053119869
            tmp2 = tmp2 &* fix3_072711026
            tmp3 = tmp3 &* fix1_501321110
            z1 = z1 &* -fix0_899976223
            z2 = z2 &* -fix2_562915447
            z3 = z3 &* -fix1_961570560 &+ z5
            z4 = z4 &* -fix0_390180644 &+ z5
            tmp0 = tmp0 &+ z1 &+ z3
            tmp1 = tmp1 &+ z2 &+ z4
            tmp2 = tmp2 &+ z2 &+ z3
            tmp3 = tmp3 &+ z1 &+ z4

            let shift = constBits - pass1Bits, round = 1 << (shift - 1)
            w[0] = Int32(truncatingIfNeeded: (tmp10 &+ tmp3 &+ round) &>> shift)
            w[56] = Int32(truncatingIfNeeded: (tmp10 &- tmp3 &+ round) &>> shift)
            w[8] = Int32(truncatingIfNeeded: (tmp11 &+ tmp2 &+ round) &>> shift)
            w[48] = Int32(truncatingIfNeeded: (tmp11 &- tmp2 &+ round) &>> shift)
            w[16] = Int32(truncatingIfNeeded: (tmp12 &+ tmp1 &+ round) &>> shift)
            w[40] = Int32(truncatingIfNeeded: (tmp12 &- tmp1 &+ round) &>> shift)
            w[24] = Int32(truncatingIfNeeded: (tmp13 &+ tmp0 &+ round) &>> shift)
            w[32] = Int32(truncatingIfNeeded: (tmp13 &- tmp0 &+ round) &>> shift)
        }

        // Pass 2: rows, from the workspace to samples, removing the 2^pass1Bits and the
        // factor 8 of the 2-D transform.
        let shift = constBits + pass1Bits + 3, round = 1 << (shift - 1)
        for row in 0 ..< 8 {
            let w = workspace + 8 * row, out = output + row * stride
            if w[1] == 0, w[2] == 0, w[3] == 0, w[4] == 0, w[5] == 0, w[6] == 0, w[7] == 0 {
                let value = limit((Int(w[0]) &+ (1 << (pass1Bits + 2))) &>> (pass1Bits + 3))
                out.update(repeating: value, count: 8)
                continue
            }
            var z2 = Int(w[2]), z3 = Int(w[6])
            var z1 = (z2 &+ z3) &* fix0_541196100
            var tmp2 = z1 &+ z3 &* -fix1_847759065
            var tmp3 = z1 &+ z2 &* fix0_765366865
            var tmp0 = (Int(w[0]) &+ Int(w[4])) &<< constBits
            var tmp1 = (Int(w[0]) &- Int(w[4])) &<< constBits
            let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3, tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2

            tmp0 = Int(w[7])
            tmp1 = Int(w[5])
            tmp2 = Int(w[3])
            tmp3 = Int(w[1])
            z1 = tmp0 &+ tmp3
            z2 = tmp1 &+ tmp2
            z3 = tmp0 &+ tmp2
            var z4 = tmp1 &+ tmp3
            let z5 = (z3 &+ z4) &* fix1_175875602
            tmp0 = tmp0 &* fix0_298631336
            tmp1 = tmp1 &* fix2_053119869
            tmp2 = tmp2 &* fix3_072711026
            tmp3 = tmp3 &* fix1_501321110
            z1 = z1 &* -fix0_899976223
            z2 = z2 &* -fix2_562915447
            z3 = z3 &* -fix1_961570560 &+ z5
            z4 = z4 &* -fix0_390180644 &+ z5
            tmp0 = tmp0 &+ z1 &+ z3
            tmp1 = tmp1 &+ z2 &+ z4
            tmp2 = tmp2 &+ z2 &+ z3
            tmp3 = tmp3 &+ z1 &+ z4

            out[0] = limit((tmp10 &+ tmp3 &+ round) &>> shift)
            out[7] = limit((tmp10 &- tmp3 &+ round) &>> shift)
            out[1] = limit((tmp11 &+ tmp2 &+ round) &>> shift)
            out[6] = limit((tmp11 &- tmp2 &+ round) &>> shift)
            out[2] = limit((tmp12 &+ tmp1 &+ round) &>> shift)
            out[5] = limit((tmp12 &- tmp1 &+ round) &>> shift)
            out[3] = limit((tmp13 &+ tmp0 &+ round) &>> shift)
            out[4] = limit((tmp13 &- tmp0 &+ round) &>> shift)
        }
    }

    /// The 4×4 transform of the 4×4 low-frequency corner (scale 1/2). In one dimension the
    /// outputs are the 8-point IDCT's continuous form sampled at the centres of pixel pairs,
    /// truncated to frequencies 0…3: a 4-point IDCT whose even part is X0 ± X2 and whose
    /// odd part rotates X1, X3 by √2·cos(π/8) and √2·cos(3π/8).
    static func transform4(_ coefficients: UnsafePointer<Int16>, _ quantizers: UnsafePointer<Int32>,
                           output: UnsafeMutablePointer<UInt8>, stride: Int,
                           workspace: UnsafeMutablePointer<Int32>) {
        let shift1 = constBits - pass1Bits, round1 = 1 << (shift1 - 1)
        for column in 0 ..< 4 {
            let c = coefficients + column, q = quantizers + column, w = workspace + column
            let x0 = Int(c[0]) &* Int(q[0]), x1 = Int(c[8]) &* Int(q[8])
            let x2 = Int(c[16]) &* Int(q[16]), x3 = Int(c[24]) &* Int(q[24])
            let e0 = (x0 &+ x2) &<< constBits, e1 = (x0 &- x2) &<< constBits
            let o0 = x1 &* fix1_306562965 &+ x3 &* fix0_541196100
            let o1 = x1 &* fix0_541196100 &- x3 &* fix1_306562965
            w[0] = Int32(truncatingIfNeeded: (e0 &+ o0 &+ round1) &>> shift1)
            w[24] = Int32(truncatingIfNeeded: (e0 &- o0 &+ round1) &>> shift1)
            w[8] = Int32(truncatingIfNeeded: (e1 &+ o1 &+ round1) &>> shift1)
            w[16] = Int32(truncatingIfNeeded: (e1 &- o1 &+ round1) &>> shift1)
        }
        let shift2 = constBits + pass1Bits + 3, round2 = 1 << (shift2 - 1)
        for row in 0 ..< 4 {
            let w = workspace + 8 * row, out = output + row * stride
            let x0 = Int(w[0]), x1 = Int(w[1]), x2 = Int(w[2]), x3 = Int(w[3])
            let e0 = (x0 &+ x2) &<< constBits, e1 = (x0 &- x2) &<< constBits
            let o0 = x1 &* fix1_306562965 &+ x3 &* fix0_541196100
            let o1 = x1 &* fix0_541196100 &- x3 &* fix1_306562965
            out[0] = limit((e0 &+ o0 &+ round2) &>> shift2)
            out[3] = limit((e0 &- o0 &+ round2) &>> shift2)
            out[1] = limit((e1 &+ o1 &+ round2) &>> shift2)
            out[2] = limit((e1 &- o1 &+ round2) &>> shift2)
        }
    }

    /// The 2×2 transform of the 2×2 corner (scale 1/4): each output is (X00 ± X01 ± X10 ± X11)/8,
    /// exactly, correctly rounded.
    static func transform2(_ coefficients: UnsafePointer<Int16>, _ quantizers: UnsafePointer<Int32>,
                           output: UnsafeMutablePointer<UInt8>, stride: Int) {
        let x00 = Int(coefficients[0]) &* Int(quantizers[0]), x01 = Int(coefficients[1]) &* Int(quantizers[1])
        let x10 = Int(coefficients[8]) &* Int(quantizers[8]), x11 = Int(coefficients[9]) &* Int(quantizers[9])
        let a = x00 &+ x10, b = x00 &- x10
        output[0] = limit((a &+ x01 &+ x11 &+ 4) &>> 3)
        output[1] = limit((a &- x01 &- x11 &+ 4) &>> 3)
        output[stride] = limit((b &+ x01 &- x11 &+ 4) &>> 3)
        output[stride + 1] = limit((b &- x01 &+ x11 &+ 4) &>> 3)
    }
}
