import PareCore

/// Where a cover crop's window goes when content decides (`CropPosition.entropy`,
/// `.attention`). The whole picture is first resampled at the scale that fills the box, as
/// a reference thumbnailer does before it crops; the window is chosen on that small image
/// and cut from it, so that choosing costs no second decode.
///
/// - **entropy** trims the picture towards the window in eight steps along each axis that
///   overflows: at each step a slice is taken from one end or the other, whichever's
///   samples (all channels pooled in one 256-bin histogram) have the lower Shannon entropy.
///   Flat sky and blank walls go first, texture and detail stay.
/// - **attention** scores each pixel by what the eye goes to first, in CIELAB (D65): edges
///   (|Sobel x| + |Sobel y| of L*), skin (a* within 3…22 and b* within 4…31 with L* of at
///   least 15: 255) and saturated colour (chroma above 60: 255). The scores are averaged
///   onto a 32 × 32 grid, blurred by a Gaussian whose σ is a sixth of the window's diagonal
///   in grid cells (how large an area counts as one place), and the window is centred on
///   the grid cell with the highest score, kept inside the picture.
enum CropChooser {
    /// The top-left corner of a `width` × `height` window in `image`.
    static func corner(in image: Image, width: Int, height: Int, by crop: CropPosition) -> (x: Int, y: Int) {
        let w = min(width, image.width), h = min(height, image.height)
        switch crop {
        case .centre: return ((image.width - w) / 2, (image.height - h) / 2)
        case .entropy: return entropyCorner(image, width: w, height: h)
        case .attention: return attentionCorner(image, width: w, height: h)
        }
    }

    // MARK: entropy

    static func entropyCorner(_ image: Image, width: Int, height: Int) -> (x: Int, y: Int) {
        var left = 0, top = 0, w = image.width, h = image.height
        let slice = max((w - width + 7) / 8, (h - height + 7) / 8)
        while w > width || h > height {
            let sliceWidth = min(w - width, slice), sliceHeight = min(h - height, slice)
            if sliceWidth > 0 {
                let leftScore = entropy(image, PixelRect(x: left, y: top, width: sliceWidth, height: h))
                let rightScore = entropy(image, PixelRect(x: left + w - sliceWidth, y: top, width: sliceWidth, height: h))
                w -= sliceWidth
                if leftScore < rightScore { left += sliceWidth }
            }
            if sliceHeight > 0 {
                let topScore = entropy(image, PixelRect(x: left, y: top, width: w, height: sliceHeight))
                let bottomScore = entropy(image, PixelRect(x: left, y: top + h - sliceHeight, width: w, height: sliceHeight))
                h -= sliceHeight
                if topScore < bottomScore { top += sliceHeight }
            }
        }
        return (left, top)
    }

    /// Shannon entropy in bits of the samples of `rect` (colour channels pooled; alpha left out).
    static func entropy(_ image: Image, _ rect: PixelRect) -> Double {
        var histogram = [Int](repeating: 0, count: 256)
        let channels = image.format.channels
        let colours = image.format.hasAlpha ? channels - 1 : channels
        for y in rect.y ..< rect.y + rect.height {
            image.withRow(y) { row in
                for x in rect.x ..< rect.x + rect.width {
                    for c in 0 ..< colours { histogram[Int(row[x * channels + c])] += 1 }
                }
            }
        }
        let total = Double(rect.width * rect.height * colours)
        guard total > 0 else { return 0 }
        var bits = 0.0
        for count in histogram where count > 0 {
            let p = Double(count) / total
            bits -= p * FastMath.log2(p)
        }
        return bits
    }

    // MARK: attention

    static let grid = 32

    static func attentionCorner(_ image: Image, width: Int, height: Int) -> (x: Int, y: Int) {
        let (w, h) = (image.width, image.height)
        let lab = labPlanes(image)
        // Per-pixel salience, summed straight into the 32 × 32 grid's cells.
        var cells = [Double](repeating: 0, count: grid * grid)
        var counts = [Double](repeating: 0, count: grid * grid)
        for y in 0 ..< h {
            let cy = min(grid - 1, y * grid / h)
            for x in 0 ..< w {
                let i = y * w + x
                func l(_ dx: Int, _ dy: Int) -> Double {
                    lab.l[min(h - 1, max(0, y + dy)) * w + min(w - 1, max(0, x + dx))]
                }
                let gx = (l(1, -1) + 2 * l(1, 0) + l(1, 1)) - (l(-1, -1) + 2 * l(-1, 0) + l(-1, 1))
                let gy = (l(-1, 1) + 2 * l(0, 1) + l(1, 1)) - (l(-1, -1) + 2 * l(0, -1) + l(1, -1))
                var score = abs(gx) + abs(gy)
                let a = lab.a[i], b = lab.b[i]
                if a >= 3 && a <= 22 && b >= 4 && b <= 31 && lab.l[i] >= 15 { score += 255 }
                if a * a + b * b > 3600 { score += 255 }
                let cell = cy * grid + min(grid - 1, x * grid / w)
                cells[cell] += score
                counts[cell] += 1
            }
        }
        for i in cells.indices where counts[i] > 0 { cells[i] /= counts[i] }
        // σ: a sixth of the window's diagonal, in cells.
        let cellWidth = Double(w) / Double(grid), cellHeight = Double(h) / Double(grid)
        let sigma = ((Double(width) / cellWidth) * (Double(width) / cellWidth)
            + (Double(height) / cellHeight) * (Double(height) / cellHeight)).squareRoot() / 6
        let blurred = gaussianBlur(cells, size: grid, sigma: sigma)
        var best = 0
        for i in blurred.indices where blurred[i] > blurred[best] { best = i }
        let left = Int(cellWidth * Double(best % grid)) - width / 2
        let top = Int(cellHeight * Double(best / grid)) - height / 2
        return (min(max(0, left), w - width), min(max(0, top), h - height))
    }

