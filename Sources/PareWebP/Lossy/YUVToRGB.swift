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

    /// One output row of `width` pixels, `channels` (3 or 4) bytes apart: luma `y`, the chroma
    /// rows `near` (the one this row lies in) and `far` (the next one above or below; the
    /// same row at the picture's top and bottom). Alpha, when there is a fourth channel, is
    /// left alone. `scratch` holds 2 × `width` words for the upsampled chroma.
    /// A row of the picture at half size: each pixel the rounded mean of a 2×2 block of luma
    /// (`top` and `bottom` rows, `width` samples each, the last column alone when `width` is
    /// odd) with the one chroma sample 4:2:0 stores for that block, converted as `convertRow`
    /// converts. No chroma is interpolated, so this is also the cheapest way to a picture
    /// that is to be made smaller still.
    // SAFETY: `top`, `bottom` hold `width` samples, `u`, `v` (width + 1) / 2, `luma`
    // (width + 1) / 2 bytes of scratch, `scratch` 2 × width Int32, `out` (width + 1) / 2 ×
    // channels bytes.
    static func halfRow(top: UnsafePointer<UInt8>, bottom: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>,
                        v: UnsafePointer<UInt8>, width: Int, luma: UnsafeMutablePointer<UInt8>,
                        out: UnsafeMutablePointer<UInt8>, channels: Int, scratch: UnsafeMutablePointer<Int32>) {
        let half = (width + 1) / 2
        let us = scratch, vs = scratch + width
        for x in 0 ..< half {
            let x0 = 2 * x, x1 = min(2 * x + 1, width - 1)
            let sum = Int(top[x0]) + Int(top[x1]) + Int(bottom[x0]) + Int(bottom[x1])
            luma[x] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
            us[x] = Int32(u[x])
            vs[x] = Int32(v[x])
        }
        convertRow(y: luma, u: us, v: vs, width: half, out: out, channels: channels)
    }

    static func upsampleRow(y: UnsafePointer<UInt8>, nearU: UnsafePointer<UInt8>, nearV: UnsafePointer<UInt8>,
                            farU: UnsafePointer<UInt8>, farV: UnsafePointer<UInt8>, width: Int,
                            out: UnsafeMutablePointer<UInt8>, channels: Int, scratch: UnsafeMutablePointer<Int32>) {
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
                               into out: UnsafeMutablePointer<Int32>) {
        out[0] = (3 * Int32(near[0]) + Int32(far[0]) + 2) >> 2
        let pairs = (width - 1) >> 1
        var n0 = Int32(near[0]), f0 = Int32(far[0])
        var c = 1
        while c <= pairs {
            let n1 = Int32(near[c]), f1 = Int32(far[c])
            let sum = n0 + n1 + f0 + f1 + 8
            out[2 * c - 1] = (((sum + 2 * (n1 + f0)) >> 3) + n0) >> 1
            out[2 * c] = (((sum + 2 * (n0 + f1)) >> 3) + n1) >> 1
            n0 = n1
            f0 = f1
            c += 1
        }
        if width & 1 == 0 && width > 1 {
            let last = (width - 1) >> 1
            out[width - 1] = (3 * Int32(near[last]) + Int32(far[last]) + 2) >> 2
        }
    }

    /// The conversion of a row, eight pixels at a time in vector registers.
    // SAFETY: `y`, `u`, `v` hold `width` samples, `out` width × channels bytes.
    @inline(__always)
    static func convertRow(y: UnsafePointer<UInt8>, u: UnsafePointer<Int32>, v: UnsafePointer<Int32>, width: Int,
                           out: UnsafeMutablePointer<UInt8>, channels: Int) {
        var x = 0
        let zero = SIMD8<Int32>(repeating: 0), top = SIMD8<Int32>(repeating: 255)
        while x + 8 <= width {
            let yv = SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(y + x).loadUnaligned(as: SIMD8<UInt8>.self))
            let uv = UnsafeRawPointer(u + x).loadUnaligned(as: SIMD8<Int32>.self)
            let vv = UnsafeRawPointer(v + x).loadUnaligned(as: SIMD8<Int32>.self)
            let luma = (yv &* 19077) &>> 8
            let r = ((luma &+ ((vv &* 26149) &>> 8) &- 14234) &>> 6).clamped(lowerBound: zero, upperBound: top)
            let g = ((luma &- ((uv &* 6419) &>> 8) &- ((vv &* 13320) &>> 8) &+ 8708) &>> 6)
                .clamped(lowerBound: zero, upperBound: top)
            let b = ((luma &+ ((uv &* 33050) &>> 8) &- 17685) &>> 6).clamped(lowerBound: zero, upperBound: top)
            let o = out + x * channels
            for i in 0 ..< 8 {
                o[i * channels] = UInt8(truncatingIfNeeded: r[i])
                o[i * channels + 1] = UInt8(truncatingIfNeeded: g[i])
                o[i * channels + 2] = UInt8(truncatingIfNeeded: b[i])
            }
            x += 8
        }
        while x < width {
            convert(Int32(y[x]), u[x], v[x], to: out + x * channels)
            x += 1
        }
    }
}
