/// Dequantisation and inverse DCT (T.81 A.3.3, Figure A.5's IDCT; F.2.1.5 dequantisation),
/// fused: each coefficient is multiplied by its quantiser as it is read.
///
/// The 8×8 transform is libjpeg's integer "islow" method (the Loeffler–Ligtenberg–Moschytz
/// factorisation with 13-bit constants and 2 extra bits of precision between the passes), so
/// its output matches `djpeg -dct int` exactly. The reduced transforms (4×4, 2×2, 1×1) give
/// the mean of each 2×2, 4×4 or 8×8 group of the full transform's output, computed straight
/// from the coefficients; the frequencies whose contribution to those means is zero are
/// never read (nor dequantised), and at 1×1 only DC is left.
enum InverseDCT {
    static let constBits = 13
    static let pass1Bits = 2
    /// The descaling shifts of the two passes of the 8×8 transform: the first keeps
    /// `pass1Bits` of the constants' `constBits` as extra precision; the second removes
    /// them and the factor 8 of the two 1-D passes (each scaled by √8, T.81 A.3.3's 1/4·C(u)C(v)
    /// being 1/8 of that). The reduced transforms shift one (4×4) or two (2×2) bits more for
    /// their doubled and quadrupled means.
    static let pass1Shift = constBits - pass1Bits
    static let pass2Shift = constBits + pass1Bits + 3

    // 13-bit fixed-point constants: round(x · 2^13).
    static let fix0_298631336 = 2446
    static let fix0_390180644 = 3196
    static let fix0_541196100 = 4433
    static let fix0_765366865 = 6270
    static let fix0_899976223 = 7373
    static let fix1_175875602 = 9633
    static let fix1_501321110 = 12299
    static let fix1_847759065 = 15137
    static let fix1_961570560 = 16069
    static let fix2_053119869 = 16819
    static let fix2_562915447 = 20995
    static let fix3_072711026 = 25172

    /// Level shift (+128, T.81 A.3.1) and limiting to 0…255 of a descaled IDCT output.
    /// Saturating, as libjpeg-turbo's SIMD transforms do (its portable C wraps absurd values
    /// through a table instead; only corrupt data tells the two apart).
    @inline(__always)
    static func limit(_ x: Int) -> UInt8 {
        let t = x &+ 128
        return UInt8(truncatingIfNeeded: t < 0 ? 0 : (t > 255 ? 255 : t))
    }

    /// The 8×8 transform keeps libjpeg-turbo's SIMD arithmetic where it departs from exact
    /// integers, which only corrupt data can reach: dequantised values and the sums
    /// X0 ± X4, X1 + X5, X3 + X7 wrap to 16 bits, and first-pass results saturate to 16 bits.
    @inline(__always)
    static func dq(_ coefficient: Int16, _ quantizer: Int32) -> Int {
        Int(Int16(truncatingIfNeeded: Int(coefficient) &* Int(quantizer)))
    }

    @inline(__always)
    static func wrap16(_ x: Int) -> Int {
        Int(Int16(truncatingIfNeeded: x))
    }

