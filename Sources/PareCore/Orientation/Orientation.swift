/// The eight EXIF orientations (TIFF 6.0 tag 0x0112; Exif 2.32 §4.6.4): how the stored
/// pixels must be turned to be seen upright. The raw value is the tag's value.
public enum Orientation: Int, Sendable, Equatable, CaseIterable {
    /// Row 0 at the top, column 0 on the left: nothing to do.
    case up = 1
    /// Mirrored left to right.
    case upMirrored = 2
    /// Turned 180°.
    case down = 3
    /// Mirrored top to bottom.
    case downMirrored = 4
    /// Mirrored along the main diagonal (transpose).
    case leftMirrored = 5
    /// Needs a 90° clockwise turn to be upright.
    case right = 6
    /// Mirrored along the anti-diagonal (transverse).
    case rightMirrored = 7
    /// Needs a 90° counter-clockwise turn to be upright.
    case left = 8

    /// The tag's value, with anything outside 1…8 (0 is common) read as `up`.
    public init(exifValue: Int) {
        self = Orientation(rawValue: exifValue) ?? .up
    }

    /// True when the upright picture's width is the stored height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// Which stored axes run backwards in the upright picture: the stored x axis (columns
    /// from the right) and the stored y axis (rows from the bottom), wherever they end up.
    public var flipsStoredAxes: (x: Bool, y: Bool) {
        switch self {
        case .up, .leftMirrored: (false, false)
        case .upMirrored, .left: (true, false)
        case .downMirrored, .right: (false, true)
        case .down, .rightMirrored: (true, true)
        }
    }

    /// The upright size of a stored `width` × `height` picture.
    public func orientedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }
}
