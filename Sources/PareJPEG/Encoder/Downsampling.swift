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
}