    /// The sample a DC-only block decodes to: DC·Q0/8, rounded, plus 128. At size 8 in the
    /// 16-bit arithmetic of the full transform (see `transform8`); at size 1 wrapping as
    /// libjpeg's table does.
    @inline(__always)
    static func dcSample(_ coefficient: Int16, _ quantizer: Int32, size: Int) -> UInt8 {
        if size == 8 {
            return limit((wrap16(dq(coefficient, quantizer) &<< pass1Bits) &+ 16) &>> 5)
        }
        let value = (Int(coefficient) &* Int(quantizer) &+ 4) &>> 3
        if size == 1 {
            // libjpeg's 1×1 transform is portable C, which wraps out-of-range values through
            // its 1024-entry range-limit table rather than saturating.
            let t = (value &+ 128) & 1023
            return t < 256 ? UInt8(truncatingIfNeeded: t) : (t < 640 ? 255 : 0)
        }
        return limit(value)
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

    /// Eight lanes of 32-bit arithmetic: the first pass runs on all eight columns at once.
    typealias Lanes = SIMD8<Int32>

    /// Row k of a block, dequantised (16-bit wrapping, see `dq`).
    @inline(__always)
    static func dequantizedRow(_ coefficients: UnsafePointer<Int16>, _ quantizers: UnsafePointer<Int32>,
                               _ k: Int) -> Lanes {
        let c = UnsafeRawPointer(coefficients + 8 * k).loadUnaligned(as: SIMD8<Int16>.self)
        let q = UnsafeRawPointer(quantizers + 8 * k).loadUnaligned(as: Lanes.self)
        return (Lanes(truncatingIfNeeded: c) &* q).wrappedTo16Bits
    }

    /// The block's samples through the transform of its size: 8 (full scale), 4 or 2 (1/2
    /// and 1/4, T.81 leaves the scaled output to the decoder); `lanes` is the full transform's
    /// workspace, `workspace` the reduced ones'. `firstRowOnly`: only the first row of
    /// coefficients holds nonzero values (used at size 8).
    @inline(__always)
    static func transform(size: Int, _ coefficients: UnsafePointer<Int16>, _ quantizers: UnsafePointer<Int32>,
                          output: UnsafeMutablePointer<UInt8>, stride: Int, lanes: UnsafeMutablePointer<Lanes>,
                          workspace: UnsafeMutablePointer<Int32>, firstRowOnly: Bool) {
        switch size {
        case 8:
            #if hasFeature(Embedded)
            // Small cores have no vector unit: the eight-lane form unrolls into ~10 KB of code.
            transform8Scalar(coefficients, quantizers, output: output, stride: stride, workspace: workspace,
                             firstRowOnly: firstRowOnly)
            #else
            transform8(coefficients, quantizers, output: output, stride: stride, firstRowOnly: firstRowOnly)
            #endif
        case 4:
            #if hasFeature(Embedded)
            transform4Plain(coefficients, quantizers, output: output, stride: stride, workspace: workspace)
            #else
            transform4(coefficients, quantizers, output: output, stride: stride)
            #endif
        default:
            #if hasFeature(Embedded)
            transform2Plain(coefficients, quantizers, output: output, stride: stride, workspace: workspace)
            #else
            transform2(coefficients, quantizers, output: output, stride: stride)
            #endif
        }
    }

    /// The full 8×8 islow transform in 32-bit lanes, the flow graph as libjpeg states it:
    /// the oracle of `transform8`. `workspace` holds 8 rows of lanes. `firstRowOnly` says
    /// that rows 1…7 of the block are zero, when the first pass reduces to a shift.
    static func transform8Wide(_ coefficients: UnsafePointer<Int16>, _ quantizers: UnsafePointer<Int32>,
                           output: UnsafeMutablePointer<UInt8>, stride: Int,
                           workspace: UnsafeMutablePointer<Lanes>, firstRowOnly: Bool) {
        // Pass 1: columns, from coefficients to the workspace, scaled up by 2^pass1Bits; lane c
        // of workspace row k is row k of column c.
        if firstRowOnly {
            let value = (dequantizedRow(coefficients, quantizers, 0) &<< Int32(pass1Bits)).wrappedTo16Bits
            for k in 0 ..< 8 { workspace[k] = value }
        } else {
            var m: LaneMatrix = (dequantizedRow(coefficients, quantizers, 0), dequantizedRow(coefficients, quantizers, 1),
                                 dequantizedRow(coefficients, quantizers, 2), dequantizedRow(coefficients, quantizers, 3),
                                 dequantizedRow(coefficients, quantizers, 4), dequantizedRow(coefficients, quantizers, 5),
                                 dequantizedRow(coefficients, quantizers, 6), dequantizedRow(coefficients, quantizers, 7))
            butterfly(&m)
            let shift = Int32(pass1Shift), round = Lanes(repeating: 1 << (pass1Shift - 1))
            let low = Lanes(repeating: -32768), high = Lanes(repeating: 32767)
            @inline(__always) func descale(_ v: Lanes) -> Lanes {
                ((v &+ round) &>> shift).clamped(lowerBound: low, upperBound: high)
            }
            workspace[0] = descale(m.0)
            workspace[1] = descale(m.1)
            workspace[2] = descale(m.2)
            workspace[3] = descale(m.3)
            workspace[4] = descale(m.4)
            workspace[5] = descale(m.5)
            workspace[6] = descale(m.6)
            workspace[7] = descale(m.7)
        }

        // Pass 2: rows, all eight at once. After a transpose, lane r of vector j is input j of
        // row r; after the second, vector r holds row r's eight samples. The arithmetic is
        // 32-bit, as in libjpeg-turbo's SIMD transform.
        var m = (workspace[0], workspace[1], workspace[2], workspace[3],
                 workspace[4], workspace[5], workspace[6], workspace[7])
        transpose(&m)
        butterfly(&m)
        let shift = Int32(pass2Shift), round = Lanes(repeating: 1 << (pass2Shift - 1))
        let level = Lanes(repeating: 128), zero = Lanes(repeating: 0), top = Lanes(repeating: 255)
        @inline(__always) func samples(_ v: Lanes) -> Lanes {
            (((v &+ round) &>> shift) &+ level).clamped(lowerBound: zero, upperBound: top)
        }
        m = (samples(m.0), samples(m.1), samples(m.2), samples(m.3), samples(m.4), samples(m.5), samples(m.6), samples(m.7))
        transpose(&m)
        storeRows(m, output: output, stride: stride)
    }

    /// Writes a block's eight rows of samples (lanes already limited to 0…255) as bytes:
    /// row r to `output + r·stride`. The last step of both full transforms, whatever their
    /// lane width.
    @inline(__always)
    static func storeRows<T: FixedWidthInteger & SIMDScalar>(
        _ m: (SIMD8<T>, SIMD8<T>, SIMD8<T>, SIMD8<T>, SIMD8<T>, SIMD8<T>, SIMD8<T>, SIMD8<T>),
        output: UnsafeMutablePointer<UInt8>, stride: Int
    ) {
        // SAFETY: the caller's block is 8 rows of at least 8 bytes, `stride` apart.
        @inline(__always) func store(_ v: SIMD8<T>, _ row: Int) {
            UnsafeMutableRawPointer(output + row * stride).storeBytes(of: ShortLanes.lanes(v, as: UInt8.self),
                                                                      as: ShortLanes.Bytes.self)
        }
        store(m.0, 0)
        store(m.1, 1)
        store(m.2, 2)
        store(m.3, 3)
        store(m.4, 4)
        store(m.5, 5)
        store(m.6, 6)
        store(m.7, 7)
    }

    /// The full 8×8 islow transform a column, then a row, at a time in scalar 32-bit
    /// arithmetic, with the 16-bit wrapping and saturation of `transform8Wide` (its oracle
    /// too, StageTests): the form for cores without a vector unit (the Embedded builds).
    /// `workspace` holds 64 values, row k of column c at 8·k + c.
    static func transform8Scalar(_ coefficients: UnsafePointer<Int16>, _ quantizers: UnsafePointer<Int32>,
                                 output: UnsafeMutablePointer<UInt8>, stride: Int,
                                 workspace: UnsafeMutablePointer<Int32>, firstRowOnly: Bool) {
        // Pass 1: columns, scaled up by 2^pass1Bits, saturated to 16 bits.
        let shift1 = Int32(constBits - pass1Bits), round1 = Int32(1 << (constBits - pass1Bits - 1))
        for c in 0 ..< 8 {
            // SAFETY: c < 8 and k < 8, so 8·k + c < 64: inside the block, its quantisers and the workspace.
            @inline(__always) func x(_ k: Int) -> IDCTScalar {
                IDCTScalar(Int32(coefficients[8 * k + c]) &* quantizers[8 * k + c]).wrappedTo16Bits
            }
            if firstRowOnly {
                let value = (x(0) &<< Int32(pass1Bits)).wrappedTo16Bits.value
                for k in 0 ..< 8 { workspace[8 * k + c] = value }
                continue
            }
            var m = (x(0), x(1), x(2), x(3), x(4), x(5), x(6), x(7))
            butterfly(&m)
            each(m) { k, v in workspace[8 * k + c] = min(max((v.value &+ round1) &>> shift1, -32768), 32767) }
        }
        // Pass 2: rows, level-shifted and limited to 0…255.
        let shift2 = Int32(constBits + pass1Bits + 3), round2 = Int32(1 << (constBits + pass1Bits + 2))
        for r in 0 ..< 8 {
            // SAFETY: r < 8, so the row's eight values lie in the workspace's 64 and its
            // eight samples in output row r, which the caller provides (8 rows of `stride`).
            let w = workspace + 8 * r, out = output + r * stride
            var m = (IDCTScalar(w[0]), IDCTScalar(w[1]), IDCTScalar(w[2]), IDCTScalar(w[3]),
                     IDCTScalar(w[4]), IDCTScalar(w[5]), IDCTScalar(w[6]), IDCTScalar(w[7]))
            butterfly(&m)
            each(m) { j, v in out[j] = UInt8(truncatingIfNeeded: min(max(((v.value &+ round2) &>> shift2) &+ 128, 0), 255)) }
        }
    }

    /// Calls `body` with each of the eight values and its index.
    @inline(__always)
    static func each(_ m: (IDCTScalar, IDCTScalar, IDCTScalar, IDCTScalar, IDCTScalar, IDCTScalar, IDCTScalar, IDCTScalar),
                     _ body: (Int, IDCTScalar) -> Void) {
        body(0, m.0)
        body(1, m.1)
        body(2, m.2)
        body(3, m.3)
        body(4, m.4)
        body(5, m.5)
        body(6, m.6)
        body(7, m.7)
    }

    typealias LaneMatrix = (Lanes, Lanes, Lanes, Lanes, Lanes, Lanes, Lanes, Lanes)

    /// The 8-point islow IDCT on eight values at once (lanes, or scalars), in place: inputs
    /// X0…X7, outputs x0…x7, both scaled by 2^constBits (the callers descale). The even part
    /// (X0, X2, X4, X6) and the odd part (X1, X3, X5, X7) of the Loeffler–Ligtenberg–Moschytz
    /// flow graph; the sums X0 ± X4, X1 + X5 and X3 + X7 wrap to 16 bits, as in
    /// libjpeg-turbo's SIMD code.
    @inline(__always)
    static func butterfly<V: IDCTValue>(_ m: inout (V, V, V, V, V, V, V, V)) {
        var z2 = m.2, z3 = m.6
        var z1 = (z2 &+ z3) &* Int32(fix0_541196100)
        var tmp2 = z1 &+ z3 &* Int32(-fix1_847759065)
        var tmp3 = z1 &+ z2 &* Int32(fix0_765366865)
        var tmp0 = (m.0 &+ m.4).wrappedTo16Bits &<< Int32(constBits)
        var tmp1 = (m.0 &- m.4).wrappedTo16Bits &<< Int32(constBits)
        let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3, tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2

        tmp0 = m.7
        tmp1 = m.5
        tmp2 = m.3
        tmp3 = m.1
        z1 = tmp0 &+ tmp3
        z2 = tmp1 &+ tmp2
        z3 = (tmp0 &+ tmp2).wrappedTo16Bits
        var z4 = (tmp1 &+ tmp3).wrappedTo16Bits
        let z5 = (z3 &+ z4) &* Int32(fix1_175875602)
        tmp0 = tmp0 &* Int32(fix0_298631336)
        tmp1 = tmp1 &* Int32(fix2_053119869)
        tmp2 = tmp2 &* Int32(fix3_072711026)
        tmp3 = tmp3 &* Int32(fix1_501321110)
        z1 = z1 &* Int32(-fix0_899976223)
        z2 = z2 &* Int32(-fix2_562915447)
        z3 = z3 &* Int32(-fix1_961570560) &+ z5
        z4 = z4 &* Int32(-fix0_390180644) &+ z5
        tmp0 = tmp0 &+ z1 &+ z3
        tmp1 = tmp1 &+ z2 &+ z4
        tmp2 = tmp2 &+ z2 &+ z3
        tmp3 = tmp3 &+ z1 &+ z4
        m = (tmp10 &+ tmp3, tmp11 &+ tmp2, tmp12 &+ tmp1, tmp13 &+ tmp0,
             tmp13 &- tmp0, tmp12 &- tmp1, tmp11 &- tmp2, tmp10 &- tmp3)
    }

    /// Transposes 8×8 lanes: three rounds of splitting the 64 values into even and odd
    /// positions, each of which rotates the six bits of an index (row, column) by one.
    @inline(__always)
    static func transpose(_ m: inout LaneMatrix) {
        for _ in 0 ..< 3 {
            let a = SIMD16(lowHalf: m.0, highHalf: m.1), b = SIMD16(lowHalf: m.2, highHalf: m.3)
            let c = SIMD16(lowHalf: m.4, highHalf: m.5), d = SIMD16(lowHalf: m.6, highHalf: m.7)
            m = (a.evenHalf, b.evenHalf, c.evenHalf, d.evenHalf, a.oddHalf, b.oddHalf, c.oddHalf, d.oddHalf)
        }
    }

    // MARK: 16-bit lanes

    typealias Short = ShortLanes.Short
    typealias Long = ShortLanes.Long

    @inline(__always)
    static func product(_ v: Short, _ k: Int) -> Long { ShortLanes.product(v, Int16(k)) }

    /// The 8-point islow IDCT on eight 16-bit lanes: `butterfly`'s flow graph with each sum
    /// of a product and a sum of products written as two products of 16-bit factors, its
    /// constants combined (z5 = (z3 + z4)·1.175875602 becomes z3·1.175875602 + z4·1.175875602,
    /// and so on), which is the same exact 32-bit value. Outputs x0…x7 scaled by 2^constBits.
    @inline(__always)
    static func butterfly16(_ x0: Short, _ x1: Short, _ x2: Short, _ x3: Short,
                            _ x4: Short, _ x5: Short, _ x6: Short, _ x7: Short) -> LaneMatrix {
        // Even part: (X2, X6) rotated by (0.541196100, −1.847759065, 0.765366865).
        let tmp3 = product(x2, (fix0_541196100 + fix0_765366865)) &+ product(x6, (fix0_541196100))
        let tmp2 = product(x2, (fix0_541196100)) &+ product(x6, (fix0_541196100 - fix1_847759065))
        let tmp0 = ShortLanes.widen(x0 &+ x4) &<< Int32(constBits)
        let tmp1 = ShortLanes.widen(x0 &- x4) &<< Int32(constBits)
        let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3, tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2

        // Odd part: z3 = X7 + X3 and z4 = X5 + X1 wrap to 16 bits, as in `butterfly`.
        let z3 = x7 &+ x3, z4 = x5 &+ x1
        let z3r = product(z3, (fix1_175875602 - fix1_961570560)) &+ product(z4, (fix1_175875602))
        let z4r = product(z3, (fix1_175875602)) &+ product(z4, (fix1_175875602 - fix0_390180644))
        let o0 = product(x7, (fix0_298631336 - fix0_899976223)) &+ product(x1, (-fix0_899976223)) &+ z3r
        let o1 = product(x5, (fix2_053119869 - fix2_562915447)) &+ product(x3, (-fix2_562915447)) &+ z4r
        let o2 = product(x3, (fix3_072711026 - fix2_562915447)) &+ product(x5, (-fix2_562915447)) &+ z3r
        let o3 = product(x1, (fix1_501321110 - fix0_899976223)) &+ product(x7, (-fix0_899976223)) &+ z4r
        return (tmp10 &+ o3, tmp11 &+ o2, tmp12 &+ o1, tmp13 &+ o0,
                tmp13 &- o0, tmp12 &- o1, tmp11 &- o2, tmp10 &- o3)
    }

    typealias ShortMatrix = (Short, Short, Short, Short, Short, Short, Short, Short)

    /// a0 b0 a1 b1 a2 b2 a3 b3 (x86: punpcklwd).
    @inline(__always)
    static func interleaveLow(_ a: Short, _ b: Short) -> Short {
        Short(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3])
    }

