/// Intra prediction (RFC 6386 §12): a block's prediction from the reconstructed pixels above
/// it (`dst - stride`, with four more to the right for 4×4 blocks) and to its left
/// (`dst - 1`), written in place. The frame's missing edges are filled by the caller as §12.2
/// says (127 above the first row, 129 left of the first column).
enum IntraPrediction {
    @inline(__always)
    static func clip(_ v: Int) -> UInt8 { UInt8(v < 0 ? 0 : v > 255 ? 255 : v) }

    @inline(__always)
    static func avg3(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        UInt8((Int(a) + 2 * Int(b) + Int(c) + 2) >> 2)
    }

    @inline(__always)
    static func avg2(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Int(a) + Int(b) + 1) >> 1) }

    // SAFETY (both functions): `dst` is a block inside the decoder's workspace, which has the
    // row above (with four more pixels to the right) and the column to the left filled.
    /// §12.2: a `size`×`size` block (16 luma, 8 chroma) by one of the macroblock modes.
    static func predictBlock(_ dst: UnsafeMutablePointer<UInt8>, stride: Int, size: Int, mode: UInt8) {
        let top = dst - stride
        let shift = size == 16 ? 4 : 3
        switch mode {
        case MacroblockMode.v:
            for y in 0 ..< size { (dst + y * stride).update(from: top, count: size) }
        case MacroblockMode.h:
            for y in 0 ..< size { (dst + y * stride).update(repeating: dst[y * stride - 1], count: size) }
        case MacroblockMode.tm:
            let corner = Int(top[-1])
            for y in 0 ..< size {
                let row = dst + y * stride
                let left = Int(row[-1]) - corner
                for x in 0 ..< size { row[x] = clip(Int(top[x]) + left) }
            }
        default:
            var value = 128
            var sum = 0
            switch mode {
            case MacroblockMode.dc:
                for i in 0 ..< size { sum += Int(top[i]) + Int(dst[i * stride - 1]) }
                value = (sum + size) >> (shift + 1)
            case MacroblockMode.dcNoTop:
                for i in 0 ..< size { sum += Int(dst[i * stride - 1]) }
                value = (sum + size / 2) >> shift
            case MacroblockMode.dcNoLeft:
                for i in 0 ..< size { sum += Int(top[i]) }
                value = (sum + size / 2) >> shift
            default:
                value = 128
            }
            for y in 0 ..< size { (dst + y * stride).update(repeating: UInt8(value), count: size) }
        }
    }

    /// §12.3: a 4×4 luma block by one of the ten subblock modes. `A`…`H` are the eight
    /// pixels above (the last four above-right), `I`…`L` the four to the left, `X` the corner.
    static func predictSubblock(_ dst: UnsafeMutablePointer<UInt8>, stride s: Int, mode: UInt8) {
        let t = dst - s
        let x0 = t[-1]
        let a = t[0], b = t[1], c = t[2], d = t[3], e = t[4], f = t[5], g = t[6], h = t[7]
        let i = dst[-1], j = dst[s - 1], k = dst[2 * s - 1], l = dst[3 * s - 1]
        @inline(__always) func put(_ x: Int, _ y: Int, _ v: UInt8) { dst[y * s + x] = v }
        switch mode {
        case SubblockMode.dc:
            var sum = 4
            for n in 0 ..< 4 { sum += Int(t[n]) + Int(dst[n * s - 1]) }
            for y in 0 ..< 4 { (dst + y * s).update(repeating: UInt8(sum >> 3), count: 4) }
        case SubblockMode.tm:
            for y in 0 ..< 4 {
                let left = Int(dst[y * s - 1]) - Int(x0)
                for x in 0 ..< 4 { put(x, y, clip(Int(t[x]) + left)) }
            }
        case SubblockMode.ve:
            let row = [avg3(x0, a, b), avg3(a, b, c), avg3(b, c, d), avg3(c, d, e)]
            for y in 0 ..< 4 { for x in 0 ..< 4 { put(x, y, row[x]) } }
        case SubblockMode.he:
            let col = [avg3(x0, i, j), avg3(i, j, k), avg3(j, k, l), avg3(k, l, l)]
            for y in 0 ..< 4 { (dst + y * s).update(repeating: col[y], count: 4) }
        case SubblockMode.rd:
            // Down-right: constant along each diagonal, from the edge L K J I X A B C D.
            let edge = [l, k, j, i, x0, a, b, c, d]
            for y in 0 ..< 4 {
                for x in 0 ..< 4 {
                    let n = 4 - y + x
                    put(x, y, avg3(edge[n - 1], edge[n], edge[n + 1]))
                }
            }
        case SubblockMode.ld:
            // Down-left: constant along each anti-diagonal, from A … H (H repeated at the end).
            let edge = [a, b, c, d, e, f, g, h, h]
            for y in 0 ..< 4 {
                for x in 0 ..< 4 {
                    let n = x + y
                    put(x, y, avg3(edge[n], edge[n + 1], edge[n + 2]))
                }
            }
        case SubblockMode.vr:
            put(0, 0, avg2(x0, a)); put(1, 2, avg2(x0, a))
            put(1, 0, avg2(a, b)); put(2, 2, avg2(a, b))
            put(2, 0, avg2(b, c)); put(3, 2, avg2(b, c))
            put(3, 0, avg2(c, d))
            put(0, 3, avg3(k, j, i))
            put(0, 2, avg3(j, i, x0))
            put(0, 1, avg3(i, x0, a)); put(1, 3, avg3(i, x0, a))
            put(1, 1, avg3(x0, a, b)); put(2, 3, avg3(x0, a, b))
            put(2, 1, avg3(a, b, c)); put(3, 3, avg3(a, b, c))
            put(3, 1, avg3(b, c, d))
        case SubblockMode.vl:
            put(0, 0, avg2(a, b))
            put(1, 0, avg2(b, c)); put(0, 2, avg2(b, c))
            put(2, 0, avg2(c, d)); put(1, 2, avg2(c, d))
            put(3, 0, avg2(d, e)); put(2, 2, avg2(d, e))
            put(0, 1, avg3(a, b, c))
            put(1, 1, avg3(b, c, d)); put(0, 3, avg3(b, c, d))
            put(2, 1, avg3(c, d, e)); put(1, 3, avg3(c, d, e))
            put(3, 1, avg3(d, e, f)); put(2, 3, avg3(d, e, f))
            put(3, 2, avg3(e, f, g))
            put(3, 3, avg3(f, g, h))
        case SubblockMode.hd:
            put(0, 0, avg2(i, x0)); put(2, 1, avg2(i, x0))
            put(0, 1, avg2(j, i)); put(2, 2, avg2(j, i))
            put(0, 2, avg2(k, j)); put(2, 3, avg2(k, j))
            put(0, 3, avg2(l, k))
            put(3, 0, avg3(a, b, c))
            put(2, 0, avg3(x0, a, b))
            put(1, 0, avg3(i, x0, a)); put(3, 1, avg3(i, x0, a))
            put(1, 1, avg3(j, i, x0)); put(3, 2, avg3(j, i, x0))
            put(1, 2, avg3(k, j, i)); put(3, 3, avg3(k, j, i))
            put(1, 3, avg3(l, k, j))
        default: // SubblockMode.hu
            put(0, 0, avg2(i, j))
            put(2, 0, avg2(j, k)); put(0, 1, avg2(j, k))
            put(2, 1, avg2(k, l)); put(0, 2, avg2(k, l))
            put(1, 0, avg3(i, j, k))
            put(3, 0, avg3(j, k, l)); put(1, 1, avg3(j, k, l))
            put(3, 1, avg3(k, l, l)); put(1, 2, avg3(k, l, l))
            put(3, 2, l); put(2, 2, l); put(0, 3, l); put(1, 3, l); put(2, 3, l); put(3, 3, l)
        }
    }
}
