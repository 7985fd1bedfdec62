import PareCore

/// The box a thumbnail must fit, in upright pixels; either side may be left open
/// (`--size 256x` bounds the width only).
public struct ThumbnailBox: Sendable, Equatable, Hashable {
    public var width: Int?
    public var height: Int?

    public init(width: Int?, height: Int?) {
        self.width = width
        self.height = height
    }

    /// Reads `WxH`, `Wx`, `xH` or a lone `N` (an N×N box); nil when it is none of those or a
    /// side is below 1.
    public init?(parsing text: String) {
        let parts = text.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        func side(_ part: Substring) -> Int?? {
            if part.isEmpty { return .some(nil) }
            guard let value = Int(part), value >= 1 else { return nil }
            return .some(value)
        }
        if parts.count == 1 {
            guard let value = Int(parts[0]), value >= 1 else { return nil }
            self.init(width: value, height: value)
            return
        }
        guard let width = side(parts[0]), let height = side(parts[1]), width != nil || height != nil else { return nil }
        self.init(width: width, height: height)
    }
}

/// How a picture goes into its box (sharp's and CSS `object-fit`'s words).
public enum ThumbnailFit: String, Sendable, CaseIterable {
    /// As large as fits inside the box, aspect kept: the box is a bound, not a size.
    case inside
    /// Fills the box, aspect kept, the overflow cropped away (`crop` says where).
    case cover
    /// As `inside`, then centred on a canvas of the box's size (`background` around it).
    case contain
    /// Stretched to the box exactly, aspect not kept.
    case fill
}

/// Where a cover crop's window sits.
public enum CropPosition: String, Sendable, CaseIterable {
    /// In the middle of the picture.
    case centre
    /// Where the picture holds most information: the window whose luminance histogram has
    /// the highest Shannon entropy.
    case entropy
    /// Where the eye goes first: edges, saturated colour and skin tones (`SaliencyMap`).
    case attention
}

/// One thumbnail's shape: the window of the upright picture it shows, the size that window
/// is resampled to, and the canvas it lands on. Worked out on the upright picture, so that
/// a box means the same for every orientation; `storedWindow` takes it back to the stored
/// pixels the decoder produces.
struct ThumbnailGeometry: Equatable {
    /// The upright picture's size.
    var pictureWidth: Int
    var pictureHeight: Int
    /// The part of the upright picture shown: all of it except under `cover`.
    var window: PixelRect
    /// The size the window is resampled to (upright).
    var scaledWidth: Int
    var scaledHeight: Int
    /// The output's size: the box under `contain`, else the scaled size.
    var canvasWidth: Int
    var canvasHeight: Int
    /// Under `cover`, the whole picture at the scale that fills the box: what a crop placed
    /// by content (`CropPosition.entropy`, `.attention`) is chosen from.
    var coverWidth = 0
    var coverHeight = 0

    /// The long side the whole picture must have, once decoded, for the window to reach its
    /// scaled size: what the source choice and the DCT scale must reach. A cover crop of a
    /// wide photo into a square needs more than the box's side.
    var neededLongSide: Int {
        let long = max(pictureWidth, pictureHeight)
        let across = (scaledWidth * long + window.width - 1) / max(1, window.width)
        let down = (scaledHeight * long + window.height - 1) / max(1, window.height)
        return max(1, across, down)
    }

    /// The shape of a `width` × `height` upright picture in `box` under `fit`; the window of a
    /// cover crop is centred (`positioned(at:)` moves it). Without `enlarge` nothing is made
    /// larger than the picture: a cover box larger than the picture is cut to it.
    init(pictureWidth width: Int, pictureHeight height: Int, box: ThumbnailBox, fit: ThumbnailFit, enlarge: Bool) {
        pictureWidth = width
        pictureHeight = height
        window = PixelRect(x: 0, y: 0, width: width, height: height)
        // A missing side leaves that axis free: only `fill` with both sides stretches, and
        // with one side open every fit is `inside`.
        let fit = box.width == nil || box.height == nil ? .inside : fit
        func rounded(_ numerator: Int, _ denominator: Int) -> Int { max(1, (numerator + denominator / 2) / denominator) }
        switch fit {
        case .inside, .contain:
            // The scale is the smaller of the two sides' ratios, kept as a fraction n/d.
            var (n, d) = (Int.max, 1)
            if let w = box.width { (n, d) = (w, width) }
            if let h = box.height, n == Int.max || h * d < n * height { (n, d) = (h, height) }
            if !enlarge && n > d { (n, d) = (1, 1) }
            scaledWidth = rounded(width * n, d)
            scaledHeight = rounded(height * n, d)
            canvasWidth = fit == .contain ? max(scaledWidth, box.width ?? scaledWidth) : scaledWidth
            canvasHeight = fit == .contain ? max(scaledHeight, box.height ?? scaledHeight) : scaledHeight
        case .cover:
            let w = box.width!, h = box.height!
            // The larger ratio fills the box; the other axis overflows and is cropped.
            var (n, d) = w * height >= h * width ? (w, width) : (h, height)
            if !enlarge && n > d { (n, d) = (1, 1) }
            scaledWidth = min(w, rounded(width * n, d))
            scaledHeight = min(h, rounded(height * n, d))
            let windowWidth = min(width, rounded(scaledWidth * d, n))
            let windowHeight = min(height, rounded(scaledHeight * d, n))
            window = PixelRect(x: (width - windowWidth) / 2, y: (height - windowHeight) / 2,
                               width: windowWidth, height: windowHeight)
            canvasWidth = scaledWidth
            canvasHeight = scaledHeight
            coverWidth = max(scaledWidth, rounded(width * n, d))
            coverHeight = max(scaledHeight, rounded(height * n, d))
        case .fill:
            scaledWidth = box.width!
            scaledHeight = box.height!
            canvasWidth = scaledWidth
            canvasHeight = scaledHeight
        }
    }

