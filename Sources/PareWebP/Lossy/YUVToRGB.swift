/// Colour conversion of lossy frames as libwebp's default output does it ("fancy"
/// upsampling): the 4:2:0 chroma is brought to full size by weighting the two nearest chroma
/// rows 3:1 and the two nearest columns 3:1 (9:3:3:1 over the four nearest samples), then
/// each pixel is converted from BT.601 limited-range Y'CbCr (RFC 6386 §9.2, colour space 0)
/// to RGB in 14-bit fixed point.
enum YUVToRGB {
    /// `(v * coefficient) >> 8`: a 16-bit multiply keeping the high part.
    @inline(__always)
    static func multiplyHigh(_ v: Int32, _ coefficient: Int32) -> Int32 { (v &* coefficient) >> 8 }

    /// A 6-bit fixed-point value to a byte, clamped.
    @inline(__always)
    static func clip(_ v: Int32) -> UInt8 {
        UInt8(clamping: v >> 6)
    }

    /// One pixel: R = 1.164·(Y−16) + 1.596·(V−128), G = 1.164·(Y−16) − 0.391·(U−128) − 0.813·(V−128),
    /// B = 1.164·(Y−16) + 2.018·(U−128), with the constants folded into the offsets.
    @inline(__always)
    static func convert(_ y: Int32, _ u: Int32, _ v: Int32, to out: UnsafeMutablePointer<UInt8>) {
        let luma = multiplyHigh(y, 19077)
        out[0] = clip(luma + multiplyHigh(v, 26149) - 14234)
        out[1] = clip(luma - multiplyHigh(u, 6419) - multiplyHigh(v, 13320) + 8708)
        out[2] = clip(luma + multiplyHigh(u, 33050) - 17685)
    }

    /// A row of the picture at half size: each pixel the rounded mean of a 2×2 block of luma
    /// (`top` and `bottom` rows, `width` samples each, the last column alone when `width` is
    /// odd) with the one chroma sample 4:2:0 stores for that block, converted as `convertRow`
    /// converts. No chroma is interpolated, so this is also the cheapest way to a picture
    /// that is to be made smaller still. The means are taken 8 at a time in vector registers;
    /// `halfRowPlain` is the same row one pixel at a time, and its oracle.
    // SAFETY: `top`, `bottom` hold `width` samples, `u`, `v` (width + 1) / 2, `luma`
    // (width + 1) / 2 bytes of scratch, `scratch` 2 × width UInt16, `out` (width + 1) / 2 ×
    // channels bytes. The vector loop reads top and bottom at 2x ..< 2x + 16 while
    // 2x + 16 ≤ width, and writes luma, us and vs at x ..< x + 8 ≤ width / 2.
    static func halfRow(top: UnsafePointer<UInt8>, bottom: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>,
                        v: UnsafePointer<UInt8>, width: Int, luma: UnsafeMutablePointer<UInt8>,
                        out: UnsafeMutablePointer<UInt8>, channels: Int, scratch: UnsafeMutablePointer<UInt16>) {
        let half = (width + 1) / 2
        let us = scratch, vs = scratch + width
        var x = 0
        while 2 * x + 16 <= width {
            let t = UnsafeRawPointer(top + 2 * x).loadUnaligned(as: SIMD16<UInt8>.self)
            let b = UnsafeRawPointer(bottom + 2 * x).loadUnaligned(as: SIMD16<UInt8>.self)
            let cu = UnsafeRawPointer(u + x).loadUnaligned(as: SIMD8<UInt8>.self)
            let cv = UnsafeRawPointer(v + x).loadUnaligned(as: SIMD8<UInt8>.self)
            // Widened lane by lane (one unpack): the standard library's generic conversion
            // between vector types was left as a call per lane.
            var sum = SIMD8<UInt16>(repeating: 2)
            var chromaU = SIMD8<UInt16>(), chromaV = SIMD8<UInt16>()
            for lane in 0 ..< 8 {
                sum[lane] &+= UInt16(t[2 * lane]) &+ UInt16(t[2 * lane + 1]) &+ UInt16(b[2 * lane]) &+ UInt16(b[2 * lane + 1])
                chromaU[lane] = UInt16(cu[lane])
                chromaV[lane] = UInt16(cv[lane])
            }
            sum &>>= 2
            var means = SIMD8<UInt8>()
            for lane in 0 ..< 8 { means[lane] = UInt8(truncatingIfNeeded: sum[lane]) }
            UnsafeMutableRawPointer(luma + x).storeBytes(of: means, as: SIMD8<UInt8>.self)
            UnsafeMutableRawPointer(us + x).storeBytes(of: chromaU, as: SIMD8<UInt16>.self)
            UnsafeMutableRawPointer(vs + x).storeBytes(of: chromaV, as: SIMD8<UInt16>.self)
            x += 8
        }
        halfMeans(top: top, bottom: bottom, u: u, v: v, width: width, from: x, luma: luma, scratch: scratch)
        if channels == 4 {
            convertRow(y: luma, u: us, v: vs, width: half, out: out, channels: 4)
        } else {
            convertRow(y: luma, u: us, v: vs, width: half, out: out, channels: 3)
        }
    }

