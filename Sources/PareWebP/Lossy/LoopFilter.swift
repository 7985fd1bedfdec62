/// The loop filters of RFC 6386 §15, applied to a macroblock's edges in the order of §15.1:
/// its left edge, its inner vertical edges, its top edge, its inner horizontal edges. The
/// simple filter (§15.2) runs one pixel position at a time across each edge (`p` points at
/// the first pixel past the edge, q0; `step` crosses the edge, `along` moves along it); the
/// normal filter (§15.3) runs 16 positions at once in vector registers.
enum LoopFilter {
    @inline(__always)
    static func clampSigned(_ v: Int, _ low: Int, _ high: Int) -> Int { v < low ? low : v > high ? high : v }

    @inline(__always)
    static func byte(_ v: Int) -> UInt8 { UInt8(v < 0 ? 0 : v > 255 ? 255 : v) }

    /// §15.2: the simple filter's and every filter's first test, on p1 p0 | q0 q1:
    /// 2·|p0 − q0| + |p1 − q1|/2 ≤ edge limit (here doubled: 4·|p0−q0| + |p1−q1| ≤ 2·limit+1).
    @inline(__always)
    static func edgeVariance(_ p: UnsafeMutablePointer<UInt8>, _ step: Int) -> Int {
        4 * abs(Int(p[-step]) - Int(p[0])) + abs(Int(p[-2 * step]) - Int(p[step]))
    }

    /// §15.2 `common_adjust` with the outer taps: moves p0 and q0 toward each other.
    @inline(__always)
    static func adjustTwo(_ p: UnsafeMutablePointer<UInt8>, _ step: Int) {
        let p1 = Int(p[-2 * step]), p0 = Int(p[-step]), q0 = Int(p[0]), q1 = Int(p[step])
        let a = 3 * (q0 - p0) + clampSigned(p1 - q1, -128, 127)
        let a1 = clampSigned((a + 4) >> 3, -16, 15)
        let a2 = clampSigned((a + 3) >> 3, -16, 15)
        p[-step] = byte(p0 + a2)
        p[0] = byte(q0 - a1)
    }

    /// §15.2: the simple filter along one edge of `count` pixels.
    @inline(__always)
    static func simpleEdge(_ p: UnsafeMutablePointer<UInt8>, step: Int, along: Int, count: Int, limit: Int) {
        let threshold = 2 * limit + 1
        for i in 0 ..< count {
            let q = p + i * along
            if edgeVariance(q, step) <= threshold { adjustTwo(q, step) }
        }
    }

