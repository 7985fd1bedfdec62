/// The forward DCT of T.81 A.3.3 (FDCT, equation A.3.3) on one 8×8 block, computed as
/// libjpeg's accurate integer transform (`-dct int`) computes it, so that the coefficients,
/// and so the file, match cjpeg's: the Loeffler–Ligtenberg–Moschytz factorisation (12
/// multiplications per 8 points), constants in 13-bit fixed point, two fractional bits kept
/// between the row and the column pass, and the result left scaled up by 8 — the
/// quantiser divides by 8 × Q (`Quantization`).
///
/// Samples are level-shifted by −128 first (T.81 A.3.1).
enum ForwardDCT {
    static let constBits = 13
    static let pass1Bits = 2

    /// cos-based constants × 2^13, rounded (the names give the real values).
    static let c0_298631336: Int32 = 2446
    static let c0_390180644: Int32 = 3196
    static let c0_541196100: Int32 = 4433
    static let c0_765366865: Int32 = 6270
    static let c0_899976223: Int32 = 7373
    static let c1_175875602: Int32 = 9633
    static let c1_501321110: Int32 = 12299
    static let c1_847759065: Int32 = 15137
    static let c1_961570560: Int32 = 16069
    static let c2_053119869: Int32 = 16819
    static let c2_562915447: Int32 = 20995
    static let c3_072711026: Int32 = 25172

    /// x / 2^n rounded half up.
    @inline(__always)
    static func descale(_ x: Int32, _ n: Int32) -> Int32 { (x &+ (1 &<< (n &- 1))) &>> n }

    /// Transforms the 8×8 samples at `samples` (rows `stride` apart) into `out` (64 values,
    /// natural order, ×8).
    @inline(__always)
    static func transform(_ samples: UnsafePointer<UInt8>, stride: Int, into out: UnsafeMutablePointer<Int32>) {
        // Pass 1: rows. SAFETY: the caller's block has 8 rows of 8 samples at `stride`; out has 64.
        for row in 0 ..< 8 {
            let s = samples + row &* stride
            let d = out + row &* 8
            butterfly(Int32(s[0]) &- 128, Int32(s[1]) &- 128, Int32(s[2]) &- 128, Int32(s[3]) &- 128,
                      Int32(s[4]) &- 128, Int32(s[5]) &- 128, Int32(s[6]) &- 128, Int32(s[7]) &- 128,
                      into: d, step: 1, rowPass: true)
        }
        // Pass 2: columns, removing the pass-1 scaling.
        for column in 0 ..< 8 {
            let d = out + column
            butterfly(d[0], d[8], d[16], d[24], d[32], d[40], d[48], d[56], into: d, step: 8, rowPass: false)
        }
    }

    /// One 8-point transform. In the row pass, outputs 0 and 4 are scaled up by 2^pass1Bits
    /// and the rotated outputs descaled by constBits − pass1Bits; in the column pass 0 and 4
    /// are descaled by pass1Bits and the rest by constBits + pass1Bits. (Wrapping arithmetic:
    /// 8-bit samples keep every intermediate far inside 32 bits.)
    @inline(__always)
    static func butterfly(_ x0: Int32, _ x1: Int32, _ x2: Int32, _ x3: Int32, _ x4: Int32, _ x5: Int32,
                          _ x6: Int32, _ x7: Int32, into d: UnsafeMutablePointer<Int32>, step: Int,
                          rowPass: Bool) {
        let descaleBits = Int32(rowPass ? constBits - pass1Bits : constBits + pass1Bits)
        let tmp0 = x0 &+ x7, tmp7 = x0 &- x7
        let tmp1 = x1 &+ x6, tmp6 = x1 &- x6
        let tmp2 = x2 &+ x5, tmp5 = x2 &- x5
        let tmp3 = x3 &+ x4, tmp4 = x3 &- x4

        // Even part.
        let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3
        let tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2
        if rowPass {
            d[0] = (tmp10 &+ tmp11) &<< Int32(pass1Bits)
            d[4 &* step] = (tmp10 &- tmp11) &<< Int32(pass1Bits)
        } else {
            d[0] = descale(tmp10 &+ tmp11, Int32(pass1Bits))
            d[4 &* step] = descale(tmp10 &- tmp11, Int32(pass1Bits))
        }
        let z1 = (tmp12 &+ tmp13) &* c0_541196100
        d[2 &* step] = descale(z1 &+ tmp13 &* c0_765366865, descaleBits)
        d[6 &* step] = descale(z1 &- tmp12 &* c1_847759065, descaleBits)

        // Odd part (Figure 8 of the LL&M paper).
        let z5 = (tmp4 &+ tmp5 &+ tmp6 &+ tmp7) &* c1_175875602
        let o4 = tmp4 &* c0_298631336, o5 = tmp5 &* c2_053119869
        let o6 = tmp6 &* c3_072711026, o7 = tmp7 &* c1_501321110
        let y1 = (tmp4 &+ tmp7) &* -c0_899976223
        let y2 = (tmp5 &+ tmp6) &* -c2_562915447
        let y3 = (tmp4 &+ tmp6) &* -c1_961570560 &+ z5
        let y4 = (tmp5 &+ tmp7) &* -c0_390180644 &+ z5
        d[7 &* step] = descale(o4 &+ y1 &+ y3, descaleBits)
        d[5 &* step] = descale(o5 &+ y2 &+ y4, descaleBits)
        d[3 &* step] = descale(o6 &+ y2 &+ y3, descaleBits)
        d[1 &* step] = descale(o7 &+ y1 &+ y4, descaleBits)
    }
}
