import PareCore

/// Turns one image row of a decoded band (a strip, or a row of tiles, every plane) into a
/// row of the output format: the samples unpacked from their bit depth and planes
/// (TIFF 6.0 §8 BitsPerSample, PlanarConfiguration; rows start on a byte), then
/// interpreted by PhotometricInterpretation: gray (min-is-white inverted), palette
/// through the ColorMap (§5), RGB, CMYK inks (§16), and alpha (§18 ExtraSamples).
///
/// Samples become 8 bits as libtiff's RGBA interface scales them: depths below 8 by
/// v × 255 / (2^bits − 1) (exact for 1, 2 and 4 bits), 16 bits by (v + 128) / 257, the
/// nearest 8-bit value. Associated alpha is divided back out, nearest.
struct RowAssembler {
    let width: Int
    let bitsPerSample: Int
    let samplesPerPixel: Int
    let planar: Int
    let planes: Int
    let across: Int
    let segmentWidth: Int
    let segmentRowBytes: Int
    let segmentBytes: Int
    let photometric: Int
    let colorSamples: Int
    let alpha: TIFFAlpha
    let alphaSample: Int
    let colorMap: [UInt8]
    let ycbcr: YCbCrConversion?
    let byteOrder: ByteOrder
    let format: PixelFormat

    init(_ s: ImageStructure, byteOrder: ByteOrder) {
        width = s.width
        bitsPerSample = s.bitsPerSample
        samplesPerPixel = s.samplesPerPixel
        planar = s.planar
        planes = s.planes
        across = s.across
        segmentWidth = s.segmentWidth
        segmentRowBytes = s.segmentRowBytes
        segmentBytes = s.segmentBytes
        // JPEG data arrives as RGB: YCbCr is converted by the JPEG decoder.
        photometric = s.photometric == TIFFPhotometric.ycbcr && s.ycbcr == nil ? TIFFPhotometric.rgb : s.photometric
        colorSamples = s.colorSamples
        alpha = s.alpha
        alphaSample = s.alphaSample
        colorMap = s.colorMap
        ycbcr = s.ycbcr
        self.byteOrder = byteOrder
        format = s.outputFormat
    }

    /// True when a segment row's bytes already are the output row: 8-bit interleaved
    /// samples exactly the output's, in one strip as wide as the image.
    var copiesRows: Bool {
        bitsPerSample == 8 && planes == 1 && across == 1 && alpha == .none && samplesPerPixel == colorSamples
            && (photometric == TIFFPhotometric.minIsBlack || photometric == TIFFPhotometric.rgb
                || photometric == TIFFPhotometric.separated)
    }

    /// Writes band row `row` into `output` (`width` pixels of `format`), using `samples`
    /// (`width × samplesPerPixel` values) as scratch.
    func assemble(row: Int, band: UnsafeRawPointer, samples: UnsafeMutablePointer<UInt16>,
                  output: UnsafeMutablePointer<UInt8>) {
        if copiesRows {
            // SAFETY: the band row holds segmentRowBytes = width × samplesPerPixel bytes (one
            // 8-bit strip as wide as the image), the output row as many.
            output.update(from: (band + row * segmentRowBytes).assumingMemoryBound(to: UInt8.self),
                          count: width * samplesPerPixel)
            return
        }
        unpack(row: row, band: band, samples: samples)
        convert(samples, output)
    }