    /// The normal filter across a horizontal edge, 16 positions at once in vector registers
    /// (8 from `first` and 8 from `second`: the two halves of a luma edge, or a U and a V
    /// edge): the tests and adjustments of §15.3, every one computed in every lane,
    /// each lane keeping what its tests pick.
    // SAFETY: `first` and `second` each start 8 contiguous pixels just below the edge, with
    // four rows of `stride` above and below them inside the cache.
    static func normalHorizontalEdge16(_ first: UnsafeMutablePointer<UInt8>, _ second: UnsafeMutablePointer<UInt8>,
                                       stride: Int, limit: Int, interior: Int, hevThreshold: Int,
                                       macroblockEdge: Bool) {
        typealias V = SIMD16<Int16>
        // Widening and narrowing written lane by lane: the standard library's generic
        // `init(truncatingIfNeeded:)` between the two vector types was left as a call that
        // converts one lane at a time; spelled out, it is one unpack or pack.
        @inline(__always) func load(_ k: Int) -> V {
            let low = UnsafeRawPointer(first + k * stride).loadUnaligned(as: SIMD8<UInt8>.self)
            let high = UnsafeRawPointer(second + k * stride).loadUnaligned(as: SIMD8<UInt8>.self)
            var v = V()
            for lane in 0 ..< 8 {
                v[lane] = Int16(low[lane])
                v[lane + 8] = Int16(high[lane])
            }
            return v
        }
        @inline(__always) func store(_ k: Int, _ v: V) {
            var low = SIMD8<UInt8>(), high = SIMD8<UInt8>()
            for lane in 0 ..< 8 {
                low[lane] = UInt8(truncatingIfNeeded: v[lane])
                high[lane] = UInt8(truncatingIfNeeded: v[lane + 8])
            }
            UnsafeMutableRawPointer(first + k * stride).storeBytes(of: low, as: SIMD8<UInt8>.self)
            UnsafeMutableRawPointer(second + k * stride).storeBytes(of: high, as: SIMD8<UInt8>.self)
        }
        // Lane limits written with comparisons and selects: the standard library's generic
        // `pointwiseMax`/`pointwiseMin` were left uninlined here, a call per vector.
        @inline(__always) func larger(_ a: V, _ b: V) -> V { a.replacing(with: b, where: b .> a) }
        @inline(__always) func absolute(_ v: V) -> V { larger(v, 0 &- v) }
        @inline(__always) func clamp(_ v: V, _ low: Int16, _ high: Int16) -> V {
            let lower = V(repeating: low), upper = V(repeating: high)
            return v.replacing(with: lower, where: v .< lower).replacing(with: upper, where: v .> upper)
        }
        let p3 = load(-4), p2 = load(-3), p1 = load(-2), p0 = load(-1)
        let q0 = load(0), q1 = load(1), q2 = load(2), q3 = load(3)
        let inner = V(repeating: Int16(interior))
        let biggest = larger(larger(larger(absolute(p3 &- p2), absolute(p2 &- p1)),
                                    larger(absolute(p1 &- p0), absolute(q3 &- q2))),
                             larger(absolute(q2 &- q1), absolute(q1 &- q0)))
        let filter = (4 &* absolute(p0 &- q0) &+ absolute(p1 &- q1) .<= V(repeating: Int16(2 * limit + 1)))
            .& (biggest .<= inner)
        // No lane to filter: `any` was left a call that reduces lane by lane; the mask's
        // lanes are all ones or all zeros, so its four 64-bit words say the same.
        let words = unsafeBitCast(filter, to: SIMD4<UInt64>.self)
        if words[0] | words[1] | words[2] | words[3] == 0 { return }
        let hevLimit = V(repeating: Int16(hevThreshold))
        let hev = larger(absolute(p1 &- p0), absolute(q1 &- q0)) .> hevLimit
        let outer = clamp(p1 &- q1, -128, 127)
        let twoTap = 3 &* (q0 &- p0) &+ outer
        let t1 = clamp((twoTap &+ 4) &>> 3, -16, 15), t2 = clamp((twoTap &+ 3) &>> 3, -16, 15)
        var np0 = p0.replacing(with: clamp(p0 &+ t2, 0, 255), where: filter .& hev)
        var nq0 = q0.replacing(with: clamp(q0 &- t1, 0, 255), where: filter .& hev)
        let quiet = filter .& .!hev
        if macroblockEdge {
            let a = clamp(3 &* (q0 &- p0) &+ outer, -128, 127)
            let w1 = (27 &* a &+ 63) &>> 7, w2 = (18 &* a &+ 63) &>> 7, w3 = (9 &* a &+ 63) &>> 7
            np0.replace(with: clamp(p0 &+ w1, 0, 255), where: quiet)
            nq0.replace(with: clamp(q0 &- w1, 0, 255), where: quiet)
            store(-3, p2.replacing(with: clamp(p2 &+ w3, 0, 255), where: quiet))
            store(-2, p1.replacing(with: clamp(p1 &+ w2, 0, 255), where: quiet))
            store(1, q1.replacing(with: clamp(q1 &- w2, 0, 255), where: quiet))
            store(2, q2.replacing(with: clamp(q2 &- w3, 0, 255), where: quiet))
        } else {
            let a = 3 &* (q0 &- p0)
            let a1 = clamp((a &+ 4) &>> 3, -16, 15), a2 = clamp((a &+ 3) &>> 3, -16, 15)
            let a3 = (a1 &+ 1) &>> 1
            np0.replace(with: clamp(p0 &+ a2, 0, 255), where: quiet)
            nq0.replace(with: clamp(q0 &- a1, 0, 255), where: quiet)
            store(-2, p1.replacing(with: clamp(p1 &+ a3, 0, 255), where: quiet))
            store(1, q1.replacing(with: clamp(q1 &- a3, 0, 255), where: quiet))
        }
        store(-1, np0)
        store(0, nq0)
    }