    /// a4 b4 a5 b5 a6 b6 a7 b7 (x86: punpckhwd).
    @inline(__always)
    static func interleaveHigh(_ a: Short, _ b: Short) -> Short {
        Short(a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7])
    }

    /// The same on pairs and on quadruples of 16-bit lanes.
    @inline(__always)
    static func interleaveLow32(_ a: Short, _ b: Short) -> Short {
        let x = unsafeBitCast(a, to: SIMD4<Int32>.self), y = unsafeBitCast(b, to: SIMD4<Int32>.self)
        return unsafeBitCast(SIMD4<Int32>(x[0], y[0], x[1], y[1]), to: Short.self)
    }

    @inline(__always)
    static func interleaveHigh32(_ a: Short, _ b: Short) -> Short {
        let x = unsafeBitCast(a, to: SIMD4<Int32>.self), y = unsafeBitCast(b, to: SIMD4<Int32>.self)
        return unsafeBitCast(SIMD4<Int32>(x[2], y[2], x[3], y[3]), to: Short.self)
    }

    @inline(__always)
    static func interleaveLow64(_ a: Short, _ b: Short) -> Short {
        let x = unsafeBitCast(a, to: SIMD2<Int64>.self), y = unsafeBitCast(b, to: SIMD2<Int64>.self)
        return unsafeBitCast(SIMD2<Int64>(x[0], y[0]), to: Short.self)
    }

    @inline(__always)
    static func interleaveHigh64(_ a: Short, _ b: Short) -> Short {
        let x = unsafeBitCast(a, to: SIMD2<Int64>.self), y = unsafeBitCast(b, to: SIMD2<Int64>.self)
        return unsafeBitCast(SIMD2<Int64>(x[1], y[1]), to: Short.self)
    }

    /// Transposes 8×8 16-bit lanes in three rounds of interleaving: 16-bit lanes of row
    /// pairs, then 32-bit pairs, then 64-bit quadruples.
    @inline(__always)
    static func transpose(_ m: ShortMatrix) -> ShortMatrix {
        let a0 = interleaveLow(m.0, m.1), a1 = interleaveHigh(m.0, m.1)
        let a2 = interleaveLow(m.2, m.3), a3 = interleaveHigh(m.2, m.3)
        let a4 = interleaveLow(m.4, m.5), a5 = interleaveHigh(m.4, m.5)
        let a6 = interleaveLow(m.6, m.7), a7 = interleaveHigh(m.6, m.7)
        let b0 = interleaveLow32(a0, a2), b1 = interleaveHigh32(a0, a2)
        let b2 = interleaveLow32(a1, a3), b3 = interleaveHigh32(a1, a3)
        let b4 = interleaveLow32(a4, a6), b5 = interleaveHigh32(a4, a6)
        let b6 = interleaveLow32(a5, a7), b7 = interleaveHigh32(a5, a7)
        return (interleaveLow64(b0, b4), interleaveHigh64(b0, b4), interleaveLow64(b1, b5), interleaveHigh64(b1, b5),
                interleaveLow64(b2, b6), interleaveHigh64(b2, b6), interleaveLow64(b3, b7), interleaveHigh64(b3, b7))
    }

    /// Row `k` of a block, dequantised, in 16-bit lanes: its eight coefficients times their
    /// quantisers, wrapping as the 16-bit transforms' dequantising does (the low 16 bits of a
    /// product depend only on the low 16 bits of its factors).
    @inline(__always)
    static func dequantizedRow(_ k: Int, _ coefficients: UnsafePointer<Int16>,
                               _ quantizers: UnsafePointer<Int32>) -> Short {
        // SAFETY: k < 8 (every caller passes a literal row 0…7): row k of the block's 64
        // coefficients and 64 quantisers.
        let c = UnsafeRawPointer(coefficients + 8 * k).loadUnaligned(as: Short.self)
        let q = UnsafeRawPointer(quantizers + 8 * k).loadUnaligned(as: Long.self)
        return c &* ShortLanes.truncate(q)
    }

    /// The full 8×8 islow transform in 16-bit lanes, as libjpeg-turbo's SIMD transforms
    /// work: coefficients, dequantised values and the workspace between the passes are 16-bit
    /// (dequantising and the sums X0 ± X4, X3 + X7, X1 + X5 wrap, first-pass results
    /// saturate), products and the sums of products 32-bit. The same values as
    /// `transform8Wide`, its oracle in 32-bit lanes (StageTests compares the two).
    /// `firstRowOnly` says that rows 1…7 of the block are zero, when the first pass reduces to
    /// a shift.
    static func transform8(_ coefficients: UnsafePointer<Int16>, _ quantizers: UnsafePointer<Int32>,
                           output: UnsafeMutablePointer<UInt8>, stride: Int, firstRowOnly: Bool) {
        @inline(__always) func row(_ k: Int) -> Short { dequantizedRow(k, coefficients, quantizers) }
        // Pass 1: columns, lane c of vector k being row k of column c; scaled up by 2^pass1Bits.
        var m: ShortMatrix
        if firstRowOnly {
            let value = row(0) &<< Int16(pass1Bits)
            m = (value, value, value, value, value, value, value, value)
        } else {
            let p = butterfly16(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
            let shift = Int32(pass1Shift), round = Long(repeating: 1 << (pass1Shift - 1))
            @inline(__always) func descale(_ v: Long) -> Short { ShortLanes.saturate((v &+ round) &>> shift) }
            m = (descale(p.0), descale(p.1), descale(p.2), descale(p.3),
                 descale(p.4), descale(p.5), descale(p.6), descale(p.7))
        }
        // Pass 2: rows. After the transpose, lane r of vector j is input j of row r. Any
        // 32-bit value shifted right by pass2Shift (18) lies in −8192…8191, so the descaled
        // value and its level shift fit 16 bits as they are (libjpeg-turbo packs them with
        // saturation, which never acts here); only the limit to 0…255 remains.
        m = transpose(m)
        let p = butterfly16(m.0, m.1, m.2, m.3, m.4, m.5, m.6, m.7)
        let shift = Int32(pass2Shift), round = Long(repeating: 1 << (pass2Shift - 1))
        let level = Short(repeating: 128)
        @inline(__always) func samples(_ v: Long) -> Short {
            ShortLanes.limitToByte(ShortLanes.truncate((v &+ round) &>> shift) &+ level)
        }
        storeRows(transpose((samples(p.0), samples(p.1), samples(p.2), samples(p.3),
                             samples(p.4), samples(p.5), samples(p.6), samples(p.7))),
                  output: output, stride: stride)
    }

    /// The frequencies of one axis that the transform of `size` reads, bit u for frequency u:
    /// all eight at 8; with `exact`, those `transform4` (all but 4) and `transform2` (0, 1, 3,
    /// 5, 7) read, else only the size × size corner.
    static func frequencyMask(size: Int, exact: Bool) -> Int {
        switch size {
        case 8: return 0xFF
        case 4: return exact ? 0b1110_1111 : 0b0000_1111
        case 2: return exact ? 0b1010_1011 : 0b0000_0011
        default: return 0b0000_0001
        }
    }

    /// Whether the transform with frequency mask `mask` (`frequencyMask`) reads the
    /// coefficient at `natural` (row-major index u + 8·v).
    static func reads(_ natural: Int, mask: Int) -> Bool {
        (mask >> (natural & 7)) & (mask >> (natural >> 3)) & 1 != 0
    }

    // Constants of the reduced transforms (see `transform4`, `transform2`), round(x · 2^13).
    // Pair means: 2√2·cos(kπ/16)·cos(kπ/8) and 2√2·cos(kπ/16)·cos(3kπ/8), k = 1, 3, 5, 7.
    static let pairEven1 = 20995, pairEven3 = 7373, pairEven5 = -4926, pairEven7 = -4176
    static let pairOdd1 = 8697, pairOdd3 = -17799, pairOdd5 = 11893, pairOdd7 = -1730
    // Quad means: 4√2·cos(kπ/16)·cos(kπ/8)·cos(kπ/4), k = 1, 3, 5, 7.
    static let quad1 = 29692, quad3 = -10426, quad5 = 6967, quad7 = -5906

    /// One 8→4 step: the means of adjacent output pairs of the 8-point IDCT. With
    /// x(n) = Σ C(k)/2·X(k)·cos((2n+1)kπ/16), (x(2m) + x(2m+1))/2 = Σ C(k)/2·X(k)·cos(kπ/16)·cos((2m+1)kπ/8),
    /// in which frequency 4 vanishes; the result is doubled (the caller shifts one bit more).
    @inline(__always)
    static func pairMeans(_ x0: Int, _ x1: Int, _ x2: Int, _ x3: Int, _ x5: Int, _ x6: Int, _ x7: Int)
        -> (Int, Int, Int, Int) {
        let dc = x0 &<< (constBits + 1)
        let even = x2 &* fix1_847759065 &- x6 &* fix0_765366865
        let e0 = dc &+ even, e1 = dc &- even
        let o0 = x1 &* pairEven1 &+ x3 &* pairEven3 &+ x5 &* pairEven5 &+ x7 &* pairEven7
        let o1 = x1 &* pairOdd1 &+ x3 &* pairOdd3 &+ x5 &* pairOdd5 &+ x7 &* pairOdd7
        return (e0 &+ o0, e1 &+ o1, e1 &- o1, e0 &- o0)
    }

    /// The 4×4 transform (scale 1/2): each output is the mean of a 2×2 group of the full
    /// 8×8 IDCT's output, computed directly from the coefficients (libjpeg's reduced IDCT, so
    /// outputs agree with `djpeg -scale 1/2`). Row and column 4 of the block contribute nothing
    /// and are never read. Column by column, then row by row, in scalar arithmetic: the
    /// oracle of `transform4` and the form for cores without a vector unit.
    static func transform4Plain(_ coefficients: UnsafePointer<Int16>, _ quantizers: UnsafePointer<Int32>,
                                output: UnsafeMutablePointer<UInt8>, stride: Int,
                                workspace: UnsafeMutablePointer<Int32>) {
        let shift1 = pass1Shift + 1, round1 = 1 << (shift1 - 1)
        for column in 0 ..< 8 where column != 4 {
            let c = coefficients + column, q = quantizers + column, w = workspace + column
            // Most columns of a photo's block are zero and give zeros.
            guard c[0] | c[8] | c[16] | c[24] | c[40] | c[48] | c[56] != 0 else {
                w[0] = 0
                w[8] = 0
                w[16] = 0
                w[24] = 0
                continue
            }
            @inline(__always) func x(_ k: Int) -> Int { Int(c[8 * k]) &* Int(q[8 * k]) }
            let (y0, y1, y2, y3) = pairMeans(x(0), x(1), x(2), x(3), x(5), x(6), x(7))
            w[0] = Int32(truncatingIfNeeded: (y0 &+ round1) &>> shift1)
            w[8] = Int32(truncatingIfNeeded: (y1 &+ round1) &>> shift1)
            w[16] = Int32(truncatingIfNeeded: (y2 &+ round1) &>> shift1)
            w[24] = Int32(truncatingIfNeeded: (y3 &+ round1) &>> shift1)
        }
        let shift2 = pass2Shift + 1, round2 = 1 << (shift2 - 1)
        for row in 0 ..< 4 {
            let w = workspace + 8 * row, out = output + row * stride
            let (y0, y1, y2, y3) = pairMeans(Int(w[0]), Int(w[1]), Int(w[2]), Int(w[3]), Int(w[5]), Int(w[6]), Int(w[7]))
            out[0] = limit((y0 &+ round2) &>> shift2)
            out[1] = limit((y1 &+ round2) &>> shift2)
            out[2] = limit((y2 &+ round2) &>> shift2)
            out[3] = limit((y3 &+ round2) &>> shift2)
        }
    }

    /// `pairMeans` on eight 16-bit lanes, each product one of a 16-bit value and a 16-bit
    /// constant (every constant of the step fits), summed in 32 bits.
    @inline(__always)
    static func pairMeans16(_ x0: Short, _ x1: Short, _ x2: Short, _ x3: Short, _ x5: Short, _ x6: Short, _ x7: Short)
        -> (Long, Long, Long, Long) {
        let dc = ShortLanes.widen(x0) &<< Int32(constBits + 1)
        let even = product(x2, fix1_847759065) &+ product(x6, -fix0_765366865)
        let e0 = dc &+ even, e1 = dc &- even
        let o0 = product(x1, pairEven1) &+ product(x3, pairEven3) &+ product(x5, pairEven5) &+ product(x7, pairEven7)
        let o1 = product(x1, pairOdd1) &+ product(x3, pairOdd3) &+ product(x5, pairOdd5) &+ product(x7, pairOdd7)
        return (e0 &+ o0, e1 &+ o1, e1 &- o1, e0 &- o0)
    }

    /// The 4×4 transform of `transform4Plain` in 16-bit lanes, as libjpeg-turbo's SIMD
    /// reduced transform works: dequantised values and the four rows between the passes are
    /// 16-bit (dequantising wraps, first-pass results saturate), products and their sums
    /// 32-bit. The first pass runs on the eight columns at once; the second on the four rows
    /// at once, in the low half of each vector, after a transpose. For every block whose
    /// dequantised values and first-pass results fit 16 bits, which every block a JPEG
    /// encoder makes from 8-bit samples does, the same samples as `transform4Plain`
    /// (StageTests compares the two).
    static func transform4(_ coefficients: UnsafePointer<Int16>, _ quantizers: UnsafePointer<Int32>,
                           output: UnsafeMutablePointer<UInt8>, stride: Int) {
        @inline(__always) func row(_ k: Int) -> Short { dequantizedRow(k, coefficients, quantizers) }
        // Pass 1: columns, lane c of vector r being row r of column c.
        let p = pairMeans16(row(0), row(1), row(2), row(3), row(5), row(6), row(7))
        let shift1 = Int32(pass1Shift + 1), round1 = Long(repeating: 1 << pass1Shift)
        @inline(__always) func descale(_ v: Long) -> Short { ShortLanes.saturate((v &+ round1) &>> shift1) }
        let w0 = descale(p.0), w1 = descale(p.1), w2 = descale(p.2), w3 = descale(p.3)
        // Transpose: the low half of column c's vector holds rows 0…3 of column c.
        let a = interleaveLow(w0, w1), b = interleaveLow(w2, w3), c = interleaveHigh(w0, w1), d = interleaveHigh(w2, w3)
        let columns01 = interleaveLow32(a, b), columns23 = interleaveHigh32(a, b)
        let columns45 = interleaveLow32(c, d), columns67 = interleaveHigh32(c, d)
        // Pass 2: rows, lane r (of the low four) being row r; any 32-bit value shifted right
        // 19 fits 16 bits, so only the limit to 0…255 remains after the level shift.
        let q = pairMeans16(columns01, interleaveHigh64(columns01, columns01), columns23,
                            interleaveHigh64(columns23, columns23), interleaveHigh64(columns45, columns45),
                            columns67, interleaveHigh64(columns67, columns67))
        let shift2 = Int32(pass2Shift + 1), round2 = Long(repeating: 1 << pass2Shift)
        let level = Short(repeating: 128)
        @inline(__always) func samples(_ v: Long) -> Short {
            ShortLanes.limitToByte(ShortLanes.truncate((v &+ round2) &>> shift2) &+ level)
        }
        // Output column j is vector j; interleaved, row r's four samples are 32-bit lane r.
        let s0 = samples(q.0), s1 = samples(q.1), s2 = samples(q.2), s3 = samples(q.3)
        let rows = ShortLanes.lanes(interleaveLow32(interleaveLow(s0, s1), interleaveLow(s2, s3)), as: UInt8.self)
        let words = unsafeBitCast(rows, to: SIMD2<UInt32>.self)
        let upper = ShortLanes.lanes(interleaveHigh32(interleaveLow(s0, s1), interleaveLow(s2, s3)), as: UInt8.self)
        let more = unsafeBitCast(upper, to: SIMD2<UInt32>.self)
        // SAFETY: the caller's block is 4 rows of at least 4 bytes, `stride` apart.
        UnsafeMutableRawPointer(output).storeBytes(of: words[0], as: UInt32.self)
        UnsafeMutableRawPointer(output + stride).storeBytes(of: words[1], as: UInt32.self)
        UnsafeMutableRawPointer(output + 2 * stride).storeBytes(of: more[0], as: UInt32.self)
        UnsafeMutableRawPointer(output + 3 * stride).storeBytes(of: more[1], as: UInt32.self)
    }

    /// One 8→2 step: the means of the two halves of the 8-point IDCT's output,
    /// Σ C(k)/2·X(k)·cos(kπ/16)·cos(kπ/8)·cos((2m+1)kπ/4), where frequencies 2, 4 and 6
    /// vanish; scaled by 4.
    @inline(__always)
    static func quadMeans(_ x0: Int, _ x1: Int, _ x3: Int, _ x5: Int, _ x7: Int) -> (Int, Int) {
        let dc = x0 &<< (constBits + 2)
        let odd = x1 &* quad1 &+ x3 &* quad3 &+ x5 &* quad5 &+ x7 &* quad7
        return (dc &+ odd, dc &- odd)
    }

    /// `quadMeans` on eight 16-bit lanes, each product a 16-bit value times a 16-bit constant.
    @inline(__always)
    static func quadMeans16(_ x0: Short, _ x1: Short, _ x3: Short, _ x5: Short, _ x7: Short) -> (Long, Long) {
        let dc = ShortLanes.widen(x0) &<< Int32(constBits + 2)
        let odd = product(x1, quad1) &+ product(x3, quad3) &+ product(x5, quad5) &+ product(x7, quad7)
        return (dc &+ odd, dc &- odd)
    }

    /// 32-bit lane `lane` of `v` (a pair of 16-bit lanes) in every 32-bit lane.
    @inline(__always)
    static func broadcastPair(_ v: Short, _ lane: Int) -> Short {
        let pairs = unsafeBitCast(v, to: SIMD4<Int32>.self)
        return unsafeBitCast(SIMD4<Int32>(repeating: pairs[lane]), to: Short.self)
    }

    /// The 2×2 transform of `transform2Plain` in 16-bit lanes, as `transform4` is that of
    /// `transform4Plain`: the first pass on the eight columns at once, the second on the
    /// two rows at once (lanes 0 and 1) after a transpose. The same samples as
    /// `transform2Plain` for every block whose values fit 16 bits as an encoder's do
    /// (StageTests compares the two).
    static func transform2(_ coefficients: UnsafePointer<Int16>, _ quantizers: UnsafePointer<Int32>,
                           output: UnsafeMutablePointer<UInt8>, stride: Int) {
        @inline(__always) func row(_ k: Int) -> Short { dequantizedRow(k, coefficients, quantizers) }
        // Pass 1: columns, lane c of each result being row 0 or 1 of column c.
        let p = quadMeans16(row(0), row(1), row(3), row(5), row(7))
        let shift1 = Int32(pass1Shift + 2), round1 = Long(repeating: 1 << (pass1Shift + 1))
        let w0 = ShortLanes.saturate((p.0 &+ round1) &>> shift1), w1 = ShortLanes.saturate((p.1 &+ round1) &>> shift1)
        // Transpose: 32-bit lane j of `low` holds rows 0 and 1 of column j, of `high` of column 4 + j.
        let low = interleaveLow(w0, w1), high = interleaveHigh(w0, w1)
        // Pass 2: rows, lane r (of the low two) being row r; any 32-bit value shifted right 20
        // fits 16 bits, so only the limit to 0…255 remains after the level shift.
        let q = quadMeans16(low, broadcastPair(low, 1), broadcastPair(low, 3), broadcastPair(high, 1),
                            broadcastPair(high, 3))
        let shift2 = Int32(pass2Shift + 2), round2 = Long(repeating: 1 << (pass2Shift + 1))
        let level = Short(repeating: 128)
        @inline(__always) func samples(_ v: Long) -> Short {
            ShortLanes.limitToByte(ShortLanes.truncate((v &+ round2) &>> shift2) &+ level)
        }
        // Interleaved, row r's two samples are 16-bit lane r of the bytes.
        let rows = unsafeBitCast(ShortLanes.lanes(interleaveLow(samples(q.0), samples(q.1)), as: UInt8.self),
                                 to: SIMD4<UInt16>.self)
        // SAFETY: the caller's block is 2 rows of at least 2 bytes, `stride` apart.
        UnsafeMutableRawPointer(output).storeBytes(of: rows[0], as: UInt16.self)
        UnsafeMutableRawPointer(output + stride).storeBytes(of: rows[1], as: UInt16.self)
    }

    /// The 2×2 transform (scale 1/4): each output is the mean of a 4×4 quarter of the full
    /// IDCT's output; only rows and columns 0, 1, 3, 5 and 7 of the block contribute. In
    /// scalar arithmetic: the oracle of `transform2` and the form for cores without a vector
    /// unit.
    static func transform2Plain(_ coefficients: UnsafePointer<Int16>, _ quantizers: UnsafePointer<Int32>,
                                output: UnsafeMutablePointer<UInt8>, stride: Int,
                                workspace: UnsafeMutablePointer<Int32>) {
        let shift1 = pass1Shift + 2, round1 = 1 << (shift1 - 1)
        // Columns 0, 1, 3, 5 and 7, the ones the second pass reads, by a loop over the range
        // (one copy of the body; an array literal would cost more than the transform). Most
        // columns of a photo's block are zero and give zeros.
        for column in 0 ..< 8 where column == 0 || column & 1 == 1 {
            let c = coefficients + column, q = quantizers + column, w = workspace + column
            guard c[0] | c[8] | c[24] | c[40] | c[56] != 0 else {
                w[0] = 0
                w[8] = 0
                continue
            }
            @inline(__always) func x(_ k: Int) -> Int { Int(c[8 * k]) &* Int(q[8 * k]) }
            let (y0, y1) = quadMeans(x(0), x(1), x(3), x(5), x(7))
            w[0] = Int32(truncatingIfNeeded: (y0 &+ round1) &>> shift1)
            w[8] = Int32(truncatingIfNeeded: (y1 &+ round1) &>> shift1)
        }
        let shift2 = pass2Shift + 2, round2 = 1 << (shift2 - 1)
        for row in 0 ..< 2 {
            let w = workspace + 8 * row, out = output + row * stride
            let (y0, y1) = quadMeans(Int(w[0]), Int(w[1]), Int(w[3]), Int(w[5]), Int(w[7]))
            out[0] = limit((y0 &+ round2) &>> shift2)
            out[1] = limit((y1 &+ round2) &>> shift2)
        }
    }
}

