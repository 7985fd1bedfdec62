/// RGB → YCbCr for encoding (JFIF 1.02, "Conversion to and from RGB"; T.871 §7):
///
///     Y  =  0.299 R + 0.587 G + 0.114 B
///     Cb = −0.16874 R − 0.33126 G + 0.5 B + 128
///     Cr =  0.5 R − 0.41869 G − 0.08131 B + 128
///
/// in the 16-bit fixed point libjpeg uses, so that the same pixels give the same samples:
/// each coefficient is rounded to a multiple of 2^−16, Y is rounded to nearest, and Cb and
/// Cr add one half less one unit before truncating (which keeps them ≤ 255 for B or R of 255).
enum ForwardColor {
    /// The coefficients × 65536, rounded.
    static let yR: Int32 = 19595, yG: Int32 = 38470, yB: Int32 = 7471
    static let cbR: Int32 = -11059, cbG: Int32 = -21709, cbB: Int32 = 32768
    static let crR: Int32 = 32768, crG: Int32 = -27439, crB: Int32 = -5329
    static let half: Int32 = 1 << 15
    static let chromaOffset: Int32 = 128 << 16

    /// One pixel, the plain formula: the oracle for `convertRow`.
    static func convert(r: UInt8, g: UInt8, b: UInt8) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let r = Int32(r), g = Int32(g), b = Int32(b)
        let y = (yR * r + yG * g + yB * b + half) >> 16
        let cb = (cbR * r + cbG * g + cbB * b + chromaOffset + half - 1) >> 16
        let cr = (crR * r + crG * g + crB * b + chromaOffset + half - 1) >> 16
        return (UInt8(y), UInt8(cb), UInt8(cr))
    }

    /// `count` pixels of `channels` interleaved bytes (RGB first; a fourth, alpha, is
    /// skipped) into three planes.
    static func convertRow(_ pixels: UnsafePointer<UInt8>, channels: Int, count: Int,
                           y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>,
                           cr: UnsafeMutablePointer<UInt8>) {
        if channels == 3 {
            let done = convertRGBLanes(pixels, count: count, y: y, cb: cb, cr: cr)
            convertPixels(pixels + 3 &* done, stride: 3, count: count &- done, y: y + done, cb: cb + done, cr: cr + done)
        } else {
            convertPixels(pixels, stride: 4, count: count, y: y, cb: cb, cr: cr)
        }
    }

    @inline(__always)
    static func convertPixels(_ pixels: UnsafePointer<UInt8>, stride: Int, count: Int,
                              y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>,
                              cr: UnsafeMutablePointer<UInt8>) {
        // SAFETY: the caller gives `count` pixels of `stride` bytes and planes of `count`.
        for x in 0 ..< count {
            let p = pixels + x &* stride
            let r = Int32(p[0]), g = Int32(p[1]), b = Int32(p[2])
            y[x] = UInt8(truncatingIfNeeded: (yR &* r &+ yG &* g &+ yB &* b &+ half) &>> 16)
            cb[x] = UInt8(truncatingIfNeeded: (cbR &* r &+ cbG &* g &+ cbB &* b &+ (chromaOffset + half - 1)) &>> 16)
            cr[x] = UInt8(truncatingIfNeeded: (crR &* r &+ crG &* g &+ crB &* b &+ (chromaOffset + half - 1)) &>> 16)
        }
    }
}

extension ForwardColor {
    /// The same sums in 16-bit lanes, sixteen pixels at a time, with only 16-bit multiplies
    /// and adds (which baseline SSE2 has; it has no 32-bit lane multiply). Each coefficient
    /// c splits into 256·⌊c/256⌋ + (c mod 256), so that a sum S = Σ c·x + offset becomes
    /// 256·A + L with A = Σ ⌊c/256⌋·x + ⌊offset/256⌋ and L = Σ (c mod 256)·x + offset mod 256.
    /// For each output the low parts of the three coefficients add up to 256 (libjpeg's
    /// coefficients add up to 65536 or to 0), so L ≤ 255 · 256 + 255 fits 16 bits; and since
    /// 0 ≤ S < 2^24, ⌊S / 256⌋ = A + ⌊L / 256⌋ lies in 0…65535, so A may wrap while it is summed
    /// and the result ⌊S / 2^16⌋ = (A + L >> 8) >> 8 is exact. `EncoderTests` checks every RGB
    /// triple against `convert`.
    typealias Lanes = SIMD8<UInt16>