    /// Every sample of the row, interleaved, as stored (not yet scaled).
    private func unpack(row: Int, band: UnsafeRawPointer, samples: UnsafeMutablePointer<UInt16>) {
        let perPixel = planar == 1 ? samplesPerPixel : 1
        for plane in 0 ..< planes {
            for column in 0 ..< across {
                let x0 = column * segmentWidth
                let pixels = min(segmentWidth, width - x0)
                let source = (band + (plane * across + column) * segmentBytes + row * segmentRowBytes)
                    .assumingMemoryBound(to: UInt8.self)
                // SAFETY: the segment row holds segmentWidth × perPixel samples of bitsPerSample
                // bits (segmentRowBytes), pixels ≤ segmentWidth; the scratch holds width ×
                // samplesPerPixel values and x0 + pixels ≤ width.
                let count = pixels * perPixel
                let destination = samples + x0 * samplesPerPixel + plane
                let step = planar == 1 ? 1 : samplesPerPixel
                switch bitsPerSample {
                case 8:
                    for k in 0 ..< count { destination[k * step] = UInt16(source[k]) }
                case 16:
                    if byteOrder == .bigEndian {
                        for k in 0 ..< count { destination[k * step] = UInt16(source[2 * k]) << 8 | UInt16(source[2 * k + 1]) }
                    } else {
                        for k in 0 ..< count { destination[k * step] = UInt16(source[2 * k + 1]) << 8 | UInt16(source[2 * k]) }
                    }
                default:
                    let bits = bitsPerSample, mask = (1 << bits) - 1
                    for k in 0 ..< count {
                        let bit = k * bits
                        destination[k * step] = UInt16((Int(source[bit >> 3]) >> (8 - bits - bit & 7)) & mask)
                    }
                }
            }
        }
    }

    /// A sample scaled to 8 bits.
    @inline(__always)
    private func eight(_ v: UInt16) -> UInt8 {
        switch bitsPerSample {
        case 8: return UInt8(truncatingIfNeeded: v)
        case 16: return UInt8((Int(v) + 128) / 257)
        default: return UInt8(Int(v) * 255 / ((1 << bitsPerSample) - 1))
        }
    }

    private func convert(_ samples: UnsafeMutablePointer<UInt16>, _ output: UnsafeMutablePointer<UInt8>) {
        let spp = samplesPerPixel
        // SAFETY: pixel x reads samples x × spp … x × spp + spp − 1 (< width × spp) and
        // writes format.bytesPerPixel bytes at x × bytesPerPixel (< width × bytesPerPixel).
        switch photometric {
        case TIFFPhotometric.minIsWhite, TIFFPhotometric.minIsBlack:
            let invert: UInt8 = photometric == TIFFPhotometric.minIsWhite ? 255 : 0
            if alpha == .none {
                for x in 0 ..< width { output[x] = eight(samples[x * spp]) ^ invert }
            } else {
                for x in 0 ..< width {
                    let a = eight(samples[x * spp + alphaSample])
                    output[2 * x] = unassociate(eight(samples[x * spp]), a) ^ invert
                    output[2 * x + 1] = a
                }
            }
        case TIFFPhotometric.palette:
            for x in 0 ..< width {
                let i = 3 * Int(samples[x * spp] & 0xFF)
                output[3 * x] = colorMap[i]
                output[3 * x + 1] = colorMap[i + 1]
                output[3 * x + 2] = colorMap[i + 2]
            }
        case TIFFPhotometric.separated:
            for x in 0 ..< width {
                for c in 0 ..< 4 { output[4 * x + c] = eight(samples[x * spp + c]) }
            }
        case TIFFPhotometric.ycbcr:
            guard let ycbcr else { return }
            let stride = format.bytesPerPixel
            for x in 0 ..< width {
                let (r, g, b) = ycbcr.rgb(eight(samples[x * spp]), eight(samples[x * spp + 1]), eight(samples[x * spp + 2]))
                output[stride * x] = r
                output[stride * x + 1] = g
                output[stride * x + 2] = b
                if stride == 4 { output[4 * x + 3] = eight(samples[x * spp + alphaSample]) }
            }
        default:
            if alpha == .none {
                for x in 0 ..< width {
                    for c in 0 ..< 3 { output[3 * x + c] = eight(samples[x * spp + c]) }
                }
            } else {
                for x in 0 ..< width {
                    let a = eight(samples[x * spp + alphaSample])
                    for c in 0 ..< 3 { output[4 * x + c] = unassociate(eight(samples[x * spp + c]), a) }
                    output[4 * x + 3] = a
                }
            }
        }
    }

    /// A colour sample as unassociated alpha: associated samples divided by alpha (nearest,
    /// at most 255; 0 where alpha is 0), unassociated ones as they are.
    @inline(__always)
    private func unassociate(_ c: UInt8, _ a: UInt8) -> UInt8 {
        guard alpha == .associated else { return c }
        guard a != 0 else { return 0 }
        return UInt8(min(255, (Int(c) * 255 + Int(a) / 2) / Int(a)))
    }
}
