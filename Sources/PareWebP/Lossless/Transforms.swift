import PareCore

/// One transform read from a lossless stream (WebP Lossless Bitstream §4) with its data:
/// the block size bits and sub-image of the predictor and cross-colour transforms, the
/// palette of colour indexing. `width` is the image width the transform applies to.
struct LosslessTransform {
    var kind: VP8LTransformKind
    var width: Int
    var bits: Int
    var data: LedgerBuffer<UInt32>?
    var paletteSize = 0

    /// Per-byte sums modulo 256 of two ARGB words.
    @inline(__always)
    static func addPixels(_ a: UInt32, _ b: UInt32) -> UInt32 {
        let ag = (a & 0xFF00_FF00) &+ (b & 0xFF00_FF00)
        let rb = (a & 0x00FF_00FF) &+ (b & 0x00FF_00FF)
        return (ag & 0xFF00_FF00) | (rb & 0x00FF_00FF)
    }

    /// Per-byte floor averages.
    @inline(__always)
    static func average(_ a: UInt32, _ b: UInt32) -> UInt32 {
        (((a ^ b) & 0xFEFE_FEFE) >> 1) &+ (a & b)
    }

    @inline(__always)
    static func channel(_ p: UInt32, _ shift: UInt32) -> Int { Int((p >> shift) & 0xFF) }

    /// §4.1 predictor 11: whichever of L and T is nearer (Manhattan, over the four
    /// channels) to the gradient estimate L + T − TL.
    @inline(__always)
    static func select(_ l: UInt32, _ t: UInt32, _ tl: UInt32) -> UInt32 {
        @inline(__always) func distance(_ a: UInt32, _ b: UInt32) -> Int {
            abs(channel(a, 24) - channel(b, 24)) + abs(channel(a, 16) - channel(b, 16))
                + abs(channel(a, 8) - channel(b, 8)) + abs(channel(a, 0) - channel(b, 0))
        }
        return distance(t, tl) < distance(l, tl) ? l : t
    }

    @inline(__always)
    static func clampByte(_ v: Int) -> UInt32 { UInt32(v < 0 ? 0 : v > 255 ? 255 : v) }

    /// §4.1 predictor 12: L + T − TL per channel, clamped.
    @inline(__always)
    static func clampAddSubtractFull(_ l: UInt32, _ t: UInt32, _ tl: UInt32) -> UInt32 {
        var out: UInt32 = 0
        for shift: UInt32 in stride(from: 0, through: 24, by: 8) {
            out |= clampByte(channel(l, shift) + channel(t, shift) - channel(tl, shift)) << shift
        }
        return out
    }

    /// §4.1 predictor 13: a + (a − TL) / 2 per channel, a the average of L and T, the
    /// division truncating toward zero, clamped.
    @inline(__always)
    static func clampAddSubtractHalf(_ l: UInt32, _ t: UInt32, _ tl: UInt32) -> UInt32 {
        let a = average(l, t)
        var out: UInt32 = 0
        for shift: UInt32 in stride(from: 0, through: 24, by: 8) {
            let c = channel(a, shift)
            out |= clampByte(c + (c - channel(tl, shift)) / 2) << shift
        }
        return out
    }

    /// §4.1: the prediction of mode `mode` from the left, top, top-right and top-left pixels.
    @inline(__always)
    static func predict(_ mode: Int, l: UInt32, t: UInt32, tr: UInt32, tl: UInt32) -> UInt32 {
        switch mode {
        case 1: return l
        case 2: return t
        case 3: return tr
        case 4: return tl
        case 5: return average(average(l, tr), t)
        case 6: return average(l, tl)
        case 7: return average(l, t)
        case 8: return average(tl, t)
        case 9: return average(t, tr)
        case 10: return average(average(l, tl), average(t, tr))
        case 11: return select(l, t, tl)
        case 12: return clampAddSubtractFull(l, t, tl)
        case 13: return clampAddSubtractHalf(l, t, tl)
        default: return 0xFF00_0000 // modes 0, 14 and 15
        }
    }

    // SAFETY (the undo functions): `pixels` holds `rows` rows of `width` words (rows ≤ the
    // image height); sub-image indices are (y >> bits) × blocksWide + (x >> bits), inside the
    // sub-image read for exactly that size; palette indices are checked against its count.
    /// Undoes §4.1 in place on `rows` rows of `pixels`, image rows `firstRow` onwards: the
    /// first pixel of the image is predicted as opaque black, the rest of its first row from
    /// the left, the first column from above, the others by their block's mode (the
    /// sub-image's green). The top-right neighbour of the last column is the first pixel of
    /// the current row, as the pixels lie in memory. Below the image's first row, the row
    /// above `pixels` must hold image row `firstRow − 1` as this undoing left it.
    func undoPredictor(_ pixels: UnsafeMutablePointer<UInt32>, firstRow: Int = 0, rows: Int) {
        guard let data, rows > 0 else { return }
        let w = width
        let blocksWide = (w + (1 << bits) - 1) >> bits
        if firstRow == 0 {
            pixels[0] = Self.addPixels(pixels[0], 0xFF00_0000)
            for x in 1 ..< max(w, 1) { pixels[x] = Self.addPixels(pixels[x], pixels[x - 1]) }
        }
        for r in (firstRow == 0 ? 1 : 0) ..< max(rows, 1) {
            let row = pixels + r * w
            row[0] = Self.addPixels(row[0], row[-w])
            let modes = ((firstRow + r) >> bits) * blocksWide
            var x = 1
            while x < w {
                let mode = Int((data[modes + (x >> bits)] >> 8) & 0xF)
                let end = min(w, ((x >> bits) + 1) << bits)
                Self.addPredictions(mode, row, x ..< end, width: w)
                x = end
            }
        }
    }