    /// L*, a*, b* (D65) of every pixel: 8-bit sRGB samples decoded by the sRGB curve
    /// (IEC 61966-2-1), to XYZ by sRGB's matrix, to CIELAB (CIE 15).
    static func labPlanes(_ image: Image) -> (l: [Double], a: [Double], b: [Double]) {
        let count = image.width * image.height
        var l = [Double](repeating: 0, count: count), a = l, b = l
        let channels = image.format.channels, gray = image.format.isGray
        let linear = (0 ..< 256).map { v -> Double in
            let c = Double(v) / 255
            return c <= 0.04045 ? c / 12.92 : FastMath.power((c + 0.055) / 1.055, 2.4)
        }
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? FastMath.cubeRoot(t) : (24389.0 / 27 * t + 16) / 116 }
        for y in 0 ..< image.height {
            image.withRow(y) { row in
                for x in 0 ..< image.width {
                    let r = linear[Int(row[x * channels])]
                    let g = gray ? r : linear[Int(row[x * channels + 1])]
                    let bl = gray ? r : linear[Int(row[x * channels + 2])]
                    let fx = f((0.4124 * r + 0.3576 * g + 0.1805 * bl) / 0.95047)
                    let fy = f(0.2126 * r + 0.7152 * g + 0.0722 * bl)
                    let fz = f((0.0193 * r + 0.1192 * g + 0.9505 * bl) / 1.08883)
                    let i = y * image.width + x
                    l[i] = 116 * fy - 16
                    a[i] = 500 * (fx - fy)
                    b[i] = 200 * (fy - fz)
                }
            }
        }
        return (l, a, b)
    }

    /// A separable Gaussian blur of a `size` × `size` grid, edges repeated.
    static func gaussianBlur(_ values: [Double], size: Int, sigma: Double) -> [Double] {
        guard sigma > 0.1 else { return values }
        let radius = max(1, Int(3 * sigma))
        var kernel = (-radius ... radius).map { FastMath.exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let sum = kernel.reduce(0, +)
        kernel = kernel.map { $0 / sum }
        func pass(_ input: [Double], horizontal: Bool) -> [Double] {
            var output = input
            for y in 0 ..< size {
                for x in 0 ..< size {
                    var total = 0.0
                    for k in -radius ... radius {
                        let xx = horizontal ? min(size - 1, max(0, x + k)) : x
                        let yy = horizontal ? y : min(size - 1, max(0, y + k))
                        total += kernel[k + radius] * input[yy * size + xx]
                    }
                    output[y * size + x] = total
                }
            }
            return output
        }
        return pass(pass(values, horizontal: true), horizontal: false)
    }
}

/// The few elementary functions the crop measures need, without Foundation: accurate to
/// far more digits than a threshold or a comparison of scores can use.
enum FastMath {
    /// log₂ x for x > 0: the exponent from the bit pattern, the mantissa's logarithm by the
    /// series of 2 atanh((m − 1)/(m + 1)).
    static func log2(_ x: Double) -> Double {
        guard x > 0 else { return -.infinity }
        let m = x.significand // 1 ≤ m < 2
        let t = (m - 1) / (m + 1), t2 = t * t
        var term = t, sum = 0.0
        for k in stride(from: 1, through: 21, by: 2) {
            sum += term / Double(k)
            term *= t2
        }
        return Double(x.exponent) + 2 * sum / 0.693_147_180_559_945_3
    }

    /// eˣ: 2 to the whole part of x·log₂e by the exponent, the rest by its Taylor series.
    static func exp(_ x: Double) -> Double {
        let y = x * 1.442_695_040_888_963_4
        guard y > -1000 else { return 0 }
        let whole = y.rounded(.down), fraction = (y - whole) * 0.693_147_180_559_945_3
        var term = 1.0, sum = 1.0
        for k in 1 ... 20 {
            term *= fraction / Double(k)
            sum += term
        }
        return Double(sign: .plus, exponent: Int(whole), significand: sum)
    }

    /// xʸ for x > 0.
    static func power(_ x: Double, _ y: Double) -> Double {
        x > 0 ? exp(y * log2(x) * 0.693_147_180_559_945_3) : 0
    }

    /// ∛x for x ≥ 0, by Newton's method from xʸ's estimate.
    static func cubeRoot(_ x: Double) -> Double {
        guard x > 0 else { return 0 }
        var r = power(x, 1.0 / 3)
        for _ in 0 ..< 2 { r -= (r * r * r - x) / (3 * r * r) }
        return r
    }
}

extension Image {
    /// The pixels of `rect` (inside the image) as an image of their own, counted by `ledger`.
    func cropped(to rect: PixelRect, ledger: MemoryLedger) throws(CoreError) -> Image {
        guard rect != PixelRect(x: 0, y: 0, width: width, height: height) else { return self }
        let buffer = try ImageBuffer(width: rect.width, height: rect.height, format: format, ledger: ledger)
        let bytes = format.bytesPerPixel
        for y in 0 ..< rect.height {
            withRow(rect.y + y) { row in
                buffer.withMutableRow(y) { target in
                    for i in 0 ..< rect.width * bytes { target[i] = row[rect.x * bytes + i] }
                }
            }
        }
        return buffer.image
    }
}
