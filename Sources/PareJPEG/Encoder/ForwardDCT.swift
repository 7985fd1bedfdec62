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
    /// Four 32-bit lanes: the butterflies run on half of a block's rows (or columns) at a
    /// time, so that the eight vectors of a pass fit the sixteen SSE registers.
    typealias Lanes = SIMD4<Int32>
    typealias LaneMatrix = (Lanes, Lanes, Lanes, Lanes, Lanes, Lanes, Lanes, Lanes)

    /// The same transform on eight rows (then eight columns) at once, with the same integer
    /// arithmetic, so that every output equals `transform`'s (`EncoderTests` checks it): the
    /// samples are loaded a row per vector and transposed, so that lane r of vector j is
    /// sample j of row r; one butterfly then does the row pass of all eight rows; a second
    /// transpose and butterfly do the columns. Between the passes the values travel as 16-bit
    /// lanes (row-pass outputs are within ±4 × 1024), where a transpose is 24 unpacks.
    /// Outputs in natural order, as 16-bit values (the ×8 scaled DCT of 8-bit samples stays
    /// within ±8192 plus rounding).
    @inline(never)
    static func transformLanes(_ samples: UnsafePointer<UInt8>, stride: Int, into out: UnsafeMutablePointer<Int16>) {
        let level = Row16(repeating: 128)
        @inline(__always) func row(_ r: Int) -> Row16 {
            // SAFETY: the caller's block has 8 rows of 8 samples at `stride`.
            let b = UnsafeRawPointer(samples + r &* stride).loadUnaligned(as: SIMD8<UInt8>.self), z: UInt8 = 0
            // Each byte with a zero byte above it: the samples as 16-bit lanes (PUNPCKLBW).
            let wide = SIMD16<UInt8>(b[0], z, b[1], z, b[2], z, b[3], z, b[4], z, b[5], z, b[6], z, b[7], z)
            return unsafeBitCast(wide, to: Row16.self) &- level
        }
        var rows: Rows16 = (row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
        transpose(&rows)
        var (even, odd) = widened(rows)
        butterflyLanes(&even, rowPass: true)
        butterflyLanes(&odd, rowPass: true)
        rows = narrowed(even, odd)
        transpose(&rows)
        (even, odd) = widened(rows)
        butterflyLanes(&even, rowPass: false)
        butterflyLanes(&odd, rowPass: false)
        rows = narrowed(even, odd)
        // SAFETY: out has 64 entries.
        let o = UnsafeMutableRawPointer(out)
        o.storeBytes(of: rows.0, toByteOffset: 0, as: Row16.self)
        o.storeBytes(of: rows.1, toByteOffset: 16, as: Row16.self)
        o.storeBytes(of: rows.2, toByteOffset: 32, as: Row16.self)
        o.storeBytes(of: rows.3, toByteOffset: 48, as: Row16.self)
        o.storeBytes(of: rows.4, toByteOffset: 64, as: Row16.self)
        o.storeBytes(of: rows.5, toByteOffset: 80, as: Row16.self)
        o.storeBytes(of: rows.6, toByteOffset: 96, as: Row16.self)
        o.storeBytes(of: rows.7, toByteOffset: 112, as: Row16.self)
    }

    typealias Row16 = SIMD8<Int16>
    typealias Rows16 = (Row16, Row16, Row16, Row16, Row16, Row16, Row16, Row16)

    /// 16-bit lanes as 32-bit lanes: lanes 0, 2, 4, 6 and lanes 1, 3, 5, 7, each pair of 16-bit
    /// lanes read as one 32-bit lane and split by shifts. The butterfly works lane by lane,
    /// so the split does not matter; `narrowed` joins the halves again. (Shifts and a bit
    /// cast, where the standard library's converting initialisers are generic calls the
    /// optimiser may leave out of line.)
    @inline(__always)
    static func widened(_ r: Rows16) -> (even: LaneMatrix, odd: LaneMatrix) {
        @inline(__always) func pairs(_ v: Row16) -> Lanes { unsafeBitCast(v, to: Lanes.self) }
        @inline(__always) func even(_ v: Row16) -> Lanes { (pairs(v) &<< 16) &>> 16 }
        @inline(__always) func odd(_ v: Row16) -> Lanes { pairs(v) &>> 16 }
        return ((even(r.0), even(r.1), even(r.2), even(r.3), even(r.4), even(r.5), even(r.6), even(r.7)),
                (odd(r.0), odd(r.1), odd(r.2), odd(r.3), odd(r.4), odd(r.5), odd(r.6), odd(r.7)))
    }

    /// The inverse of `widened`, keeping the low 16 bits of each lane.
    @inline(__always)
    static func narrowed(_ even: LaneMatrix, _ odd: LaneMatrix) -> Rows16 {
        @inline(__always) func join(_ e: Lanes, _ o: Lanes) -> Row16 { unsafeBitCast((e & 0xFFFF) | (o &<< 16), to: Row16.self) }
        return (join(even.0, odd.0), join(even.1, odd.1), join(even.2, odd.2), join(even.3, odd.3),
                join(even.4, odd.4), join(even.5, odd.5), join(even.6, odd.6), join(even.7, odd.7))
    }

    /// Transposes 8×8 16-bit values in three rounds of interleaving pairs of vectors — 16-bit,
    /// then 32-bit, then 64-bit units — each of which is one SSE2 unpack (PUNPCKL/H WD, DQ, QDQ).
    @inline(__always)
    static func transpose(_ m: inout Rows16) {
        @inline(__always) func low16(_ a: Row16, _ b: Row16) -> Row16 { Row16(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3]) }
        @inline(__always) func high16(_ a: Row16, _ b: Row16) -> Row16 { Row16(a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7]) }
        @inline(__always) func low32(_ a: Row16, _ b: Row16) -> Row16 {
            let x = unsafeBitCast(a, to: SIMD4<Int32>.self), y = unsafeBitCast(b, to: SIMD4<Int32>.self)
            return unsafeBitCast(SIMD4<Int32>(x[0], y[0], x[1], y[1]), to: Row16.self)
        }
        @inline(__always) func high32(_ a: Row16, _ b: Row16) -> Row16 {
            let x = unsafeBitCast(a, to: SIMD4<Int32>.self), y = unsafeBitCast(b, to: SIMD4<Int32>.self)
            return unsafeBitCast(SIMD4<Int32>(x[2], y[2], x[3], y[3]), to: Row16.self)
        }
        @inline(__always) func low64(_ a: Row16, _ b: Row16) -> Row16 { Row16(lowHalf: a.lowHalf, highHalf: b.lowHalf) }
        @inline(__always) func high64(_ a: Row16, _ b: Row16) -> Row16 { Row16(lowHalf: a.highHalf, highHalf: b.highHalf) }
        // Rows ab of the 2×2 blocks of 1, then of 2, then of 4 values.
        let a0 = low16(m.0, m.1), a1 = high16(m.0, m.1), a2 = low16(m.2, m.3), a3 = high16(m.2, m.3)
        let a4 = low16(m.4, m.5), a5 = high16(m.4, m.5), a6 = low16(m.6, m.7), a7 = high16(m.6, m.7)
        let b0 = low32(a0, a2), b1 = high32(a0, a2), b2 = low32(a1, a3), b3 = high32(a1, a3)
        let b4 = low32(a4, a6), b5 = high32(a4, a6), b6 = low32(a5, a7), b7 = high32(a5, a7)
        m = (low64(b0, b4), high64(b0, b4), low64(b1, b5), high64(b1, b5),
             low64(b2, b6), high64(b2, b6), low64(b3, b7), high64(b3, b7))
    }

    /// `butterfly` on four lanes, in place: inputs x0…x7, outputs in frequency order.
    /// Every multiplicand fits 16 bits — at most 8 × 255 in the row pass, and in the column
    /// pass a sum of eight row-pass outputs of one frequency, below 4 × (4 × 8 × 127 + 4 × 8 × 128)
    /// = 32,640 — so each product is taken from the low 16 bits of its lane (`times`), which SSE2 does in one
    /// multiply-add (PMADDWD) where a 32-bit lane product takes six instructions.
    @inline(__always)
    static func butterflyLanes(_ m: inout LaneMatrix, rowPass: Bool) {
        let descaleBits = Int32(rowPass ? constBits - pass1Bits : constBits + pass1Bits)
        let round = Lanes(repeating: 1 &<< (descaleBits &- 1))
        @inline(__always) func descale(_ x: Lanes) -> Lanes { (x &+ round) &>> descaleBits }
        @inline(__always) func times(_ x: Lanes, _ c: Int32) -> Lanes { ((x &<< 16) &>> 16) &* c }
        let tmp0 = m.0 &+ m.7, tmp7 = m.0 &- m.7
        let tmp1 = m.1 &+ m.6, tmp6 = m.1 &- m.6
        let tmp2 = m.2 &+ m.5, tmp5 = m.2 &- m.5
        let tmp3 = m.3 &+ m.4, tmp4 = m.3 &- m.4

        // Even part.
        let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3
        let tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2
        let d0: Lanes, d4: Lanes
        if rowPass {
            d0 = (tmp10 &+ tmp11) &<< Int32(pass1Bits)
            d4 = (tmp10 &- tmp11) &<< Int32(pass1Bits)
        } else {
            let half = Lanes(repeating: 1 &<< Int32(pass1Bits - 1))
            d0 = (tmp10 &+ tmp11 &+ half) &>> Int32(pass1Bits)
            d4 = (tmp10 &- tmp11 &+ half) &>> Int32(pass1Bits)
        }
        let z1 = times(tmp12 &+ tmp13, c0_541196100)
        let d2 = descale(z1 &+ times(tmp13, c0_765366865))
        let d6 = descale(z1 &- times(tmp12, c1_847759065))

        // Odd part.
        let z5 = times(tmp4 &+ tmp5 &+ tmp6 &+ tmp7, c1_175875602)
        let o4 = times(tmp4, c0_298631336), o5 = times(tmp5, c2_053119869)
        let o6 = times(tmp6, c3_072711026), o7 = times(tmp7, c1_501321110)
        let y1 = times(tmp4 &+ tmp7, -c0_899976223)
        let y2 = times(tmp5 &+ tmp6, -c2_562915447)
        let y3 = times(tmp4 &+ tmp6, -c1_961570560) &+ z5
        let y4 = times(tmp5 &+ tmp7, -c0_390180644) &+ z5
        m = (d0, descale(o7 &+ y1 &+ y4), d2, descale(o6 &+ y2 &+ y3),
             d4, descale(o5 &+ y2 &+ y4), d6, descale(o4 &+ y1 &+ y3))
    }
}
