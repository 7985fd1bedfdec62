import PareCore

/// Quantisation for encoding (T.81 A.3.4: Sq = round(S / Q)) with the tables of T.81 K.1
/// scaled by a quality as libjpeg scales them, so that `quality 85` gives the tables cjpeg's
/// `-quality 85` gives.
enum Quantization {
    /// T.81 Table K.1, luminance, natural (row-major) order.
    static let luminanceK1: [UInt16] = [
        16, 11, 10, 16, 24, 40, 51, 61,
        12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56,
        14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77,
        24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101,
        72, 92, 95, 98, 112, 100, 103, 99,
    ]

    /// T.81 Table K.2, chrominance, natural order.
    static let chrominanceK2: [UInt16] = [
        17, 18, 24, 47, 99, 99, 99, 99,
        18, 21, 26, 66, 99, 99, 99, 99,
        24, 26, 56, 99, 99, 99, 99, 99,
        47, 66, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
    ]

    /// The percentage a quality 1…100 scales the K.1 tables by: 5000 / q below 50, 200 − 2q
    /// from 50 (so 50 is the tables themselves and 100 is all ones).
    static func scale(quality: Int) -> Int {
        let q = min(max(quality, 1), 100)
        return q < 50 ? 5000 / q : 200 - 2 * q
    }

    /// A base table scaled: (value × scale + 50) / 100, at least 1, at most 32,767 (a 16-bit
    /// DQT entry), or 255 when the file must stay baseline (8-bit entries, T.81 B.2.4.1).
    static func scaled(_ base: [UInt16], quality: Int, forceBaseline: Bool) -> [UInt16] {
        let factor = scale(quality: quality)
        let ceiling = forceBaseline ? 255 : 32767
        return base.map { UInt16(min(max((Int($0) * factor + 50) / 100, 1), ceiling)) }
    }

    /// Rounded division of a forward-DCT output (which is 8 × the true coefficient) by
    /// 8 × Q, as T.81 A.3.4 defines it: the plain path, and the oracle for `Divisors`.
    static func quantize(_ value: Int32, q: UInt16) -> Int16 {
        let divisor = Int32(q) << 3
        let magnitude = (abs(value) + divisor >> 1) / divisor
        return Int16(value < 0 ? -magnitude : magnitude)
    }
}

/// Division by 8 × Q as a multiplication: with d = 8 × Q and m = ⌈2^32 / d⌉,
/// ⌊(|x| + ⌊d/2⌋) · m / 2^32⌋ = ⌊(|x| + ⌊d/2⌋) / d⌋ — T.81 A.3.4's rounding — whenever the
/// dividend and d are below 2^16 (the error n · (m − 2^32/d) / 2^32 < 2^−16 stays under the
/// 1/d a quotient needs to change). DCT outputs of 8-bit samples are below 2^15 and the
/// quality scaling makes d ≤ 8 × 6050, so this is exact; `QuantizationTests` checks it
/// against `Quantization.quantize` for every reachable divisor. (libjpeg-turbo computes the
/// same quotients with 16-bit reciprocals and per-coefficient shifts, for its SIMD code.)
struct Divisors {
    /// Per natural-order coefficient: ⌊d/2⌋ and m (m < 2^30 since d ≥ 8); and the zig-zag order.
    let half: LedgerBuffer<UInt32>
    let multiplier: LedgerBuffer<UInt32>
    let natural: LedgerBuffer<UInt8>
    /// The quotients in natural order, before they are put in zig-zag order.
    let scratch: LedgerBuffer<Int16>

    init(_ q: [UInt16], ledger: MemoryLedger) throws(CoreError) {
        half = try ledger.allocate(UInt32.self, count: 64, initialValue: 0)
        multiplier = try ledger.allocate(UInt32.self, count: 64, initialValue: 0)
        natural = try ledger.allocate(UInt8.self, count: 64, initialValue: 0)
        scratch = try ledger.allocate(Int16.self, count: 64, initialValue: 0)
        for i in 0 ..< 64 {
            let divisor = UInt64(q[i]) << 3
            half[i] = UInt32(divisor / 2)
            multiplier[i] = UInt32(((1 << 32) + divisor - 1) / divisor)
        }
        for (k, i) in ZigZag.naturalOrder.enumerated() { natural[k] = UInt8(i) }
    }

    /// Quantises the 64 DCT outputs `workspace` (natural order) into `block` in zig-zag order.
    @inline(__always)
    func quantize(_ workspace: UnsafePointer<Int32>, into block: UnsafeMutablePointer<Int16>) {
        // SAFETY: every table, the scratch block and `block` have 64 entries; natural's are < 64.
        let h = UnsafePointer(half.baseAddress), m = UnsafePointer(multiplier.baseAddress)
        let q = scratch.baseAddress, order = UnsafePointer(natural.baseAddress)
        // Natural order first, a straight loop the compiler turns into vector code.
        for i in 0 ..< 64 {
            let x = workspace[i]
            let sign = x &>> 31
            let magnitude = UInt64(UInt32(bitPattern: (x ^ sign) &- sign) &+ h[i])
            let quotient = Int32(truncatingIfNeeded: (magnitude &* UInt64(m[i])) &>> 32)
            q[i] = Int16(truncatingIfNeeded: (quotient ^ sign) &- sign)
        }
        for k in 0 ..< 64 { block[k] = q[Int(order[k])] }
    }
}