    /// Adds mode `mode`'s predictions to `row[run]`, left to right, `row − width` being the
    /// row above: `predict` (the oracle, TransformBandsTests) with the mode chosen once for a
    /// block's run rather than per pixel, each mode its own loop.
    // SAFETY: run lies in 1 ..< width, so x − 1 and the row above's x − 1 ... x + 1 are pixels
    // (x + 1 = width being the current row's first, as `undoPredictor` says).
    @inline(__always)
    static func addPredictions(_ mode: Int, _ row: UnsafeMutablePointer<UInt32>, _ run: Range<Int>, width w: Int) {
        let top = UnsafePointer(row - w)
        switch mode {
        case 1: for x in run { row[x] = addPixels(row[x], row[x - 1]) }
        case 2: for x in run { row[x] = addPixels(row[x], top[x]) }
        case 3: for x in run { row[x] = addPixels(row[x], top[x + 1]) }
        case 4: for x in run { row[x] = addPixels(row[x], top[x - 1]) }
        case 5: for x in run { row[x] = addPixels(row[x], average(average(row[x - 1], top[x + 1]), top[x])) }
        case 6: for x in run { row[x] = addPixels(row[x], average(row[x - 1], top[x - 1])) }
        case 7: for x in run { row[x] = addPixels(row[x], average(row[x - 1], top[x])) }
        case 8: for x in run { row[x] = addPixels(row[x], average(top[x - 1], top[x])) }
        case 9: for x in run { row[x] = addPixels(row[x], average(top[x], top[x + 1])) }
        case 10:
            for x in run { row[x] = addPixels(row[x], average(average(row[x - 1], top[x - 1]), average(top[x], top[x + 1]))) }
        case 11: for x in run { row[x] = addPixels(row[x], select(row[x - 1], top[x], top[x - 1])) }
        case 12: for x in run { row[x] = addPixels(row[x], clampAddSubtractFull(row[x - 1], top[x], top[x - 1])) }
        case 13: for x in run { row[x] = addPixels(row[x], clampAddSubtractHalf(row[x - 1], top[x], top[x - 1])) }
        default: for x in run { row[x] = addPixels(row[x], 0xFF00_0000) }
        }
    }

    /// §4.2: the colour transform delta, signed 3.5 fixed point.
    @inline(__always)
    static func delta(_ t: UInt32, _ c: UInt32) -> Int {
        (Int(Int8(truncatingIfNeeded: t)) * Int(Int8(truncatingIfNeeded: c))) >> 5
    }

    /// Undoes §4.2 on `rows` rows of `pixels`, image rows `firstRow` onwards: red +=
    /// green·g2r, blue += green·g2b + red·r2b (the new red).
    func undoCrossColor(_ pixels: UnsafeMutablePointer<UInt32>, firstRow: Int = 0, rows: Int) {
        guard let data else { return }
        let w = width
        let blocksWide = (w + (1 << bits) - 1) >> bits
        for r in 0 ..< rows {
            let row = pixels + r * w
            let line = ((firstRow + r) >> bits) * blocksWide
            var x = 0
            while x < w {
                // One block's multipliers for its run of pixels.
                let m = data[line + (x >> bits)]
                let end = min(w, ((x >> bits) + 1) << bits)
                while x < end {
                    let p = row[x]
                    let green = (p >> 8) & 0xFF
                    var red = Int((p >> 16) & 0xFF) + Self.delta(m, green)
                    red &= 0xFF
                    var blue = Int(p & 0xFF) + Self.delta(m >> 8, green) + Self.delta(m >> 16, UInt32(red))
                    blue &= 0xFF
                    row[x] = (p & 0xFF00_FF00) | UInt32(red) << 16 | UInt32(blue)
                    x += 1
                }
            }
        }
    }

    /// Undoes §4.3: red and blue += green.
    func undoSubtractGreen(_ pixels: UnsafeMutablePointer<UInt32>, count: Int) {
        for i in 0 ..< count {
            let p = pixels[i]
            let g = (p >> 8) & 0xFF
            let rb = ((p & 0x00FF_00FF) &+ (g << 16 | g)) & 0x00FF_00FF
            pixels[i] = (p & 0xFF00_FF00) | rb
        }
    }

    /// Undoes §4.4: each index (several bundled into one pixel's green when the palette has
    /// 16 colours or fewer) becomes its palette colour; indices past the palette are
    /// transparent black. Reads `source` rows `packedWidth` wide, writes `width`-wide rows.
    func undoColorIndexing(from source: UnsafeMutablePointer<UInt32>, to target: UnsafeMutablePointer<UInt32>,
                           rows: Int) {
        guard let data else { return }
        let packedWidth = (width + (1 << bits) - 1) >> bits
        let bitsPerIndex = 8 >> bits
        let mask = (1 << bitsPerIndex) - 1
        let perPixel = 1 << bits
        let entries = data.count
        // Rows are expanded last to first within each row so that source and target may overlap
        // only when they are the same buffer and the width is unchanged.
        for y in 0 ..< rows {
            let inRow = source + y * packedWidth
            let outRow = target + y * width
            if bits == 0 {
                for x in 0 ..< width {
                    let index = Int((inRow[x] >> 8) & 0xFF)
                    outRow[x] = index < entries ? data[index] : 0
                }
                continue
            }
            for x in 0 ..< width {
                let packed = Int((inRow[x >> bits] >> 8) & 0xFF)
                let index = (packed >> ((x & (perPixel - 1)) * bitsPerIndex)) & mask
                outRow[x] = index < entries ? data[index] : 0
            }
        }
    }
}
