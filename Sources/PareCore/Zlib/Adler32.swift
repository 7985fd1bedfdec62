/// The Adler-32 checksum that ends a zlib stream (RFC 1950 §8.2, §9): two sums modulo
/// 65521, `a` of the bytes (plus one) and `b` of the successive `a`s.
struct Adler32 {
    private(set) var a: UInt32 = 1
    private(set) var b: UInt32 = 0

    static let modulus: UInt32 = 65521
    /// The most bytes that can be summed before `b` could overflow 32 bits and must be
    /// reduced: the largest n with 255·n·(n+1)/2 + (n+1)·(65521−1) < 2³² (zlib calls it NMAX).
    /// A multiple of 16, so that only a stream's last run has a part-chunk.
    static let maxRun = 5552

    var value: UInt32 { b << 16 | a }

    /// The definition, a byte at a time: the oracle of `update`.
    mutating func updateBytewise(_ bytes: UnsafePointer<UInt8>, count: Int) {
        var p = bytes, left = count
        while left > 0 {
            let run = min(left, Self.maxRun)
            // SAFETY: p + run ≤ bytes + count, the caller's initialised range.
            for i in 0 ..< run {
                a &+= UInt32(p[i])
                b &+= a
            }
            a %= Self.modulus
            b %= Self.modulus
            p += run
            left -= run
        }
    }

    /// Sixteen bytes x₀…x₁₅ at a time: after them `a` has grown by Σxᵢ and `b` by 16·a
    /// (the `a` before them) plus Σ(16−i)·xᵢ. In 16-bit lanes neither sum can overflow
    /// (16 · 255 · 16 < 65536), and at the chunk's end both are the byte-wise sums, so the
    /// reduction every `maxRun` bytes stays where the definition needs it.
    mutating func update(_ bytes: UnsafePointer<UInt8>, count: Int) {
        let weights = SIMD16<UInt16>(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
        var p = bytes, left = count
        var a = self.a, b = self.b
        while left > 0 {
            let run = min(left, Self.maxRun)
            var i = 0
            // SAFETY: i + 16 ≤ run ≤ left keeps each 16-byte load inside the caller's range.
            while i + 16 <= run {
                let x = SIMD16<UInt16>(truncatingIfNeeded: UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<UInt8>.self))
                b &+= a &* 16 &+ UInt32(truncatingIfNeeded: (x &* weights).wrappedSum())
                a &+= UInt32(truncatingIfNeeded: x.wrappedSum())
                i += 16
            }
            while i < run {
                a &+= UInt32(p[i])
                b &+= a
                i += 1
            }
            a %= Self.modulus
            b %= Self.modulus
            p += run
            left -= run
        }
        self.a = a
        self.b = b
    }
}
