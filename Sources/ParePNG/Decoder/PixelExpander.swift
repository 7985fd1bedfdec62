import PareCore

/// Turns a reconstructed scanline (samples as stored, PNG 3rd ed. §7.2) into output pixels:
/// palette lookup (§11.2.2), tRNS as alpha (§11.3.1.1), bit depths below 8 scaled to 8 by
/// bit replication (§12.4: v × 255 / (2^d − 1)), and optionally everything to 8-bit RGBA
/// with 16-bit samples rounded to the nearest 8-bit value.
struct PixelExpander {
    let header: PNGHeader
    /// What the stored samples become at their own depth.
    let nativeFormat: PixelFormat
    let outputFormat: PixelFormat
    /// 256 RGBA entries; indices at or past `paletteCount` are errors.
    let palette: [UInt8]
    let paletteCount: Int
    /// The tRNS colour key for gray (one sample) or RGB (three), at the source depth.
    let colorKey: [Int]?

    init(header: PNGHeader, palette: [UInt8], paletteCount: Int, paletteHasAlpha: Bool, colorKey: [Int]?,
         output: PNGOutput) {
        self.header = header
        self.palette = palette
        self.paletteCount = paletteCount
        self.colorKey = colorKey
        let wide = header.bitDepth == 16
        switch header.colorType {
        case 0: nativeFormat = colorKey == nil ? (wide ? .gray16 : .gray8) : (wide ? .grayAlpha16 : .grayAlpha8)
        case 2: nativeFormat = colorKey == nil ? (wide ? .rgb16 : .rgb8) : (wide ? .rgba16 : .rgba8)
        case 3: nativeFormat = paletteHasAlpha ? .rgba8 : .rgb8
        case 4: nativeFormat = wide ? .grayAlpha16 : .grayAlpha8
        default: nativeFormat = wide ? .rgba16 : .rgba8
        }
        outputFormat = output == .rgba8 ? .rgba8 : nativeFormat
    }

    /// True when the stored samples already are the native pixels (8- and 16-bit gray,
    /// gray+alpha, RGB and RGBA without a colour key).
    var storedIsNative: Bool {
        header.colorType != 3 && header.bitDepth >= 8 && colorKey == nil
    }

    /// Writes `width` native pixels for the stored scanline `raw` into `out`. Returns the
    /// first palette index out of range, if any (the row is then incomplete).
    func expandToNative(_ raw: UnsafePointer<UInt8>, width: Int, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        let depth = header.bitDepth
        switch header.colorType {
        case 0 where depth < 8:
            let mask = (1 << depth) - 1
            let scale = 255 / mask
            let key = colorKey?[0] ?? -1
            let alpha = colorKey != nil
            var o = 0
            for x in 0 ..< width {
                let bit = x * depth
                let sample = Int(raw[bit >> 3] >> UInt8(8 - depth - (bit & 7))) & mask
                out[o] = UInt8(truncatingIfNeeded: sample * scale)
                if alpha {
                    out[o + 1] = sample == key ? 0 : 255
                    o += 2
                } else {
                    o += 1
                }
            }
        case 0 where depth == 8:
            let key = colorKey?[0] ?? -1
            for x in 0 ..< width {
                let v = raw[x]
                out[2 * x] = v
                out[2 * x + 1] = Int(v) == key ? 0 : 255
            }
        case 0:
            let key = colorKey?[0] ?? -1
            for x in 0 ..< width {
                let hi = raw[2 * x], lo = raw[2 * x + 1]
                out[4 * x] = hi
                out[4 * x + 1] = lo
                let alpha: UInt8 = Int(hi) << 8 | Int(lo) == key ? 0 : 255
                out[4 * x + 2] = alpha
                out[4 * x + 3] = alpha
            }
        case 2 where depth == 8:
            let key = colorKey ?? [-1, -1, -1]
            let kr = key[0], kg = key[1], kb = key[2]
            for x in 0 ..< width {
                let r = raw[3 * x], g = raw[3 * x + 1], b = raw[3 * x + 2]
                out[4 * x] = r
                out[4 * x + 1] = g
                out[4 * x + 2] = b
                out[4 * x + 3] = Int(r) == kr && Int(g) == kg && Int(b) == kb ? 0 : 255
            }
        case 2:
            let key = colorKey ?? [-1, -1, -1]
            for x in 0 ..< width {
                var transparent = true
                for c in 0 ..< 3 {
                    let hi = raw[6 * x + 2 * c], lo = raw[6 * x + 2 * c + 1]
                    out[8 * x + 2 * c] = hi
                    out[8 * x + 2 * c + 1] = lo
                    if Int(hi) << 8 | Int(lo) != key[c] { transparent = false }
                }
                let alpha: UInt8 = transparent ? 0 : 255
                out[8 * x + 6] = alpha
                out[8 * x + 7] = alpha
            }
        case 3:
            let channels = nativeFormat == .rgba8 ? 4 : 3
            let mask = (1 << depth) - 1
            let count = paletteCount
            return palette.withUnsafeBufferPointer { table -> Int? in
                let entries = table.baseAddress!
                for x in 0 ..< width {
                    let index: Int
                    if depth == 8 {
                        index = Int(raw[x])
                    } else {
                        let bit = x * depth
                        index = Int(raw[bit >> 3] >> UInt8(8 - depth - (bit & 7))) & mask
                    }
                    guard index < count else { return index }
                    let entry = entries + 4 * index
                    let o = out + channels * x
                    o[0] = entry[0]
                    o[1] = entry[1]
                    o[2] = entry[2]
                    if channels == 4 { o[3] = entry[3] }
                }
                return nil
            }
        default:
            let n = width * nativeFormat.bytesPerPixel
            out.update(from: raw, count: n)
        }
        return nil
    }

    /// Converts `width` native pixels to 8-bit RGBA.
    func convertToRGBA8(_ native: UnsafePointer<UInt8>, width: Int, into out: UnsafeMutablePointer<UInt8>) {
        let format = nativeFormat
        let step = format.bytesPerSample
        let channels = format.channels
        for x in 0 ..< width {
            let p = native + x * format.bytesPerPixel
            func sample(_ c: Int) -> UInt8 {
                if step == 1 { return p[c] }
                // round(v / 257): the nearest 8-bit value to a 16-bit one.
                let v = UInt32(p[2 * c]) << 8 | UInt32(p[2 * c + 1])
                return UInt8(truncatingIfNeeded: (v * 255 + 32767) / 65535)
            }
            let o = out + 4 * x
            switch channels {
            case 1:
                let g = sample(0)
                o[0] = g; o[1] = g; o[2] = g; o[3] = 255
            case 2:
                let g = sample(0)
                o[0] = g; o[1] = g; o[2] = g; o[3] = sample(1)
            case 3:
                o[0] = sample(0); o[1] = sample(1); o[2] = sample(2); o[3] = 255
            default:
                o[0] = sample(0); o[1] = sample(1); o[2] = sample(2); o[3] = sample(3)
            }
        }
    }
}
