/// The loop filters of RFC 6386 §15, applied to a macroblock's edges in the order of §15.1:
/// its left edge, its inner vertical edges, its top edge, its inner horizontal edges. Each
/// edge is filtered one pixel position at a time across it: `p` points at the first pixel past
/// the edge (q0), `step` crosses the edge, `along` moves along it.
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

    /// §15.3: the normal filter along one edge; `macroblockEdge` picks `MBfilter` over
    /// `subblock_filter` where the variance is low. Each position's eight pixels are read
    /// once, the tests made on them, and the chosen adjustment written back.
    @inline(__always)
    static func normalEdge(_ p: UnsafeMutablePointer<UInt8>, step: Int, along: Int, count: Int, limit: Int,
                           interior: Int, hevThreshold: Int, macroblockEdge: Bool) {
        let threshold = Int32(2 * limit + 1), inner = Int32(interior), hev = Int32(hevThreshold)
        for i in 0 ..< count {
            let q = p + i * along
            let p1 = Int32(q[-2 * step]), p0 = Int32(q[-step]), q0 = Int32(q[0]), q1 = Int32(q[step])
            if 4 * abs(p0 - q0) + abs(p1 - q1) > threshold { continue }
            let p3 = Int32(q[-4 * step]), p2 = Int32(q[-3 * step]), q2 = Int32(q[2 * step]), q3 = Int32(q[3 * step])
            if abs(p3 - p2) > inner || abs(p2 - p1) > inner || abs(p1 - p0) > inner || abs(q3 - q2) > inner
                || abs(q2 - q1) > inner || abs(q1 - q0) > inner { continue }
            if abs(p1 - p0) > hev || abs(q1 - q0) > hev {
                // common_adjust with the outer taps: p0 and q0 only.
                let a = 3 * (q0 - p0) + clamp32(p1 - q1, -128, 127)
                let a1 = clamp32((a + 4) >> 3, -16, 15), a2 = clamp32((a + 3) >> 3, -16, 15)
                q[-step] = byte32(p0 + a2)
                q[0] = byte32(q0 - a1)
            } else if macroblockEdge {
                // MBfilter: three pixels each side, weights 27, 18, 9.
                let a = clamp32(3 * (q0 - p0) + clamp32(p1 - q1, -128, 127), -128, 127)
                let a1 = (27 * a + 63) >> 7, a2 = (18 * a + 63) >> 7, a3 = (9 * a + 63) >> 7
                q[-3 * step] = byte32(p2 + a3)
                q[-2 * step] = byte32(p1 + a2)
                q[-step] = byte32(p0 + a1)
                q[0] = byte32(q0 - a1)
                q[step] = byte32(q1 - a2)
                q[2 * step] = byte32(q2 - a3)
            } else {
                // subblock_filter: p1, p0, q0, q1.
                let a = 3 * (q0 - p0)
                let a1 = clamp32((a + 4) >> 3, -16, 15), a2 = clamp32((a + 3) >> 3, -16, 15)
                let a3 = (a1 + 1) >> 1
                q[-2 * step] = byte32(p1 + a3)
                q[-step] = byte32(p0 + a2)
                q[0] = byte32(q0 - a1)
                q[step] = byte32(q1 - a3)
            }
        }
    }

    @inline(__always)
    static func clamp32(_ v: Int32, _ low: Int32, _ high: Int32) -> Int32 { min(max(v, low), high) }

    @inline(__always)
    static func byte32(_ v: Int32) -> UInt8 { UInt8(clamping: v) }

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
            normalEdge(y, step: 1, along: yStride, count: 16, limit: limit + 4, interior: i, hevThreshold: h, macroblockEdge: true)
            normalEdge(u, step: 1, along: uvStride, count: 8, limit: limit + 4, interior: i, hevThreshold: h, macroblockEdge: true)
            normalEdge(v, step: 1, along: uvStride, count: 8, limit: limit + 4, interior: i, hevThreshold: h, macroblockEdge: true)
        }
        if strength.inner {
            for x in stride(from: 4, to: 16, by: 4) {
                normalEdge(y + x, step: 1, along: yStride, count: 16, limit: limit, interior: i, hevThreshold: h, macroblockEdge: false)
            }
            normalEdge(u + 4, step: 1, along: uvStride, count: 8, limit: limit, interior: i, hevThreshold: h, macroblockEdge: false)
            normalEdge(v + 4, step: 1, along: uvStride, count: 8, limit: limit, interior: i, hevThreshold: h, macroblockEdge: false)
        }
        if top {
            normalEdge(y, step: yStride, along: 1, count: 16, limit: limit + 4, interior: i, hevThreshold: h, macroblockEdge: true)
            normalEdge(u, step: uvStride, along: 1, count: 8, limit: limit + 4, interior: i, hevThreshold: h, macroblockEdge: true)
            normalEdge(v, step: uvStride, along: 1, count: 8, limit: limit + 4, interior: i, hevThreshold: h, macroblockEdge: true)
        }
        if strength.inner {
            for r in stride(from: 4, to: 16, by: 4) {
                normalEdge(y + r * yStride, step: yStride, along: 1, count: 16, limit: limit, interior: i, hevThreshold: h,
                           macroblockEdge: false)
            }
            normalEdge(u + 4 * uvStride, step: uvStride, along: 1, count: 8, limit: limit, interior: i, hevThreshold: h,
                       macroblockEdge: false)
            normalEdge(v + 4 * uvStride, step: uvStride, along: 1, count: 8, limit: limit, interior: i, hevThreshold: h,
                       macroblockEdge: false)
        }
    }
}
