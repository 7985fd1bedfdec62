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
    /// left alone.
    static func upsampleRow(y: UnsafePointer<UInt8>, nearU: UnsafePointer<UInt8>, nearV: UnsafePointer<UInt8>,
                            farU: UnsafePointer<UInt8>, farV: UnsafePointer<UInt8>, width: Int,
                            out: UnsafeMutablePointer<UInt8>, channels: Int) {
        // One copy for each pixel size, so that the stores are fixed offsets.
        if channels == 4 {
            upsample(y: y, nearU: nearU, nearV: nearV, farU: farU, farV: farV, width: width, out: out, channels: 4)
        } else {
            upsample(y: y, nearU: nearU, nearV: nearV, farU: farU, farV: farV, width: width, out: out, channels: 3)
        }
    }

    // SAFETY: the callers' rows hold `width` luma samples, (width + 1) / 2 chroma samples and
    // `width * channels` output bytes.
    @inline(__always)
    static func upsample(y: UnsafePointer<UInt8>, nearU: UnsafePointer<UInt8>, nearV: UnsafePointer<UInt8>,
                         farU: UnsafePointer<UInt8>, farV: UnsafePointer<UInt8>, width: Int,
                         out: UnsafeMutablePointer<UInt8>, channels: Int) {
        // Column 0 and, for an even width, the last column have one chroma column: 3:1 rows.
        @inline(__always) func edge(_ c: Int, _ x: Int) {
            let u = (3 * Int32(nearU[c]) + Int32(farU[c]) + 2) >> 2
            let v = (3 * Int32(nearV[c]) + Int32(farV[c]) + 2) >> 2
            convert(Int32(y[x]), u, v, to: out + x * channels)
        }
        edge(0, 0)
        let pairs = (width - 1) >> 1
        var nu0 = Int32(nearU[0]), nv0 = Int32(nearV[0]), fu0 = Int32(farU[0]), fv0 = Int32(farV[0])
        for c in 1 ... max(pairs, 1) where pairs >= 1 {
            let nu1 = Int32(nearU[c]), nv1 = Int32(nearV[c]), fu1 = Int32(farU[c]), fv1 = Int32(farV[c])
            // Pixel 2c−1 lies nearest chroma (near, c−1), pixel 2c nearest (near, c).
            let su = nu0 + nu1 + fu0 + fu1 + 8, sv = nv0 + nv1 + fv0 + fv1 + 8
            let uLeft = (((su + 2 * (nu1 + fu0)) >> 3) + nu0) >> 1
            let vLeft = (((sv + 2 * (nv1 + fv0)) >> 3) + nv0) >> 1
            let uRight = (((su + 2 * (nu0 + fu1)) >> 3) + nu1) >> 1
            let vRight = (((sv + 2 * (nv0 + fv1)) >> 3) + nv1) >> 1
            convert(Int32(y[2 * c - 1]), uLeft, vLeft, to: out + (2 * c - 1) * channels)
            convert(Int32(y[2 * c]), uRight, vRight, to: out + 2 * c * channels)
            nu0 = nu1; nv0 = nv1; fu0 = fu1; fv0 = fv1
        }
        if width & 1 == 0 && width > 1 { edge((width - 1) >> 1, width - 1) }
    }
}
