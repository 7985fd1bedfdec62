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
/// - **attention** looks for what the eye goes to first: detail, skin and warm colour. The
///   picture is resampled to a 32 × 32 grid (Lanczos3, each axis on its own, so a cell is
///   1/32 of the picture either way) and taken to CIE XYZ (D65, white's Y = 100). Each cell
///   scores the sum of three measures:
///   - *edges*: five times the magnitude of the Laplacian of Y (4·Y less its four
///     neighbours), so that contrast at the scale of a cell counts;
///   - *skin*: 100 − 100·d, d being the distance between the cell's colour as a unit vector
///     in XYZ and a typical skin tone's (0.78, 0.57, 0.44): so a colour scores by its hue and
///     saturation whatever its brightness;
///   - *warmth*: the CIELAB a* of the cell (reds and magentas count, greens count against).
///
///   Cells with a Y of 5 or less (near black) score by their edges only. The scores are
///   blurred by a Gaussian whose σ is a tenth of the window's diagonal in cells (at least
///   one cell): what counts is an area the size of the window's heart, not one cell. The
///   window is then centred on the corner of the cell with the highest blurred score, and
///   kept inside the picture. This is the measure of libvips's `attention` strategy, which
///   it took from smartcrop.js, so that both choose alike.
enum CropChooser {
    /// The top-left corner of a `width` × `height` window in `image`.
    static func corner(in image: Image, width: Int, height: Int, by crop: CropPosition,
                       ledger: MemoryLedger) throws(CoreError) -> (x: Int, y: Int) {
        let w = min(width, image.width), h = min(height, image.height)
        switch crop {
        case .centre: return ((image.width - w) / 2, (image.height - h) / 2)
        case .entropy: return entropyCorner(image, width: w, height: h)
        case .attention: return try attentionCorner(image, width: w, height: h, ledger: ledger)
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

    /// The side of the square grid the attention score is computed on: the precision with
    /// which the window can be placed (one cell is 1/32 of the picture).
    static let grid = 32

    static func attentionCorner(_ image: Image, width: Int, height: Int,
                                ledger: MemoryLedger) throws(CoreError) -> (x: Int, y: Int) {
        let (w, h) = (image.width, image.height)
        let small = try image.resampled(width: grid, height: grid, filter: .lanczos3, ledger: ledger)
        let xyz = xyzPlanes(small)
        let count = grid * grid
        var score = [Double](repeating: 0, count: count)
        for cy in 0 ..< grid {
            for cx in 0 ..< grid {
                let i = cy * grid + cx
                func luminance(_ dx: Int, _ dy: Int) -> Double {
                    xyz.y[min(grid - 1, max(0, cy + dy)) * grid + min(grid - 1, max(0, cx + dx))]
                }
                let laplacian = 4 * xyz.y[i] - luminance(0, -1) - luminance(-1, 0) - luminance(1, 0) - luminance(0, 1)
                score[i] = abs(5 * laplacian)
                // Dark places score by their edges only.
                guard xyz.y[i] > 5 else { continue }
                let (x, y, z) = (xyz.x[i], xyz.y[i], xyz.z[i])
                let length = (x * x + y * y + z * z).squareRoot()
                let dx = x / length - skinDirection.x, dy = y / length - skinDirection.y, dz = z / length - skinDirection.z
                score[i] += 100 - 100 * (dx * dx + dy * dy + dz * dz).squareRoot()
                score[i] += 500 * (labF(x / whiteX) - labF(y / 100))
            }
        }
        let sigma = max(1, ((Double(width * grid) / Double(w)) * (Double(width * grid) / Double(w))
                            + (Double(height * grid) / Double(h)) * (Double(height * grid) / Double(h))).squareRoot() / 10)
        let blurred = gaussianBlur(score, size: grid, sigma: sigma)
        var best = 0
        for i in blurred.indices where blurred[i] > blurred[best] { best = i }
        // The cell's corner in picture pixels is where the window's centre goes.
        let left = (best % grid) * w / grid - width / 2
        let top = (best / grid) * h / grid - height / 2
        return (min(max(0, left), w - width), min(max(0, top), h - height))
    }

    /// The direction in XYZ of a typical skin tone, as a unit vector.
    static let skinDirection = (x: 0.78, y: 0.57, z: 0.44)
    /// X of the D65 white when its Y is 100.
    static let whiteX = 95.047

    /// CIE 15's f(t) of the L*a*b* formulas.
    static func labF(_ t: Double) -> Double {
        t > 216.0 / 24389 ? FastMath.cubeRoot(t) : (24389.0 / 27 * t + 16) / 116
    }

    /// X, Y, Z (D65, Y of white = 100) of every pixel: 8-bit sRGB samples decoded by the sRGB
    /// curve (IEC 61966-2-1) and multiplied by sRGB's matrix; colour is premultiplied by
    /// alpha first, so that what is transparent does not draw the eye.
    static func xyzPlanes(_ image: Image) -> (x: [Double], y: [Double], z: [Double]) {
        let count = image.width * image.height
        var xs = [Double](repeating: 0, count: count), ys = xs, zs = xs
        let channels = image.format.channels, gray = image.format.isGray, hasAlpha = image.format.hasAlpha
        let linear = (0 ..< 256).map { v -> Double in
            let c = Double(v) / 255
            return c <= 0.04045 ? c / 12.92 : FastMath.power((c + 0.055) / 1.055, 2.4)
        }
        for y in 0 ..< image.height {
            image.withRow(y) { row in
                for x in 0 ..< image.width {
                    let p = x * channels
                    let coverage = hasAlpha ? Double(row[p + channels - 1]) / 255 : 1
                    let r = linear[Int(row[p])] * coverage
                    let g = gray ? r : linear[Int(row[p + 1])] * coverage
                    let b = gray ? r : linear[Int(row[p + 2])] * coverage
                    let i = y * image.width + x
                    xs[i] = 100 * (0.4124 * r + 0.3576 * g + 0.1805 * b)
                    ys[i] = 100 * (0.2126 * r + 0.7152 * g + 0.0722 * b)
                    zs[i] = 100 * (0.0193 * r + 0.1192 * g + 0.9505 * b)
                }
            }
        }
        return (xs, ys, zs)
    }

    /// A separable Gaussian blur of a `size` × `size` grid, edges repeated. The kernel is
    /// cut where the Gaussian falls below a fifth of its peak and its weights are whole
    /// twentieths of the peak, so that only the near neighbourhood counts and a blur does
    /// not wash a clear maximum out.
    static func gaussianBlur(_ values: [Double], size: Int, sigma: Double) -> [Double] {
        var radius = 0
        while radius + 1 < Int(8 * sigma), FastMath.exp(-Double((radius + 1) * (radius + 1)) / (2 * sigma * sigma)) >= 0.2 {
            radius += 1
        }
        var kernel = (-radius ... radius).map { (20 * FastMath.exp(-Double($0 * $0) / (2 * sigma * sigma))).rounded() }
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
