import PareCore
import PareJPEG
import PareEXIF
import ParePNG

/// When an image embedded in the file (the EXIF IFD1 thumbnail, an MPF preview) may stand
/// in for the main image. ImageIO's counterparts are noted on each case.
public enum EmbeddedPolicy: String, Sendable, CaseIterable {
    /// Use an embedded image only when it is large enough (oriented long side ≥
    /// `maxPixelSize`) and has the main image's aspect ratio within 1%, so letterboxed
    /// thumbnails are refused. (No exact ImageIO equivalent: ImageIO's default is `always`
    /// when it finds one and no size is asked for.)
    case auto
    /// Always decode the main image (`kCGImageSourceCreateThumbnailFromImageAlways`).
    case never
    /// Use an embedded image whenever there is one, whatever its size, and decode the main
    /// image only if there is none (`kCGImageSourceCreateThumbnailFromImageIfAbsent`).
    case always
}

/// What `ImageSource.thumbnail(options:)` makes: the counterpart of ImageIO's thumbnail
/// options dictionary.
public struct ThumbnailOptions: Sendable {
    /// The long side of the oriented output, in pixels (`kCGImageSourceThumbnailMaxPixelSize`).
    /// Pare never enlarges: a smaller source gives a smaller thumbnail.
    public var maxPixelSize: Int
    public var embedded: EmbeddedPolicy = .auto
    /// Turn the output upright per the EXIF orientation
    /// (`kCGImageSourceCreateThumbnailWithTransform`).
    public var applyOrientation: Bool = true
    public var filter: ResamplingFilter = .lanczos3
    /// The most bytes the job may hold at once, enforced by its `MemoryLedger`; nil for no
    /// limit. The default, 256 MiB, is far above what any thumbnail needs.
    public var memoryLimit: Int? = 256 * 1024 * 1024
    /// Limits applied to the decoders.
    public var jpeg = JPEGOptions()
    public var png = PNGOptions()
    public var exif = EXIFOptions()
    /// Decode a JPEG main image at this DCT scale whatever the size asks for. Tests use it to
    /// compare the scaled path with a full-scale decode; it is not part of the public API.
    var forcedJPEGScale: JPEGScale?

    public init(maxPixelSize: Int) {
        self.maxPixelSize = maxPixelSize
    }
}
