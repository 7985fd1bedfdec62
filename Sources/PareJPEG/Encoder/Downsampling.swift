/// Chroma downsampling (T.81 A.1.1 leaves the filter to the encoder; this is libjpeg's, so
/// that files match cjpeg's): each output sample is the mean of the 2×1 or 2×2 input
/// samples it covers, with a rounding bias that alternates across the row — 0, 1, 0, 1…
/// for two samples, 1, 2, 1, 2… for four — so that halves round up and down equally often
/// instead of always one way.
///
/// Edges are padded by replication, as libjpeg pads them: a row is first widened to the
/// width its blocks need by repeating its last sample (`expandRightEdge`), and the last
/// row group of the image is completed by repeating its last row.
enum Downsampling {
    /// Repeats `row[width - 1]` up to `paddedWidth`.
    static func expandRightEdge(_ row: UnsafeMutablePointer<UInt8>, width: Int, paddedWidth: Int) {
        guard width > 0, paddedWidth > width else { return }
        // SAFETY: the caller's row holds paddedWidth samples.
        (row + width).update(repeating: row[width - 1], count: paddedWidth - width)
    }

    /// 2:1 horizontally (4:2:2): `outputCount` samples from `2 × outputCount` inputs.
    static func h2v1(_ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, outputCount: Int) {
        // SAFETY: input holds 2 × outputCount samples, output outputCount.
        for x in 0 ..< outputCount {
            let sum = Int(input[2 &* x]) &+ Int(input[2 &* x &+ 1]) &+ (x & 1)
            output[x] = UInt8(truncatingIfNeeded: sum &>> 1)
        }
    }

    /// 2:1 both ways (4:2:0): from two input rows.
    static func h2v2(_ top: UnsafePointer<UInt8>, _ bottom: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>,
                     outputCount: Int) {
        // SAFETY: both input rows hold 2 × outputCount samples, output outputCount.
        for x in 0 ..< outputCount {
            let sum = Int(top[2 &* x]) &+ Int(top[2 &* x &+ 1]) &+ Int(bottom[2 &* x]) &+ Int(bottom[2 &* x &+ 1])
                &+ 1 &+ (x & 1)
            output[x] = UInt8(truncatingIfNeeded: sum &>> 2)
        }
    }

    /// Sixteen output samples at a time, with the same sums and biases (`EncoderTests` checks
    /// them against `h2v1` and `h2v2`): thirty-two input samples read as sixteen 16-bit lanes,
    /// where `lane & 0xFF` and `lane >> 8` are the two samples of a pair, so that one add
    /// gives sixteen pair sums; the sixteen results (each ≤ 255) narrow to bytes in one step
    /// (x86: packuswb). A short tail goes through the plain loop.
    typealias Pairs = SIMD16<UInt16>

    @inline(__always)
    static func pairSums(_ samples: UnsafePointer<UInt8>) -> Pairs {
        let lanes = UnsafeRawPointer(samples).loadUnaligned(as: Pairs.self)
        return (lanes & 0xFF) &+ (lanes &>> 8)
    }

    /// Stores sixteen 16-bit lanes, each ≤ 255, as sixteen bytes.
    @inline(__always)
    static func storeBytes(_ s: Pairs, _ output: UnsafeMutablePointer<UInt8>) {
        @inline(__always) func b(_ v: UInt16) -> UInt8 { UInt8(truncatingIfNeeded: v) }
        let bytes = SIMD16<UInt8>(b(s[0]), b(s[1]), b(s[2]), b(s[3]), b(s[4]), b(s[5]), b(s[6]), b(s[7]),
                                  b(s[8]), b(s[9]), b(s[10]), b(s[11]), b(s[12]), b(s[13]), b(s[14]), b(s[15]))
        UnsafeMutableRawPointer(output).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
    }

    /// The alternating bias of a row, from an even position: `first`, `second`, `first`…
    @inline(__always)
    static func alternating(_ first: UInt16, _ second: UInt16) -> Pairs {
        Pairs(lowHalf: SIMD8(first, second, first, second, first, second, first, second),
              highHalf: SIMD8(first, second, first, second, first, second, first, second))
    }

    /// `h2v1`, sixteen outputs at a time.
    static func h2v1Lanes(_ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, outputCount: Int) {
        let bias = alternating(0, 1)
        var x = 0
        // SAFETY: x + 16 ≤ outputCount: 32 inputs and 16 outputs are inside the rows.
        while x &+ 16 <= outputCount {
            storeBytes((pairSums(input + 2 &* x) &+ bias) &>> 1, output + x)
            x &+= 16
        }
        if x < outputCount { h2v1(input + 2 * x, output + x, outputCount: outputCount - x) }
    }

    /// `h2v2`, sixteen outputs at a time (the tail's bias stays in step: x is even there).
    static func h2v2Lanes(_ top: UnsafePointer<UInt8>, _ bottom: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>,
                          outputCount: Int) {
        let bias = alternating(1, 2)
        var x = 0
        // SAFETY: x + 16 ≤ outputCount: 32 inputs of each row and 16 outputs are inside the rows.
        while x &+ 16 <= outputCount {
            storeBytes((pairSums(top + 2 &* x) &+ pairSums(bottom + 2 &* x) &+ bias) &>> 2, output + x)
            x &+= 16
        }
        if x < outputCount { h2v2(top + 2 * x, bottom + 2 * x, output + x, outputCount: outputCount - x) }
    }
}