    /// `halfRow` one pixel at a time: its oracle.
    static func halfRowPlain(top: UnsafePointer<UInt8>, bottom: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>,
                             v: UnsafePointer<UInt8>, width: Int, luma: UnsafeMutablePointer<UInt8>,
                             out: UnsafeMutablePointer<UInt8>, channels: Int, scratch: UnsafeMutablePointer<UInt16>) {
        let half = (width + 1) / 2
        halfMeans(top: top, bottom: bottom, u: u, v: v, width: width, from: 0, luma: luma, scratch: scratch)
        for x in 0 ..< half { convert(Int32(luma[x]), Int32(scratch[x]), Int32(scratch[width + x]), to: out + x * channels) }
    }

    /// The 2×2 luma means and the chroma of the half row's pixels from `from` on.
    @inline(__always)
    static func halfMeans(top: UnsafePointer<UInt8>, bottom: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>,
                          v: UnsafePointer<UInt8>, width: Int, from: Int, luma: UnsafeMutablePointer<UInt8>,
                          scratch: UnsafeMutablePointer<UInt16>) {
        for x in from ..< (width + 1) / 2 {
            let x0 = 2 * x, x1 = min(2 * x + 1, width - 1)
            let sum = Int(top[x0]) + Int(top[x1]) + Int(bottom[x0]) + Int(bottom[x1])
            luma[x] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
            scratch[x] = UInt16(u[x])
            scratch[width + x] = UInt16(v[x])
        }
    }

    /// One output row of `width` pixels, `channels` (3 or 4) bytes apart: luma `y`, the chroma
    /// rows `near` (the one this row lies in) and `far` (the next one above or below; the
    /// same row at the picture's top and bottom). Alpha, when there is a fourth channel, is
    /// left alone. `scratch` holds 2 × `width` 16-bit words for the upsampled chroma.
    static func upsampleRow(y: UnsafePointer<UInt8>, nearU: UnsafePointer<UInt8>, nearV: UnsafePointer<UInt8>,
                            farU: UnsafePointer<UInt8>, farV: UnsafePointer<UInt8>, width: Int,
                            out: UnsafeMutablePointer<UInt8>, channels: Int, scratch: UnsafeMutablePointer<UInt16>) {
        let us = scratch, vs = scratch + width
        upsampleChroma(near: nearU, far: farU, width: width, into: us)
        upsampleChroma(near: nearV, far: farV, width: width, into: vs)
        if channels == 4 {
            convertRow(y: y, u: us, v: vs, width: width, out: out, channels: 4)
        } else {
            convertRow(y: y, u: us, v: vs, width: width, out: out, channels: 3)
        }
    }

    /// One chroma plane brought to the row's full width: each output sample weights its
    /// nearest chroma sample 9, the two next 3 and the diagonal 1 (out of 16), computed as the
    /// reference decoder rounds it (an average of the 3:1 diagonal blend and the nearest).
    // SAFETY: `near` and `far` hold (width + 1) / 2 samples, `out` width words.
    static func upsampleChroma(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, width: Int,
                               into out: UnsafeMutablePointer<UInt16>) {
        out[0] = UInt16(truncatingIfNeeded: (3 * Int32(near[0]) + Int32(far[0]) + 2) >> 2)
        let pairs = (width - 1) >> 1
        var n0 = Int32(near[0]), f0 = Int32(far[0])
        var c = 1
        while c <= pairs {
            let n1 = Int32(near[c]), f1 = Int32(far[c])
            let sum = n0 + n1 + f0 + f1 + 8
            out[2 * c - 1] = UInt16(truncatingIfNeeded: (((sum + 2 * (n1 + f0)) >> 3) + n0) >> 1)
            out[2 * c] = UInt16(truncatingIfNeeded: (((sum + 2 * (n0 + f1)) >> 3) + n1) >> 1)
            n0 = n1
            f0 = f1
            c += 1
        }
        if width & 1 == 0 && width > 1 {
            let last = (width - 1) >> 1
            out[width - 1] = UInt16(truncatingIfNeeded: (3 * Int32(near[last]) + Int32(far[last]) + 2) >> 2)
        }
    }

