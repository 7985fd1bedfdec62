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
    /// The image's layout, sample depth, alpha and colour map, as the IFD gave them.
    let image: ImageStructure
    /// The interpretation the samples arrive in: JPEG strips arrive as RGB, the JPEG decoder
    /// having converted their YCbCr.
    let photometric: Int
    let byteOrder: ByteOrder
    let format: PixelFormat

    init(_ image: ImageStructure, byteOrder: ByteOrder) {
        self.image = image
        photometric = image.photometric == TIFFPhotometric.ycbcr && image.ycbcr == nil ? TIFFPhotometric.rgb : image.photometric
        self.byteOrder = byteOrder
        format = image.outputFormat
    }

    /// True when a segment row's bytes already are the output row: 8-bit interleaved
    /// samples exactly the output's, in one strip as wide as the image.
    var copiesRows: Bool {
        image.bitsPerSample == 8 && image.planes == 1 && image.across == 1 && image.alpha == .none
            && image.samplesPerPixel == image.colorSamples
            && (photometric == TIFFPhotometric.minIsBlack || photometric == TIFFPhotometric.rgb
                || photometric == TIFFPhotometric.separated)
    }

    /// Band row `row` as `width` pixels of `format`: the band's own bytes where they already
    /// are that (`copiesRows`: no copy), else written into `output` using `samples`
    /// (`width × samplesPerPixel` values) as scratch. Valid until the band is decoded over.
    func assemble(row: Int, band: UnsafeRawPointer, samples: UnsafeMutablePointer<UInt16>,
                  output: UnsafeMutablePointer<UInt8>) -> UnsafePointer<UInt8> {
        if copiesRows {
            // The band row holds segmentRowBytes = width × samplesPerPixel bytes (one 8-bit
            // strip as wide as the image), the output row's.
            return (band + row * image.segmentRowBytes).assumingMemoryBound(to: UInt8.self)
        }
        unpack(row: row, band: band, samples: samples)
        convert(samples, output)
        return UnsafePointer(output)
    }

    /// Every sample of the row, interleaved, as stored (not yet scaled).
    private func unpack(row: Int, band: UnsafeRawPointer, samples: UnsafeMutablePointer<UInt16>) {
        if let block = image.chromaBlock {
            unpackBlocks(row: row, band: band, samples: samples, block: block)
            return
        }
        let perPixel = image.planar == 1 ? image.samplesPerPixel : 1
        for plane in 0 ..< image.planes {
            for column in 0 ..< image.across {
                let x0 = column * image.segmentWidth
                let pixels = min(image.segmentWidth, image.width - x0)
                let source = (band + (plane * image.across + column) * image.segmentBytes + row * image.segmentRowBytes)
                    .assumingMemoryBound(to: UInt8.self)
                // SAFETY: the segment row holds segmentWidth × perPixel samples of bitsPerSample
                // bits (segmentRowBytes), pixels ≤ segmentWidth; the scratch holds width ×
                // samplesPerPixel values and x0 + pixels ≤ width.
                let count = pixels * perPixel
                let destination = samples + x0 * image.samplesPerPixel + plane
                let step = image.planar == 1 ? 1 : image.samplesPerPixel
                switch image.bitsPerSample {
                case 8:
                    for k in 0 ..< count { destination[k * step] = UInt16(source[k]) }
                case 16:
                    if byteOrder == .bigEndian {
                        for k in 0 ..< count { destination[k * step] = UInt16(source[2 * k]) << 8 | UInt16(source[2 * k + 1]) }
                    } else {
                        for k in 0 ..< count { destination[k * step] = UInt16(source[2 * k + 1]) << 8 | UInt16(source[2 * k]) }
                    }
                default:
                    let bits = image.bitsPerSample, mask = (1 << bits) - 1
                    for k in 0 ..< count {
                        let bit = k * bits
                        destination[k * step] = UInt16((Int(source[bit >> 3]) >> (8 - bits - bit & 7)) & mask)
                    }
                }
            }
        }
    }

    /// TIFF 6.0 §21: Y, Cb, Cr of each pixel of the row from the chroma blocks of its
    /// stored row, every pixel of a block taking the block's Cb and Cr (as libtiff's RGBA
    /// interface does: no chroma interpolation).
    private func unpackBlocks(row: Int, band: UnsafeRawPointer, samples: UnsafeMutablePointer<UInt16>,
                              block: (horizontal: Int, vertical: Int)) {
        let h = block.horizontal, unitBytes = h * block.vertical + 2
        let line = row % block.vertical
        for column in 0 ..< image.across {
            let x0 = column * image.segmentWidth
            let pixels = min(image.segmentWidth, image.width - x0)
            let source = (band + column * image.segmentBytes + row / block.vertical * image.segmentRowBytes)
                .assumingMemoryBound(to: UInt8.self)
            // SAFETY: the stored row holds ⌈segmentWidth / h⌉ units of unitBytes (segmentRowBytes)
            // and pixel k < pixels ≤ segmentWidth reads unit k / h; the scratch holds width × 3
            // values and x0 + pixels ≤ width.
            let destination = samples + 3 * x0
            for k in 0 ..< pixels {
                let unit = source + k / h * unitBytes
                destination[3 * k] = UInt16(unit[line * h + k % h])
                destination[3 * k + 1] = UInt16(unit[unitBytes - 2])
                destination[3 * k + 2] = UInt16(unit[unitBytes - 1])
            }
        }
    }

    /// A sample scaled to 8 bits.
    @inline(__always)
    private func eight(_ v: UInt16) -> UInt8 {
        switch image.bitsPerSample {
        case 8: return UInt8(truncatingIfNeeded: v)
        case 16: return UInt8((Int(v) + 128) / 257)
        default: return UInt8(Int(v) * 255 / ((1 << image.bitsPerSample) - 1))
        }
    }

    private func convert(_ samples: UnsafeMutablePointer<UInt16>, _ output: UnsafeMutablePointer<UInt8>) {
        let spp = image.samplesPerPixel
        // SAFETY: pixel x reads samples x × spp … x × spp + spp − 1 (< width × spp) and
        // writes format.bytesPerPixel bytes at x × bytesPerPixel (< width × bytesPerPixel).
        switch photometric {
        case TIFFPhotometric.minIsWhite, TIFFPhotometric.minIsBlack:
            let invert: UInt8 = photometric == TIFFPhotometric.minIsWhite ? 255 : 0
            if image.alpha == .none {
                for x in 0 ..< image.width { output[x] = eight(samples[x * spp]) ^ invert }
            } else {
                for x in 0 ..< image.width {
                    let a = eight(samples[x * spp + image.alphaSample])
                    output[2 * x] = unassociate(eight(samples[x * spp]), a) ^ invert
                    output[2 * x + 1] = a
                }
            }
        case TIFFPhotometric.palette:
            for x in 0 ..< image.width {
                let i = 3 * Int(samples[x * spp] & 0xFF)
                output[3 * x] = image.colorMap[i]
                output[3 * x + 1] = image.colorMap[i + 1]
                output[3 * x + 2] = image.colorMap[i + 2]
            }
        case TIFFPhotometric.separated:
            for x in 0 ..< image.width {
                for c in 0 ..< 4 { output[4 * x + c] = eight(samples[x * spp + c]) }
            }
        case TIFFPhotometric.ycbcr:
            guard let ycbcr = image.ycbcr else { return }
            let stride = format.bytesPerPixel
            for x in 0 ..< image.width {
                let (r, g, b) = ycbcr.rgb(eight(samples[x * spp]), eight(samples[x * spp + 1]), eight(samples[x * spp + 2]))
                output[stride * x] = r
                output[stride * x + 1] = g
                output[stride * x + 2] = b
                if stride == 4 { output[4 * x + 3] = eight(samples[x * spp + image.alphaSample]) }
            }
        default:
            if image.alpha == .none {
                for x in 0 ..< image.width {
                    for c in 0 ..< 3 { output[3 * x + c] = eight(samples[x * spp + c]) }
                }
            } else {
                for x in 0 ..< image.width {
                    let a = eight(samples[x * spp + image.alphaSample])
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
        guard image.alpha == .associated else { return c }
        guard a != 0 else { return 0 }
        return UInt8(min(255, (Int(c) * 255 + Int(a) / 2) / Int(a)))
    }
}