/// What the islow flow graph (`InverseDCT.butterfly`) computes with: eight 32-bit lanes
/// (`transform8Wide`) or one 32-bit scalar (`transform8Scalar`), wrapping on overflow.
protocol IDCTValue {
    static func &+ (a: Self, b: Self) -> Self
    static func &- (a: Self, b: Self) -> Self
    static func &* (a: Self, b: Int32) -> Self
    static func &<< (a: Self, b: Int32) -> Self
    /// The low 16 bits, sign-extended.
    var wrappedTo16Bits: Self { get }
}

/// One 32-bit value of the scalar transform. (A type of its own: the standard library's
/// wrapping operators on `Int32` cannot witness a protocol's.)
struct IDCTScalar: IDCTValue {
    var value: Int32

    init(_ value: Int32) { self.value = value }

    static func &+ (a: IDCTScalar, b: IDCTScalar) -> IDCTScalar { IDCTScalar(a.value &+ b.value) }
    static func &- (a: IDCTScalar, b: IDCTScalar) -> IDCTScalar { IDCTScalar(a.value &- b.value) }
    static func &* (a: IDCTScalar, b: Int32) -> IDCTScalar { IDCTScalar(a.value &* b) }
    static func &<< (a: IDCTScalar, b: Int32) -> IDCTScalar { IDCTScalar(a.value &<< b) }
    var wrappedTo16Bits: IDCTScalar { IDCTScalar(Int32(Int16(truncatingIfNeeded: value))) }
}

extension SIMD8: IDCTValue where Scalar == Int32 {
    var wrappedTo16Bits: SIMD8<Int32> { (self &<< 16) &>> 16 }
}
