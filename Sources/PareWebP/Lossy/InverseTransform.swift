/// The inverse transforms of RFC 6386 §14: the Walsh–Hadamard transform of the second-order
/// block (§14.3) that gives the sixteen luma DCs, and the 4×4 inverse DCT (§14.4) whose
/// result is added to the prediction, with the rounding of the reference decoder.
enum InverseTransform {
    /// §14.4's multipliers: √2·cos(π/8) − 1 and √2·sin(π/8), in 16-bit fixed point.
    @inline(__always) static func mulCos(_ a: Int32) -> Int32 { ((a &* 20091) >> 16) &+ a }
    @inline(__always) static func mulSin(_ a: Int32) -> Int32 { (a &* 35468) >> 16 }

    // SAFETY (every function here): inputs are 16 coefficients; outputs are 4×4 blocks at
    // `stride` inside the decoder's workspace, or the 16 luma blocks' DCs (index ≤ 240).
    // Sums and differences wrap (`&+`, `&-`) rather than check: from 16-bit coefficients
    // they stay below 2^22 in magnitude, so they never wrap, and the checks only cost branches.
    /// §14.3: the WHT of `input` (16 coefficients); output DC `i` goes to `output[16 * i]`.
    static func walshHadamard(_ input: UnsafePointer<Int16>, _ output: UnsafeMutablePointer<Int16>) {
        var tmp = (Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0),
                   Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0))
        withUnsafeMutableBytes(of: &tmp) { raw in
            let t = raw.baseAddress!.assumingMemoryBound(to: Int32.self)
            for i in 0 ..< 4 {
                let a0 = Int32(input[i]) &+ Int32(input[12 + i])
                let a1 = Int32(input[4 + i]) &+ Int32(input[8 + i])
                let a2 = Int32(input[4 + i]) &- Int32(input[8 + i])
                let a3 = Int32(input[i]) &- Int32(input[12 + i])
                t[i] = a0 &+ a1
                t[8 + i] = a0 &- a1
                t[4 + i] = a3 &+ a2
                t[12 + i] = a3 &- a2
            }
            for i in 0 ..< 4 {
                let dc = t[4 * i] &+ 3
                let a0 = dc &+ t[4 * i + 3]
                let a1 = t[4 * i + 1] &+ t[4 * i + 2]
                let a2 = t[4 * i + 1] &- t[4 * i + 2]
                let a3 = dc &- t[4 * i + 3]
                let out = output + 64 * i
                out[0] = Int16(truncatingIfNeeded: (a0 &+ a1) >> 3)
                out[16] = Int16(truncatingIfNeeded: (a3 &+ a2) >> 3)
                out[32] = Int16(truncatingIfNeeded: (a0 &- a1) >> 3)
                out[48] = Int16(truncatingIfNeeded: (a3 &- a2) >> 3)
            }
        }
    }

    @inline(__always)
    static func addClamped(_ p: UInt8, _ v: Int32) -> UInt8 {
        let s = Int32(p) &+ (v >> 3)
        return UInt8(s < 0 ? 0 : s > 255 ? 255 : s)
    }

    /// §14.4: the inverse DCT of `c`, added to the 4×4 block at `dst`: columns first, then
    /// rows, with +4 rounding before the final shift by 3.
    @inline(__always)
    static func add(_ c: UnsafePointer<Int16>, to dst: UnsafeMutablePointer<UInt8>, stride: Int) {
        var tmp = (Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0),
                   Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0))
        withUnsafeMutableBytes(of: &tmp) { raw in
            let t = raw.baseAddress!.assumingMemoryBound(to: Int32.self)
            for i in 0 ..< 4 {
                let i0 = Int32(c[i]), i4 = Int32(c[4 + i]), i8 = Int32(c[8 + i]), i12 = Int32(c[12 + i])
                let a = i0 &+ i8
                let b = i0 &- i8
                let cc = mulSin(i4) &- mulCos(i12)
                let d = mulCos(i4) &+ mulSin(i12)
                t[4 * i] = a &+ d
                t[4 * i + 1] = b &+ cc
                t[4 * i + 2] = b &- cc
                t[4 * i + 3] = a &- d
            }
            for i in 0 ..< 4 {
                let dc = t[i] &+ 4
                let a = dc &+ t[8 + i]
                let b = dc &- t[8 + i]
                let cc = mulSin(t[4 + i]) &- mulCos(t[12 + i])
                let d = mulCos(t[4 + i]) &+ mulSin(t[12 + i])
                let row = dst + i * stride
                row[0] = addClamped(row[0], a &+ d)
                row[1] = addClamped(row[1], b &+ cc)
                row[2] = addClamped(row[2], b &- cc)
                row[3] = addClamped(row[3], a &- d)
            }
        }
    }

    /// A block with only a DC coefficient: the same value, (DC &+ 4) >> 3, added to each pixel.
    @inline(__always)
    static func addDC(_ c: UnsafePointer<Int16>, to dst: UnsafeMutablePointer<UInt8>, stride: Int) {
        let v = Int32(c[0]) &+ 4
        for y in 0 ..< 4 {
            let row = dst + y * stride
            for x in 0 ..< 4 { row[x] = addClamped(row[x], v) }
        }
    }
}