    /// The normal filter across a vertical edge, 16 positions (rows) at once: the 8 pixels
    /// across the edge in each row are turned into 8 rows of 16 in a scratch block, filtered
    /// there as a horizontal edge, and turned back.
    // SAFETY: `first` and `second` each start 8 rows (`stride` apart) with four pixels left
    // and right of the edge inside the cache; the scratch block is 8 × 16 bytes.
    static func normalVerticalEdge16(_ first: UnsafeMutablePointer<UInt8>, _ second: UnsafeMutablePointer<UInt8>,
                                     stride: Int, limit: Int, interior: Int, hevThreshold: Int,
                                     macroblockEdge: Bool) {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 16) { scratch in
            let block = UnsafeMutableRawPointer(scratch.baseAddress!)
            // Column k of the rows from `first` is bytes 16k ..< 16k + 8 of the block, from
            // `second` the 8 after them.
            for half in 0 ..< 2 {
                let rows = half == 0 ? first : second
                var words = Transpose8x8()
                for r in 0 ..< 8 { words[r] = UnsafeRawPointer(rows + r * stride - 4).loadUnaligned(as: UInt64.self) }
                words.transpose()
                for k in 0 ..< 8 { block.storeBytes(of: words[k], toByteOffset: 16 * k + 8 * half, as: UInt64.self) }
            }
            let q0 = block.assumingMemoryBound(to: UInt8.self) + 64
            normalHorizontalEdge16(q0, q0 + 8, stride: 16, limit: limit, interior: interior,
                                   hevThreshold: hevThreshold, macroblockEdge: macroblockEdge)
            // Back: p3 and q3 are rewritten with the values they had.
            for half in 0 ..< 2 {
                let rows = half == 0 ? first : second
                var words = Transpose8x8()
                for k in 0 ..< 8 { words[k] = block.load(fromByteOffset: 16 * k + 8 * half, as: UInt64.self) }
                words.transpose()
                for r in 0 ..< 8 { UnsafeMutableRawPointer(rows + r * stride - 4).storeBytes(of: words[r], as: UInt64.self) }
            }
        }
    }

    /// Eight rows of eight bytes, one 64-bit word a row (byte j of word i is element (i, j)),
    /// transposed in place by swapping ever larger blocks: bytes between neighbouring rows,
    /// then pairs of bytes two rows apart, then halves four rows apart.
    struct Transpose8x8 {
        var r0: UInt64 = 0, r1: UInt64 = 0, r2: UInt64 = 0, r3: UInt64 = 0
        var r4: UInt64 = 0, r5: UInt64 = 0, r6: UInt64 = 0, r7: UInt64 = 0

        subscript(i: Int) -> UInt64 {
            @inline(__always) get {
                switch i {
                case 0: r0
                case 1: r1
                case 2: r2
                case 3: r3
                case 4: r4
                case 5: r5
                case 6: r6
                default: r7
                }
            }
            @inline(__always) set {
                switch i {
                case 0: r0 = newValue
                case 1: r1 = newValue
                case 2: r2 = newValue
                case 3: r3 = newValue
                case 4: r4 = newValue
                case 5: r5 = newValue
                case 6: r6 = newValue
                default: r7 = newValue
                }
            }
        }

        /// Swaps the `mask`ed elements of `a` shifted down by `shift` with those of `b`.
        @inline(__always)
        static func swap(_ a: inout UInt64, _ b: inout UInt64, _ shift: UInt64, _ mask: UInt64) {
            let t = ((a &>> shift) ^ b) & mask
            b ^= t
            a ^= t &<< shift
        }

        @inline(__always)
        mutating func transpose() {
            let bytes: UInt64 = 0x00FF_00FF_00FF_00FF, pairs: UInt64 = 0x0000_FFFF_0000_FFFF
            let halves: UInt64 = 0x0000_0000_FFFF_FFFF
            Self.swap(&r0, &r1, 8, bytes); Self.swap(&r2, &r3, 8, bytes)
            Self.swap(&r4, &r5, 8, bytes); Self.swap(&r6, &r7, 8, bytes)
            Self.swap(&r0, &r2, 16, pairs); Self.swap(&r1, &r3, 16, pairs)
            Self.swap(&r4, &r6, 16, pairs); Self.swap(&r5, &r7, 16, pairs)
            Self.swap(&r0, &r4, 32, halves); Self.swap(&r1, &r5, 32, halves)
            Self.swap(&r2, &r6, 32, halves); Self.swap(&r3, &r7, 32, halves)
        }
    }

    // SAFETY: every edge filtered has four pixels on both sides inside the caches: left and
    // top edges only where the macroblock has that neighbour (its pixels, or the previous
    // macroblock row kept above the current one), inner edges 4 pixels from the border.
    /// Filters one macroblock (`y`, `u`, `v` at its top-left corners in their planes) as
    /// §15.1 orders it. `left`/`top` say whether the macroblock has a neighbour there.
    static func filterMacroblock(y: UnsafeMutablePointer<UInt8>, yStride: Int, u: UnsafeMutablePointer<UInt8>,
                                 v: UnsafeMutablePointer<UInt8>, uvStride: Int, strength: FilterStrength,
                                 simple: Bool, left: Bool, top: Bool) {
        let limit = strength.limit
        if simple {
            if left { simpleEdge(y, step: 1, along: yStride, count: 16, limit: limit + 4) }
            if strength.inner {
                for x in stride(from: 4, to: 16, by: 4) { simpleEdge(y + x, step: 1, along: yStride, count: 16, limit: limit) }
            }
            if top { simpleEdge(y, step: yStride, along: 1, count: 16, limit: limit + 4) }
            if strength.inner {
                for r in stride(from: 4, to: 16, by: 4) {
                    simpleEdge(y + r * yStride, step: yStride, along: 1, count: 16, limit: limit)
                }
            }
            return
        }
        let i = strength.interior, h = strength.hevThreshold
        if left {
            normalVerticalEdge16(y, y + 8 * yStride, stride: yStride, limit: limit + 4, interior: i, hevThreshold: h,
                                 macroblockEdge: true)
            normalVerticalEdge16(u, v, stride: uvStride, limit: limit + 4, interior: i, hevThreshold: h,
                                 macroblockEdge: true)
        }
        if strength.inner {
            for x in stride(from: 4, to: 16, by: 4) {
                normalVerticalEdge16(y + x, y + x + 8 * yStride, stride: yStride, limit: limit, interior: i,
                                     hevThreshold: h, macroblockEdge: false)
            }
            normalVerticalEdge16(u + 4, v + 4, stride: uvStride, limit: limit, interior: i, hevThreshold: h,
                                 macroblockEdge: false)
        }
        if top {
            normalHorizontalEdge16(y, y + 8, stride: yStride, limit: limit + 4, interior: i, hevThreshold: h,
                                   macroblockEdge: true)
            normalHorizontalEdge16(u, v, stride: uvStride, limit: limit + 4, interior: i, hevThreshold: h,
                                   macroblockEdge: true)
        }
        if strength.inner {
            for r in stride(from: 4, to: 16, by: 4) {
                normalHorizontalEdge16(y + r * yStride, y + r * yStride + 8, stride: yStride, limit: limit, interior: i,
                                       hevThreshold: h, macroblockEdge: false)
            }
            normalHorizontalEdge16(u + 4 * uvStride, v + 4 * uvStride, stride: uvStride, limit: limit, interior: i,
                                   hevThreshold: h, macroblockEdge: false)
        }
    }
}
