/// A macroblock's residual data (RFC 6386 §13, §19.3 `residual_data`): for a 16×16-predicted
/// macroblock the Y2 block first (its WHT gives the luma DCs, §14.3), then sixteen luma
/// blocks, four U and four V blocks. The "has coefficients" flags of the blocks above and to
/// the left are each block's context (§13.3).
struct Residuals {
    /// 25 blocks of 16 coefficients: luma 0–15 in raster order, U 16–19, V 20–23, Y2 24.
    var coefficients: UnsafeMutablePointer<Int16>
    /// Per block: 0 no coefficients, 1 DC only, 2 more (which inverse transform to run).
    var kinds: UnsafeMutablePointer<UInt8>
    /// `Tokens.positionTable`.
    var positions: UnsafePointer<Int>

    static let y2Block = 24

    /// Reads the residuals; `top` and `left` hold nine flags each (4 luma, 2 U, 2 V, Y2).
    /// Returns whether any block has a coefficient (after the WHT).
    // SAFETY: `coefficients` holds 25 × 16 values and `kinds` 25 (LossyDecoder allocates them);
    // `top` and `left` nine flags each; block indices stay below 25.
    @inline(__always)
    func read(_ br: inout BooleanDecoder, probabilities: UnsafePointer<UInt8>, is4x4: Bool, q: SegmentQuantizer,
              top: UnsafeMutablePointer<UInt8>, left: UnsafeMutablePointer<UInt8>) -> Bool {
        coefficients.update(repeating: 0, count: 25 * 16)
        var first = 0
        var table = probabilities + Tokens.typeY4 * Tokens.probabilitiesPerType
        if !is4x4 {
            let dc = coefficients + Self.y2Block * 16
            let context = Int(top[8]) + Int(left[8])
            let y2 = probabilities + Tokens.typeY2 * Tokens.probabilitiesPerType
            let n = Tokens.readBlock(&br, probabilities: y2, context: context, first: 0, dc: q.y2.dc, ac: q.y2.ac,
                                     out: dc, positions: positions)
            let flag: UInt8 = n > 0 ? 1 : 0
            top[8] = flag
            left[8] = flag
            if n > 1 {
                InverseTransform.walshHadamard(dc, coefficients)
            } else {
                let value = Int16(truncatingIfNeeded: (Int32(dc[0]) + 3) >> 3)
                for i in 0 ..< 16 { coefficients[i * 16] = value }
            }
            first = 1
            table = probabilities + Tokens.typeY16AC * Tokens.probabilitiesPerType
        }
        var any = false
        for by in 0 ..< 4 {
            for bx in 0 ..< 4 {
                let block = by * 4 + bx
                let out = coefficients + block * 16
                let context = Int(top[bx]) + Int(left[by])
                let n = Tokens.readBlock(&br, probabilities: table, context: context, first: first,
                                         dc: q.y1.dc, ac: q.y1.ac, out: out, positions: positions)
                let flag: UInt8 = n > first ? 1 : 0
                top[bx] = flag
                left[by] = flag
                let kind: UInt8 = n > 1 ? 2 : out[0] != 0 ? 1 : 0
                kinds[block] = kind
                if kind != 0 { any = true }
            }
        }
        let chroma = probabilities + Tokens.typeChroma * Tokens.probabilitiesPerType
        for plane in 0 ..< 2 {
            for by in 0 ..< 2 {
                for bx in 0 ..< 2 {
                    let block = 16 + plane * 4 + by * 2 + bx
                    let out = coefficients + block * 16
                    let t = 4 + plane * 2 + bx, l = 4 + plane * 2 + by
                    let n = Tokens.readBlock(&br, probabilities: chroma, context: Int(top[t]) + Int(left[l]), first: 0,
                                             dc: q.uv.dc, ac: q.uv.ac, out: out, positions: positions)
                    let flag: UInt8 = n > 0 ? 1 : 0
                    top[t] = flag
                    left[l] = flag
                    let kind: UInt8 = n > 1 ? 2 : out[0] != 0 ? 1 : 0
                    kinds[block] = kind
                    if kind != 0 { any = true }
                }
            }
        }
        return any
    }

    /// A skipped macroblock (§11.1 `mb_skip_coeff`): no coefficients; its flags read as
    /// "none" by its neighbours, but for Y2 when it has none (4×4 prediction).
    func skip(is4x4: Bool, top: UnsafeMutablePointer<UInt8>, left: UnsafeMutablePointer<UInt8>) {
        for i in 0 ..< 8 {
            top[i] = 0
            left[i] = 0
        }
        if !is4x4 {
            top[8] = 0
            left[8] = 0
        }
        kinds.update(repeating: 0, count: 24)
    }
}
