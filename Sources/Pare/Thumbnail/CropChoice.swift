import PareCore

/// Where a cover crop's window goes (`CropPosition`), judged on a small rendering of the
/// picture: the thumbnail's own cheapest source at about 128 pixels (for a JPEG photo its
/// EXIF thumbnail or a DC-only decode), upright, so that choosing costs a fraction of the
/// thumbnail.
///
/// The window slides along the one axis on which the picture overflows the box. Each
/// position gets a score, and the highest wins (the one nearest the centre among equals):
///
/// - **entropy**: the Shannon entropy, in bits, of the window's luminance histogram
///   (Y = (2R + 5G + B) / 8, 256 bins): flat sky and blank walls score low, textured and
///   detailed parts high.
/// - **attention**: the sum over the window of each pixel's salience, the sum of three
///   cues the eye goes to first: edges (the magnitude of the luminance's 4-neighbour
///   Laplacian), saturated colour (max − min of R, G, B, counted only at mid luminance,
///   where saturation is visible) and skin tones (R > G > B with R − B between 15 and 130
///   and R − G of at least 10: human skin across tones, a fixed bonus of 64).
enum CropChooser {
    /// The long side of the rendering the window is chosen on.
    static let analysisSize = 128

    /// `geometry` with its window moved to where `crop` says, in `source`'s picture.
    static func position(_ geometry: ThumbnailGeometry, by crop: CropPosition, in source: ImageSource,
                         options: ThumbnailOptions) throws(PareError) -> ThumbnailGeometry {
        guard crop != .centre else { return geometry }
        var small = ThumbnailOptions(maxPixelSize: analysisSize)
        small.applyOrientation = options.applyOrientation
        small.embedded = options.embedded
        small.memoryLimit = options.memoryLimit
        small.jpeg = options.jpeg
        small.png = options.png
        small.decodeWorkers = 1
        let image = try source.thumbnail(options: small).image
        let scores = Scores(image, by: crop)
        // The window in the rendering's pixels, and the axis it slides on.
        let horizontal = geometry.window.width < geometry.pictureWidth
        let span = horizontal ? image.width : image.height
        let picture = horizontal ? geometry.pictureWidth : geometry.pictureHeight
        let windowSpan = max(1, min(span, ((horizontal ? geometry.window.width : geometry.window.height) * span
                                           + picture / 2) / picture))
        let best = scores.bestOffset(horizontal: horizontal, windowSpan: windowSpan)
        let offset = (best * picture + span / 2) / span
        return horizontal ? geometry.positioned(x: offset, y: geometry.window.y)
            : geometry.positioned(x: geometry.window.x, y: offset)
    }

    /// Per-pixel luminance and salience of the small rendering.
    struct Scores {
        let width: Int
        let height: Int
        let crop: CropPosition
        /// Y per pixel, 0…255.
        var luma: [UInt8]
        /// Salience per pixel (attention only).
        var salience: [Int] = []

        init(_ image: Image, by crop: CropPosition) {
            width = image.width
            height = image.height
            self.crop = crop
            let channels = image.format.channels
            let gray = image.format.isGray
            let attention = crop == .attention
            let width = image.width, height = image.height
            var luma = [UInt8](repeating: 0, count: width * height)
            var salience = [Int](repeating: 0, count: crop == .attention ? width * height : 0)
            for y in 0 ..< height {
                image.withRow(y) { row in
                    for x in 0 ..< width {
                        let r = Int(row[x * channels]), g = gray ? r : Int(row[x * channels + 1])
                        let b = gray ? r : Int(row[x * channels + 2])
                        let l = (2 * r + 5 * g + b) / 8
                        luma[y * width + x] = UInt8(l)
                        if attention {
                            var score = 0
                            if l > 40 && l < 220 { score += max(r, g, b) - min(r, g, b) }
                            if r > g && g > b && r - b >= 15 && r - b <= 130 && r - g >= 10 { score += 64 }
                            salience[y * width + x] = score
                        }
                    }
                }
            }
            if attention {
                for y in 1 ..< max(1, height - 1) {
                    for x in 1 ..< max(1, width - 1) {
                        let i = y * width + x
                        let laplacian = 4 * Int(luma[i]) - Int(luma[i - 1]) - Int(luma[i + 1])
                            - Int(luma[i - width]) - Int(luma[i + width])
                        salience[i] += abs(laplacian)
                    }
                }
            }
            self.luma = luma
            self.salience = salience
        }

        /// The window offset along the axis with the highest score; ties go to the one
        /// nearest the centre.
        func bestOffset(horizontal: Bool, windowSpan: Int) -> Int {
            let span = horizontal ? width : height
            let last = max(0, span - windowSpan)
            let centre = last / 2
            var best = centre, bestScore = -Double.infinity
            // Visit offsets from the centre outwards, so that the first of equal scores wins.
            for step in 0 ... last {
                let offset = step % 2 == 0 ? centre + step / 2 : centre - (step + 1) / 2
                guard offset >= 0, offset <= last else { continue }
                let score = self.score(horizontal: horizontal, offset: offset, windowSpan: windowSpan)
                if score > bestScore {
                    best = offset
                    bestScore = score
                }
            }
            return best
        }

        func score(horizontal: Bool, offset: Int, windowSpan: Int) -> Double {
            let xs = horizontal ? offset ..< offset + windowSpan : 0 ..< width
            let ys = horizontal ? 0 ..< height : offset ..< offset + windowSpan
            switch crop {
            case .attention:
                var sum = 0
                for y in ys { for x in xs { sum += salience[y * width + x] } }
                return Double(sum)
            default:
                var histogram = [Int](repeating: 0, count: 256)
                for y in ys { for x in xs { histogram[Int(luma[y * width + x])] += 1 } }
                let total = Double(xs.count * ys.count)
                var entropy = 0.0
                for count in histogram where count > 0 {
                    let p = Double(count) / total
                    entropy -= p * log2(p)
                }
                return entropy
            }
        }
    }
}

/// log₂ without Foundation: the exponent from the bit pattern, the mantissa's logarithm
/// by its series (entropy needs a few digits, not the last bit).
private func log2(_ x: Double) -> Double {
    guard x > 0 else { return -.infinity }
    let exponent = Double(x.exponent)
    let m = x.significand // 1 ≤ m < 2
    // ln m = 2 atanh((m − 1)/(m + 1)), a series in t² with t ≤ 1/3.
    let t = (m - 1) / (m + 1), t2 = t * t
    var term = t, sum = 0.0
    for k in stride(from: 1, through: 15, by: 2) {
        sum += term / Double(k)
        term *= t2
    }
    return exponent + 2 * sum / 0.693_147_180_559_945_3
}