    /// One output sample for eight pixels: coefficients (cR, cG, cB) and the offset, ×65536.
    @inline(__always)
    static func sumLanes(_ r: Lanes, _ g: Lanes, _ b: Lanes, _ cR: Int32, _ cG: Int32, _ cB: Int32,
                         _ offset: Int32) -> Lanes {
        @inline(__always) func high(_ c: Int32) -> UInt16 { UInt16(truncatingIfNeeded: c &>> 8) }
        @inline(__always) func low(_ c: Int32) -> UInt16 { UInt16(truncatingIfNeeded: c & 0xFF) }
        let a = r &* high(cR) &+ g &* high(cG) &+ b &* high(cB) &+ Lanes(repeating: high(offset))
        let l = r &* low(cR) &+ g &* low(cG) &+ b &* low(cB) &+ Lanes(repeating: low(offset))
        return (a &+ (l &>> 8)) &>> 8
    }

    /// Converts whole groups of sixteen RGB pixels; returns how many pixels it converted.
    ///
    /// Sixteen pixels are 48 bytes, read as 24 little-endian 16-bit words, which repeat with
    /// a period of three words (two pixels): word 3k is R | G << 8 of pixel 2k, word 3k + 1
    /// is B of pixel 2k | R of pixel 2k + 1 << 8, word 3k + 2 is G | B << 8 of pixel 2k + 1.
    /// Gathering the words by their index mod 3 therefore gives the even pixels' R and G,
    /// the even B and odd R, and the odd G and B, each a mask or a shift away (`deinterleave`).
    /// The results of the even and odd pixels join as even | odd << 8, which puts the sixteen
    /// samples in order.
    static func convertRGBLanes(_ pixels: UnsafePointer<UInt8>, count: Int, y: UnsafeMutablePointer<UInt8>,
                                cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>) -> Int {
        let low = Lanes(repeating: 0xFF)
        var x = 0
        // SAFETY: x + 16 ≤ count: the group's 48 bytes are pixels of the row, and 16 samples
        // from x are inside each plane.
        while x &+ 16 <= count {
            let p = UnsafeRawPointer(pixels + 3 &* x)
            let words = deinterleave((p.loadUnaligned(as: Lanes.self), p.loadUnaligned(fromByteOffset: 16, as: Lanes.self),
                                      p.loadUnaligned(fromByteOffset: 32, as: Lanes.self)))
            let rEven = words.0 & low, gEven = words.0 &>> 8, bEven = words.1 & low
            let rOdd = words.1 &>> 8, gOdd = words.2 & low, bOdd = words.2 &>> 8
            @inline(__always) func store(_ cR: Int32, _ cG: Int32, _ cB: Int32, _ offset: Int32,
                                         _ plane: UnsafeMutablePointer<UInt8>) {
                let even = sumLanes(rEven, gEven, bEven, cR, cG, cB, offset)
                let odd = sumLanes(rOdd, gOdd, bOdd, cR, cG, cB, offset)
                UnsafeMutableRawPointer(plane + x).storeBytes(of: even | odd &<< 8, as: Lanes.self)
            }
            store(yR, yG, yB, half, y)
            store(cbR, cbG, cbB, chromaOffset + half - 1, cb)
            store(crR, crG, crB, chromaOffset + half - 1, cr)
            x &+= 16
        }
        return x
    }
}

extension ForwardColor {
    /// Gathers 24 words by their index mod 3: word i of the three vectors (0…23 in order)
    /// goes to vector i mod 3, lane i / 3. One `riffle` interleaves the first twelve words
    /// with the last twelve, which moves word i to position 2i mod 23 (word 23 stays); three
    /// of them move it to 8i mod 23, and for i = 3p + c that is p + 8c: vector c, lane p.
    /// Written as rounds of unpacks, which the optimiser keeps as a few word shuffles on
    /// SSE2 (the figures are in Benchmarks/notes/history.md).
    @inline(__always)
    static func deinterleave(_ v: (Lanes, Lanes, Lanes)) -> (Lanes, Lanes, Lanes) {
        riffle(riffle(riffle(v)))
    }

    /// Words 0…11 interleaved with words 12…23 (x86: punpcklwd, punpckhwd).
    @inline(__always)
    static func riffle(_ v: (Lanes, Lanes, Lanes)) -> (Lanes, Lanes, Lanes) {
        let (a, b, c) = v
        @inline(__always) func zipLow(_ a: Lanes, _ b: Lanes) -> Lanes { Lanes(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3]) }
        @inline(__always) func zipHigh(_ a: Lanes, _ b: Lanes) -> Lanes { Lanes(a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7]) }
        let bHigh = Lanes(lowHalf: b.highHalf, highHalf: .zero)    // words 4…7 of b first
        let cLow = Lanes(lowHalf: .zero, highHalf: c.lowHalf)      // words 0…3 of c last
        let cHigh = Lanes(lowHalf: c.highHalf, highHalf: .zero)
        return (zipLow(a, bHigh), zipHigh(a, cLow), zipLow(b, cHigh))
    }
}
