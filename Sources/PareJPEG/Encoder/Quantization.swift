import PareCore

/// Quantisation for encoding (T.81 A.3.4: Sq = round(S / Q)) with the tables of T.81 K.1
/// scaled by a quality as libjpeg scales them (`IJGQuality`), so that `quality 85` gives the
/// tables cjpeg's `-quality 85` gives.
enum Quantization {
    /// T.81 K.1 and K.2 scaled for `quality` as libjpeg scales them, entries at most 255 when
    /// the file must stay baseline (8-bit DQT entries, T.81 B.2.4.1), else 32,767.
    static func tables(quality: Int, forceBaseline: Bool, gray: Bool) -> [[UInt16]] {
        let ceiling = forceBaseline ? 255 : 32767
        let luminance = IJGQuality.scaled(IJGQuality.luminance, quality: quality, ceiling: ceiling)
        if gray { return [luminance] }
        return [luminance, IJGQuality.scaled(IJGQuality.chrominance, quality: quality, ceiling: ceiling)]
    }

    /// Rounded division of a forward-DCT output (which is 8 × the true coefficient) by
    /// 8 × Q, as T.81 A.3.4 defines it: the plain path, and the oracle for `Divisors`.
    static func quantize(_ value: Int32, q: UInt16) -> Int16 {
        let divisor = Int32(q) << 3
        let magnitude = (abs(value) + divisor >> 1) / divisor
        return Int16(value < 0 ? -magnitude : magnitude)
    }
}

/// Division by 8 × Q as two 16-bit multiplications, eight coefficients at a time — the idea
/// of libjpeg-turbo's reciprocal quantiser, derived here from Granlund and Montgomery's
/// bound. With n = |x| + 4Q (T.81 A.3.4's rounding), n < 2^16 whenever Q ≤ 255:
///
///     ⌊n / 8Q⌋ = ⌊n′ / Q⌋ with n′ = ⌊n / 8⌋ < 2^13;
///     ⌊n′ / Q⌋ = ⌊n′ · m / 2^(13+l)⌋ with l = max(1, ⌈log2 Q⌉) and m = ⌈2^(13+l) / Q⌉,
///
/// exact because m · Q − 2^(13+l) < Q ≤ 2^l (and m ≤ 2^14 fits 16 bits). In 16-bit lanes:
/// (8n′ · m) >> 16 is the first high multiply, and the >> l that follows is a high multiply
/// by 2^(16−l) (SSE2 has no per-lane 16-bit shift). Every baseline table (Q ≤ 255) takes this
/// path; a table with a larger entry (quality below about 20 without `forceBaseline`)
/// divides plainly with `Quantization.quantize`. `EncoderTests` checks both against the
/// plain division for every 16-bit input and every divisor.
struct Divisors {
    /// Per natural-order coefficient: 4Q, m and 2^(16−l) (narrow tables), and Q.
    let half: LedgerBuffer<UInt16>
    let reciprocal: LedgerBuffer<UInt16>
    let scale: LedgerBuffer<UInt16>
    let quantizers: LedgerBuffer<UInt16>
    /// Every Q ≤ 255: the multiplying path applies.
    let narrow: Bool

    init(_ q: [UInt16], ledger: MemoryLedger) throws(CoreError) {
        half = try ledger.allocate(UInt16.self, count: 64, initialValue: 0)
        reciprocal = try ledger.allocate(UInt16.self, count: 64, initialValue: 0)
        scale = try ledger.allocate(UInt16.self, count: 64, initialValue: 0)
        quantizers = try ledger.allocate(UInt16.self, count: 64, initialValue: 0)
        narrow = q.allSatisfy { $0 >= 1 && $0 <= 255 }
        for i in 0 ..< 64 {
            quantizers[i] = q[i]
            guard narrow else { continue }
            let divisor = Int(q[i])
            var l = 1
            while 1 << l < divisor { l += 1 }
            half[i] = UInt16(4 * divisor)
            reciprocal[i] = UInt16(((1 << (13 + l)) + divisor - 1) / divisor)
            scale[i] = UInt16(1 << (16 - l))
        }
    }

    /// Quantises the 64 DCT outputs `coefficients` into `block`, both in natural order (the
    /// entropy coders read the block in zig-zag order: `ZigZagScan`).
    @inline(never)
    func quantize(_ coefficients: UnsafePointer<Int16>, into block: UnsafeMutablePointer<Int16>) {
        // SAFETY: every table and `block` have 64 entries.
        if narrow {
            for r in 0 ..< 8 {
                let offset = 16 &* r
                let x = UnsafeRawPointer(coefficients).loadUnaligned(fromByteOffset: offset, as: SIMD8<Int16>.self)
                UnsafeMutableRawPointer(block).storeBytes(of: quantizeRow(x, r), toByteOffset: offset, as: SIMD8<Int16>.self)
            }
        } else {
            for i in 0 ..< 64 { block[i] = Quantization.quantize(Int32(coefficients[i]), q: quantizers[i]) }
        }
    }

    /// Natural row `r` of a block (eight DCT outputs) quantised by the multiplying path;
    /// `narrow` tables only.
    @inline(__always)
    func quantizeRow(_ x: SIMD8<Int16>, _ r: Int) -> SIMD8<Int16> {
        // SAFETY: r < 8, so the row's 16 bytes lie inside each table's 64 entries.
        let offset = 16 &* r
        let h = UnsafeRawPointer(half.baseAddress), m = UnsafeRawPointer(reciprocal.baseAddress)
        let s = UnsafeRawPointer(scale.baseAddress)
        let sign = x &>> 15
        let magnitude = unsafeBitCast((x ^ sign) &- sign, to: SIMD8<UInt16>.self)
        let n = (magnitude &+ h.loadUnaligned(fromByteOffset: offset, as: SIMD8<UInt16>.self)) & SIMD8(repeating: 0xFFF8)
        let quotient = ShortLanes.highProduct(
            ShortLanes.highProduct(n, m.loadUnaligned(fromByteOffset: offset, as: SIMD8<UInt16>.self)),
            s.loadUnaligned(fromByteOffset: offset, as: SIMD8<UInt16>.self))
        let signed = unsafeBitCast(quotient, to: SIMD8<Int16>.self)
        return (signed ^ sign) &- sign
    }

    /// The forward DCT (`ForwardDCT.transformLanes`) of the 8×8 samples at `samples` (rows
    /// `stride` apart) and its quantisation into `block`, as `quantize` would do it: the same
    /// arithmetic, with the column pass's outputs quantised in registers instead of stored
    /// and read back. `workspace` (64 entries) holds the row pass's outputs.
    @inline(never)
    func transformAndQuantize(_ samples: UnsafePointer<UInt8>, stride: Int, workspace: UnsafeMutablePointer<Int16>,
                              into block: UnsafeMutablePointer<Int16>) {
        ForwardDCT.rowPassLanes(samples, stride: stride, into: workspace)
        guard narrow else {
            ForwardDCT.columnPassLanes(workspace)
            quantize(workspace, into: block)
            return
        }
        let m = ForwardDCT.columnPass(workspace)
        ForwardDCT.store((quantizeRow(m.0, 0), quantizeRow(m.1, 1), quantizeRow(m.2, 2), quantizeRow(m.3, 3),
                          quantizeRow(m.4, 4), quantizeRow(m.5, 5), quantizeRow(m.6, 6), quantizeRow(m.7, 7)), block)
    }
}
