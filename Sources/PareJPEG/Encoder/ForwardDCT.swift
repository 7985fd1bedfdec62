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

extension ForwardDCT {
    typealias Short = ShortLanes.Short
    typealias Long = ShortLanes.Long
    typealias ShortMatrix = InverseDCT.ShortMatrix

    /// The same transform on eight rows (then eight columns) at once, in 16-bit lanes with
    /// the same integer arithmetic, so that every output equals `transform`'s (`EncoderTests`
    /// checks it): the samples are loaded a row per vector and transposed, so that lane r of
    /// vector j is sample j of row r; one butterfly then does the row pass of all eight rows;
    /// a second transpose and butterfly do the columns, whose outputs are the block's rows.
    /// Between the passes and out, values are 16-bit: row-pass outputs lie within ±4 × 1024
    /// (the DC of eight samples of ±128, scaled by 2^pass1Bits, is the largest), so the
    /// column pass's sums of up to eight of them fit, and the ×8 scaled DCT of 8-bit samples
    /// stays within ±8192 plus rounding. Outputs in natural order; `out` holds the row pass's
    /// outputs in between.
    ///
    /// Each pass is a function of its own on purpose: inlined into one, the optimiser merged
    /// the row pass's narrowing into the transpose that follows it and moved lanes one by one
    /// through general registers.
    @inline(__always)
    static func transformLanes(_ samples: UnsafePointer<UInt8>, stride: Int, into out: UnsafeMutablePointer<Int16>) {
        rowPassLanes(samples, stride: stride, into: out)
        columnPassLanes(out)
    }