    /// The same with the window's corner moved to (`x`, `y`), kept inside the picture.
    func positioned(x: Int, y: Int) -> ThumbnailGeometry {
        var moved = self
        moved.window.x = min(max(0, x), pictureWidth - window.width)
        moved.window.y = min(max(0, y), pictureHeight - window.height)
        return moved
    }

    /// True when the whole picture is shown, scaled alike on both axes: the plain thumbnail.
    var showsWholePicture: Bool {
        window == PixelRect(x: 0, y: 0, width: pictureWidth, height: pictureHeight)
    }

    /// The window in the stored (not upright) picture of `orientation`, scaled to a decoded
    /// source of `decodedWidth` × `decodedHeight` stored pixels. Rounded outwards so that no
    /// pixel of the window is lost.
    func storedWindow(orientation: Orientation, decodedWidth: Int, decodedHeight: Int) -> PixelRect {
        // The upright window's corners, taken back through the orientation (Exif 2.32
        // §4.6.4: the tag says where row 0 and column 0 of the stored picture are shown).
        let (w, h) = (pictureWidth, pictureHeight)
        var r = window
        switch orientation {
        case .up: break
        case .upMirrored: r.x = w - r.x - r.width
        case .down: (r.x, r.y) = (w - r.x - r.width, h - r.y - r.height)
        case .downMirrored: r.y = h - r.y - r.height
        case .leftMirrored: r = PixelRect(x: r.y, y: r.x, width: r.height, height: r.width)
        case .right: r = PixelRect(x: r.y, y: w - r.x - r.width, width: r.height, height: r.width)
        case .rightMirrored: r = PixelRect(x: h - r.y - r.height, y: w - r.x - r.width, width: r.height, height: r.width)
        case .left: r = PixelRect(x: h - r.y - r.height, y: r.x, width: r.height, height: r.width)
        }
        let (storedWidth, storedHeight) = orientation.swapsDimensions ? (h, w) : (w, h)
        let x0 = r.x * decodedWidth / storedWidth, y0 = r.y * decodedHeight / storedHeight
        let x1 = ((r.x + r.width) * decodedWidth + storedWidth - 1) / storedWidth
        let y1 = ((r.y + r.height) * decodedHeight + storedHeight - 1) / storedHeight
        return PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
    }
}

extension Image {
    /// The picture centred on a `width` × `height` canvas (`ThumbnailFit.contain`): around
    /// it `background`, or transparency when the picture has alpha; a gray picture on a
    /// colour background becomes RGB.
    func letterboxed(width: Int, height: Int, background: BackgroundColour,
                     ledger: MemoryLedger) throws(CoreError) -> Image {
        let format: PixelFormat
        switch self.format {
        case .gray8 where !background.isGray: format = .rgb8
        default: format = self.format
        }
        let canvas = try ImageBuffer(width: width, height: height, format: format, ledger: ledger)
        let channels = format.channels
        let fill: [UInt8]
        switch format {
        case .gray8: fill = [background.red]
        case .rgb8: fill = [background.red, background.green, background.blue]
        default: fill = [UInt8](repeating: 0, count: channels) // transparent
        }
        let left = (width - self.width) / 2, top = (height - self.height) / 2
        for y in 0 ..< height {
            canvas.withMutableRow(y) { target in
                for x in 0 ..< width {
                    for c in 0 ..< channels { target[x * channels + c] = fill[c] }
                }
                let sourceY = y - top
                guard sourceY >= 0, sourceY < self.height else { return }
                withRow(sourceY) { row in
                    for x in 0 ..< self.width {
                        for c in 0 ..< channels {
                            // A gray picture on an RGB canvas repeats its one sample.
                            let sample = self.format.channels == channels ? row[x * channels + c] : row[x]
                            target[(left + x) * channels + c] = sample
                        }
                    }
                }
            }
        }
        return canvas.image
    }
}
