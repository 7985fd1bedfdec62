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

    /// Eight output samples at a time, with the same sums and biases (`EncoderTests` checks
    /// them against `h2v1` and `h2v2`): sixteen input samples read as eight 16-bit lanes,
    /// where `lane & 0xFF` and `lane >> 8` are the two samples of a pair, so that one add
    /// gives eight pair sums; the eight results (each ≤ 255) go back to bytes through two
    /// 64-bit words. A short tail goes through the plain loop.
    typealias Pairs = SIMD8<UInt16>

    @inline(__always)
    static func pairSums(_ samples: UnsafePointer<UInt8>) -> Pairs {
        let lanes = UnsafeRawPointer(samples).loadUnaligned(as: Pairs.self)
        return (lanes & 0xFF) &+ (lanes &>> 8)
    }

    /// Stores eight 16-bit lanes, each ≤ 255, as eight bytes.
    @inline(__always)
    static func storeBytes(_ samples: Pairs, _ output: UnsafeMutablePointer<UInt8>) {
        let words = unsafeBitCast(samples, to: SIMD2<UInt64>.self)
        // Four 16-bit lanes of a word to its low four bytes: pairs of lanes, then pairs of pairs.
        @inline(__always) func packed(_ w: UInt64) -> UInt64 {
            let pairs = (w | w &>> 8) & 0x0000_FFFF_0000_FFFF
            return (pairs | pairs &>> 16) & 0xFFFF_FFFF
        }
        UnsafeMutableRawPointer(output).storeBytes(of: packed(words[0]) | packed(words[1]) &<< 32, as: UInt64.self)
    }

    /// `h2v1`, eight outputs at a time.
    static func h2v1Lanes(_ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, outputCount: Int) {
        let bias = Pairs(0, 1, 0, 1, 0, 1, 0, 1)
        var x = 0
        // SAFETY: x + 8 ≤ outputCount: 16 inputs and 8 outputs are inside the rows.
        while x &+ 8 <= outputCount {
            storeBytes((pairSums(input + 2 &* x) &+ bias) &>> 1, output + x)
            x &+= 8
        }
        if x < outputCount { h2v1(input + 2 * x, output + x, outputCount: outputCount - x) }
    }

    /// `h2v2`, eight outputs at a time (the tail's bias stays in step: x is even there).
    static func h2v2Lanes(_ top: UnsafePointer<UInt8>, _ bottom: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>,
                          outputCount: Int) {
        let bias = Pairs(1, 2, 1, 2, 1, 2, 1, 2)
        var x = 0
        // SAFETY: x + 8 ≤ outputCount: 16 inputs of each row and 8 outputs are inside the rows.
        while x &+ 8 <= outputCount {
            storeBytes((pairSums(top + 2 &* x) &+ pairSums(bottom + 2 &* x) &+ bias) &>> 2, output + x)
            x &+= 8
        }
        if x < outputCount { h2v2(top + 2 * x, bottom + 2 * x, output + x, outputCount: outputCount - x) }
    }
}
