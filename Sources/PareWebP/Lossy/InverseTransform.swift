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

    /// §14.4: the inverse DCT of `c`, added to the 4×4 block at `dst`, as `addPlain` computes
    /// it, four lanes at a time: the vertical pass with the block's columns in the lanes,
    /// the horizontal pass, after a transpose, with its rows in them.
    @inline(__always)
    static func add(_ c: UnsafePointer<Int16>, to dst: UnsafeMutablePointer<UInt8>, stride: Int) {
        typealias Lanes = SIMD4<Int32>
        @inline(__always) func row(_ k: Int) -> Lanes {
            let r = UnsafeRawPointer(c + 4 * k).loadUnaligned(as: SIMD4<Int16>.self)
            return Lanes(Int32(r[0]), Int32(r[1]), Int32(r[2]), Int32(r[3]))
        }
        @inline(__always) func sin(_ a: Lanes) -> Lanes { (a &* 35468) &>> 16 }
        @inline(__always) func cos(_ a: Lanes) -> Lanes { ((a &* 20091) &>> 16) &+ a }
        @inline(__always) func transpose(_ a: Lanes, _ b: Lanes, _ c: Lanes, _ d: Lanes) -> (Lanes, Lanes, Lanes, Lanes) {
            (Lanes(a[0], b[0], c[0], d[0]), Lanes(a[1], b[1], c[1], d[1]),
             Lanes(a[2], b[2], c[2], d[2]), Lanes(a[3], b[3], c[3], d[3]))
        }
        let i0 = row(0), i4 = row(1), i8 = row(2), i12 = row(3)
        let a = i0 &+ i8, b = i0 &- i8
        let cc = sin(i4) &- cos(i12), d = cos(i4) &+ sin(i12)
        // Lane i of these is column i's t[4i], t[4i + 1], t[4i + 2], t[4i + 3] in `addPlain`.
        let (t0, t1, t2, t3) = transpose(a &+ d, b &+ cc, b &- cc, a &- d)
        // Now lane i is row i of the block: t[i], t[4 + i], t[8 + i], t[12 + i] by name.
        let dc = t0 &+ 4
        let ra = dc &+ t2, rb = dc &- t2
        let rc = sin(t1) &- cos(t3), rd = cos(t1) &+ sin(t3)
        let (o0, o1, o2, o3) = transpose((ra &+ rd) &>> 3, (rb &+ rc) &>> 3, (rb &- rc) &>> 3, (ra &- rd) &>> 3)
        let zero = Lanes(repeating: 0), top = Lanes(repeating: 255)
        @inline(__always) func addRow(_ r: Int, _ offsets: Lanes) {
            let p = dst + r * stride
            let pixels = Lanes(Int32(p[0]), Int32(p[1]), Int32(p[2]), Int32(p[3])) &+ offsets
            let v = pixels.replacing(with: zero, where: pixels .< zero).replacing(with: top, where: pixels .> top)
            p[0] = UInt8(truncatingIfNeeded: v[0])
            p[1] = UInt8(truncatingIfNeeded: v[1])
            p[2] = UInt8(truncatingIfNeeded: v[2])
            p[3] = UInt8(truncatingIfNeeded: v[3])
        }
        addRow(0, o0)
        addRow(1, o1)
        addRow(2, o2)
        addRow(3, o3)
    }

    /// §14.4 one value at a time, as the reference decoder writes it: columns first, then
    /// rows, with +4 rounding before the final shift by 3. The oracle of `add`.
    static func addPlain(_ c: UnsafePointer<Int16>, to dst: UnsafeMutablePointer<UInt8>, stride: Int) {
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