    /// Pass 1 on eight rows. The level-shifted samples are scaled by 2^rowInputBits, so
    /// that the rotations' sums are 2^5 × those of `butterfly` and their descale by
    /// constBits − pass1Bits = 11 becomes one by 16: (2^5·S + 2^15) >> 16 = (S + 2^10) >> 11.
    /// A shift by 16 leaves each 32-bit lane's high half, which narrows to 16 bits in one
    /// step (x86: psrad, packssdw) where a shift by 11 needed two more. The scaled samples lie
    /// in −4096…4064 and every sum and difference of the flow graph stays inside 16 bits
    /// (the largest, tmp10 + tmp11, in −32768…32512).
    @inline(never)
    static func rowPassLanes(_ samples: UnsafePointer<UInt8>, stride: Int, into out: UnsafeMutablePointer<Int16>) {
        let level = Short(repeating: 128)
        // SAFETY: the caller's block has 8 rows of 8 samples at `stride`.
        @inline(__always) func row(_ r: Int) -> Short {
            (ShortLanes.load(samples + r &* stride) &- level) &<< Int16(rowInputBits)
        }
        let m = InverseDCT.transpose((row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)))
        store(butterfly16(m, rowPass: true), out)
    }

    /// Pass 2 on eight columns, from the row pass's outputs in `out`, into `out`. Every
    /// product is doubled, so that the descale by constBits + pass1Bits = 15 becomes one by
    /// 16 here too: (2S + 2^15) >> 16 = (S + 2^14) >> 15. The combined constants doubled fit
    /// 16 bits but one, −2.562915447 (−20995 × 2 does not), whose partner is doubled instead:
    /// tmp5 and tmp6 are differences of two row-pass outputs, within ±8192, so 2·tmp5 and
    /// 2·tmp6 fit.
    @inline(never)
    static func columnPassLanes(_ out: UnsafeMutablePointer<Int16>) {
        store(columnPass(out), out)
    }

    /// The column pass's outputs, the block's rows, for `columnPassLanes` and for a caller
    /// that quantises them in registers (`Divisors.transformAndQuantize`).
    @inline(__always)
    static func columnPass(_ rows: UnsafePointer<Int16>) -> ShortMatrix {
        // SAFETY: rows has 64 entries.
        let o = UnsafeRawPointer(rows)
        @inline(__always) func row(_ r: Int) -> Short { o.loadUnaligned(fromByteOffset: 16 &* r, as: Short.self) }
        return butterfly16(InverseDCT.transpose((row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))),
                           rowPass: false)
    }

    /// 2^rowInputBits: the row pass's input scale (see `rowPassLanes`).
    static let rowInputBits = 16 - (constBits - pass1Bits)

    /// Stores eight vectors as the 64 entries of `out`.
    @inline(__always)
    static func store(_ m: ShortMatrix, _ out: UnsafeMutablePointer<Int16>) {
        // SAFETY: out has 64 entries.
        let o = UnsafeMutableRawPointer(out)
        o.storeBytes(of: m.0, toByteOffset: 0, as: Short.self)
        o.storeBytes(of: m.1, toByteOffset: 16, as: Short.self)
        o.storeBytes(of: m.2, toByteOffset: 32, as: Short.self)
        o.storeBytes(of: m.3, toByteOffset: 48, as: Short.self)
        o.storeBytes(of: m.4, toByteOffset: 64, as: Short.self)
        o.storeBytes(of: m.5, toByteOffset: 80, as: Short.self)
        o.storeBytes(of: m.6, toByteOffset: 96, as: Short.self)
        o.storeBytes(of: m.7, toByteOffset: 112, as: Short.self)
    }

    /// a·ka + b·kb per lane, exact in 32 bits: a and b interleaved into pairs of 16-bit
    /// lanes, and each pair multiplied by (ka, kb) and summed — one SSE2 PMADDWD per four
    /// lanes, which the compiler finds in the shifts below (both factors fit 16 bits).
    @inline(__always)
    static func dot(_ a: Short, _ ka: Int32, _ b: Short, _ kb: Int32) -> Long {
        @inline(__always) func pairs(_ x: Short) -> SIMD4<Int32> {
            let w = unsafeBitCast(x, to: SIMD4<Int32>.self)
            return ((w &<< 16) &>> 16) &* ka &+ (w &>> 16) &* kb
        }
        return Long(lowHalf: pairs(InverseDCT.interleaveLow(a, b)), highHalf: pairs(InverseDCT.interleaveHigh(a, b)))
    }

    /// `butterfly` on eight 16-bit lanes: inputs x0…x7 (scaled as `rowPassLanes` and
    /// `columnPassLanes` say), outputs in frequency order. Each rotation is written as sums
    /// of two products of 16-bit values, its constants combined (z1 = (tmp12 + tmp13)·0.541196100
    /// becomes tmp12·0.541196100 + tmp13·0.541196100, and z5 = (tmp4 + tmp5 + tmp6 + tmp7)·1.175875602
    /// is shared out over z3 = tmp4 + tmp6 and z4 = tmp5 + tmp7), which is the same exact 32-bit
    /// value; every combined constant fits 16 bits, and so does every multiplicand. Both
    /// passes descale their rotations by a shift of 16, the sums being scaled to suit.
    @inline(__always)
    static func butterfly16(_ m: ShortMatrix, rowPass: Bool) -> ShortMatrix {
        // Column pass: products doubled (the one constant that would not fit doubled has its
        // multiplicand doubled instead).
        let k: Int32 = rowPass ? 1 : 2
        let round = Long(repeating: 1 &<< 15)
        // (x + 2^15) >> 16 lies within 16 bits, so keeping the low 16 bits narrows exactly.
        @inline(__always) func descale(_ x: Long) -> Short { ShortLanes.truncate((x &+ round) &>> 16) }
        let tmp0 = m.0 &+ m.7, tmp7 = m.0 &- m.7
        let tmp1 = m.1 &+ m.6, tmp6 = m.1 &- m.6
        let tmp2 = m.2 &+ m.5, tmp5 = m.2 &- m.5
        let tmp3 = m.3 &+ m.4, tmp4 = m.3 &- m.4

        // Even part.
        let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3
        let tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2
        let d0: Short, d4: Short
        if rowPass {
            // Scaled by 2^rowInputBits, wanted by 2^pass1Bits: exact, the sums being multiples.
            let down = Int16(rowInputBits - pass1Bits)
            d0 = (tmp10 &+ tmp11) &>> down
            d4 = (tmp10 &- tmp11) &>> down
        } else {
            let half = Short(repeating: 1 &<< Int16(pass1Bits - 1))
            d0 = (tmp10 &+ tmp11 &+ half) &>> Int16(pass1Bits)
            d4 = (tmp10 &- tmp11 &+ half) &>> Int16(pass1Bits)
        }
        let d2 = descale(dot(tmp13, k &* (c0_541196100 + c0_765366865), tmp12, k &* c0_541196100))
        let d6 = descale(dot(tmp13, k &* c0_541196100, tmp12, k &* (c0_541196100 - c1_847759065)))

        // Odd part: y3 = z3·(1.175875602 − 1.961570560) + z4·1.175875602, y4 likewise.
        let z3 = tmp4 &+ tmp6, z4 = tmp5 &+ tmp7
        let y3 = dot(z3, k &* (c1_175875602 - c1_961570560), z4, k &* c1_175875602)
        let y4 = dot(z3, k &* c1_175875602, z4, k &* (c1_175875602 - c0_390180644))
        let d7 = descale(dot(tmp4, k &* (c0_298631336 - c0_899976223), tmp7, k &* -c0_899976223) &+ y3)
        let d1 = descale(dot(tmp4, k &* -c0_899976223, tmp7, k &* (c1_501321110 - c0_899976223)) &+ y4)
        let twice = Short(repeating: Int16(k))
        let d5 = descale(dot(tmp5, k &* (c2_053119869 - c2_562915447), tmp6 &* twice, -c2_562915447) &+ y4)
        let d3 = descale(dot(tmp5 &* twice, -c2_562915447, tmp6, k &* (c3_072711026 - c2_562915447)) &+ y3)
        return (d0, d1, d2, d3, d4, d5, d6, d7)
    }
}