    /// The conversion of a row, eight pixels at a time in 16-bit lanes, as `convert` computes
    /// it: each product `(a · k) >> 8` is the high half of `(a << 8) · k` (one multiply-high),
    /// and every sum stays within its lanes: R's and G's in Int16 ([−14234, 30815] and
    /// [−10954, 27710]), B's, which reaches 51922, unsigned, its offset taken off saturating at
    /// zero (what the clip to a byte would make of a negative value anyway).
    // SAFETY: `y`, `u`, `v` hold `width` samples, `out` width × channels bytes; the vector
    // loop touches x ..< x + 8 ≤ width of each, and with three channels x + 8 < width keeps
    // its 2 bytes past the 24 inside the row.
    @inline(__always)
    static func convertRow(y: UnsafePointer<UInt8>, u: UnsafePointer<UInt16>, v: UnsafePointer<UInt16>, width: Int,
                           out: UnsafeMutablePointer<UInt8>, channels: Int) {
        typealias Lanes = SIMD8<UInt16>
        typealias Signed = SIMD8<Int16>
        // Written lane by lane in 32 bits: the optimiser makes each one multiply-high.
        @inline(__always) func multiplyHigh(_ a: Lanes, _ k: UInt16) -> Lanes {
            var r = Lanes()
            for lane in 0 ..< 8 { r[lane] = UInt16(truncatingIfNeeded: (UInt32(a[lane]) &* UInt32(k)) &>> 16) }
            return r
        }
        @inline(__always) func signed(_ a: Lanes) -> Signed { unsafeBitCast(a, to: Signed.self) }
        // Clipped to a byte lane by lane (one saturating pack).
        @inline(__always) func bytes(_ a: Signed) -> SIMD8<UInt8> {
            var r = SIMD8<UInt8>()
            for lane in 0 ..< 8 { r[lane] = UInt8(truncatingIfNeeded: min(max(a[lane], 0), 255)) }
            return r
        }
        var x = 0
        // Three channels: the last step writes 2 bytes past its 24, into the next pixel's.
        let vectorEnd = channels == 4 ? width : width - 1
        while x + 8 <= vectorEnd {
            let luma8 = UnsafeRawPointer(y + x).loadUnaligned(as: SIMD8<UInt8>.self)
            var yv = Lanes()
            for lane in 0 ..< 8 { yv[lane] = UInt16(luma8[lane]) &<< 8 }
            let uv = UnsafeRawPointer(u + x).loadUnaligned(as: Lanes.self) &<< 8
            let vv = UnsafeRawPointer(v + x).loadUnaligned(as: Lanes.self) &<< 8
            let luma = multiplyHigh(yv, 19077)
            let r = (signed(luma) &- 14234 &+ signed(multiplyHigh(vv, 26149))) &>> 6
            let g = (signed(luma) &+ 8708 &- signed(multiplyHigh(uv, 6419)) &- signed(multiplyHigh(vv, 13320))) &>> 6
            let blue = luma &+ multiplyHigh(uv, 33050)
            let b = (blue.replacing(with: 17685, where: blue .< 17685) &- 17685) &>> 6
            let red = bytes(r), green = bytes(g), bl = bytes(signed(b))
            // One pixel a 32-bit word (R, G, B, then 0 or the alpha already there), stored
            // whole with four channels, or as two pixels of 6 bytes a 64-bit word with three:
            // single bytes cannot be taken out of vector lanes cheaply.
            var words = SIMD8<UInt32>()
            for lane in 0 ..< 8 { words[lane] = UInt32(red[lane]) | UInt32(green[lane]) << 8 | UInt32(bl[lane]) << 16 }
            let o = UnsafeMutableRawPointer(out + x * channels)
            if channels == 4 {
                let alpha = o.loadUnaligned(as: SIMD8<UInt32>.self) & 0xFF00_0000
                o.storeBytes(of: words | alpha, as: SIMD8<UInt32>.self)
            } else {
                let quads = unsafeBitCast(words, to: SIMD4<UInt64>.self)
                let pairs = (quads & 0xFF_FFFF) | ((quads &>> 8) & 0xFFFF_FF00_0000)
                o.storeBytes(of: pairs[0], as: UInt64.self)
                o.storeBytes(of: pairs[1], toByteOffset: 6, as: UInt64.self)
                o.storeBytes(of: pairs[2], toByteOffset: 12, as: UInt64.self)
                o.storeBytes(of: pairs[3], toByteOffset: 18, as: UInt64.self)
            }
            x += 8
        }
        while x < width {
            convert(Int32(y[x]), Int32(u[x]), Int32(v[x]), to: out + x * channels)
            x += 1
        }
    }
}
