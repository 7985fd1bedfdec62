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

/// Division by 8 × Q as a multiplication by its reciprocal: for each divisor d, a 16-bit
/// multiplier m, a correction c and a shift r with ⌊(|x| + c) · m / 2^r⌋ = ⌊(|x| + d/2) / d⌋
/// for every |x| < 2^15 (proved for all d = 8 × Q, Q ≤ 32,767 reachable by the quality
/// scaling, by `QuantizationTests`). m = 2^r / d rounded, with the correction taking up the
/// rounding of m.
struct Divisors {
    /// Per natural-order coefficient: multiplier, correction, shift.
    let table: LedgerBuffer<UInt32>

    init(_ q: [UInt16], ledger: MemoryLedger) throws(CoreError) {
        table = try ledger.allocate(UInt32.self, count: 64 * 3, initialValue: 0)
        for i in 0 ..< 64 {
            let (m, c, r) = Self.reciprocal(UInt32(q[i]) << 3)
            table[3 * i] = m
            table[3 * i + 1] = c
            table[3 * i + 2] = r
        }
    }

    static func reciprocal(_ divisor: UInt32) -> (multiplier: UInt32, correction: UInt32, shift: UInt32) {
        let b = 31 - divisor.leadingZeroBitCount
        var r = UInt32(16 + b)
        var m = (UInt64(1) << UInt64(r)) / UInt64(divisor)
        let remainder = (UInt64(1) << UInt64(r)) % UInt64(divisor)
        var c = divisor / 2
        if remainder == 0 {
            m >>= 1
            r -= 1
        } else if remainder <= UInt64(divisor / 2) {
            c += 1
        } else {
            m += 1
        }
        return (UInt32(m), c, r)
    }

    /// Quantises the 64 DCT outputs `workspace` (natural order) into `block` in zig-zag order.
    @inline(__always)
    func quantize(_ workspace: UnsafePointer<Int32>, into block: UnsafeMutablePointer<Int16>,
                  naturalOrder: UnsafePointer<UInt8>) {
        // SAFETY: the table has 192 entries, workspace and block 64; naturalOrder's entries are < 64.
        let t = UnsafePointer(table.baseAddress)
        for k in 0 ..< 64 {
            let i = Int(naturalOrder[k])
            let x = workspace[i]
            let magnitude = UInt32(bitPattern: x < 0 ? -x : x)
            let quotient = Int32(bitPattern: ((magnitude &+ t[3 * i + 1]) &* t[3 * i]) >> t[3 * i + 2])
            block[k] = Int16(truncatingIfNeeded: x < 0 ? -quotient : quotient)
        }
    }
}
