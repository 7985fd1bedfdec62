import PareCore
import PareJPEG
import PareEXIF
import PareICC
import ParePNG
import PareWebP
import PareGIF
import PareTIFF

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

/// What a thumbnail does with the source's colour space.
public enum ColourHandling: String, Sendable, CaseIterable {
    /// Pixels as decoded; the output carries the source's ICC profile byte for byte (when
    /// the output's channels fit it: an RGB profile on RGB output, a gray one on gray).
    case keep
    /// Matrix/TRC RGB and gray TRC profiles, LUT-based (lut8, lut16, lutAToB) gray, RGB and
    /// CMYK profiles, Adobe RGB named by EXIF, and PNG gAMA/cHRM are converted to sRGB on the
    /// decoded rows, before resampling (`SRGBConvertingSink`); the output is tagged sRGB.
    /// Profiles that cannot be applied (Lab and other colour spaces, a CMYK profile on RGB
    /// pixels) are not, and a warning says so.
    case sRGB = "srgb"
}

/// What a thumbnail does with an HDR photo's gain map (Ultra HDR, ISO 21496-1).
public enum GainMapHandling: String, Sendable, CaseIterable {
    /// The thumbnail is the SDR picture alone (the default): what every reader shows.
    case drop
    /// The gain map is resampled and oriented with the picture, and a JPEG output carries it
    /// in an MPF container with the source's metadata (`GainMapContainer`), so that an HDR
    /// display shows the thumbnail in HDR. PNG and Netpbm outputs cannot hold it: they get
    /// the plain picture and a warning, as does a source without a gain map.
    case keep
}

/// What `ImageSource.thumbnail(options:)` makes: the counterpart of ImageIO's thumbnail
/// options dictionary. It carries every limit of the pipeline: `memoryLimit` and the
/// decoders' own (`jpeg`, `png`, `exif`), all listed with their defaults in the README's
/// "Limits" table.
public struct ThumbnailOptions: Sendable {
    /// The long side of the oriented output, in pixels (`kCGImageSourceThumbnailMaxPixelSize`).
    /// Pare never enlarges: a smaller source gives a smaller thumbnail.
    public var maxPixelSize: Int
    /// When an image embedded in the file may stand in for the main image.
    public var embedded: EmbeddedPolicy = .auto
    /// The box the thumbnail fits, in upright pixels; nil for `maxPixelSize` × `maxPixelSize`
    /// (then `maxPixelSize` is the long side). Set, it decides the size and `maxPixelSize`
    /// is not read.
    public var box: ThumbnailBox?
    /// How the picture goes into `box`: `.inside` (the default) keeps it whole within it.
    public var fit: ThumbnailFit = .inside
    /// Where a `.cover` crop's window sits.
    public var crop: CropPosition = .centre
    /// Allows a thumbnail larger than its source (off: a box larger than the picture gives
    /// the picture at its own size).
    public var enlarge = false
    /// The colour around a `.contain` picture on its canvas (a picture with alpha gets a
    /// transparent surround instead).
    public var background: BackgroundColour = .white
    /// Turn the output upright per the EXIF orientation
    /// (`kCGImageSourceCreateThumbnailWithTransform`).
    public var applyOrientation: Bool = true
    /// The resampling filter that shrinks the decoded rows to the output size.
    public var filter: ResamplingFilter = .lanczos3
    /// The most bytes the job may hold at once, enforced by its `MemoryLedger`; nil for no
    /// limit. Default: 256 MiB, far above what any thumbnail needs. A refused allocation
    /// throws `PareError.memoryLimit` before anything is allocated.
    public var memoryLimit: Int? = 256 * 1024 * 1024
    /// Refuse damaged input instead of repairing it: a decode that would have repaired
    /// something (and so set `Thumbnail.isDamaged`) throws an error of kind `.damaged`
    /// instead: `JPEGError.strict(warning)` for a JPEG, the `PNGError` naming the damage for
    /// a PNG, and each other codec's own error. Reads `jpeg.strict` and sets every codec's `strict` (EXIF damage is
    /// always a metadata warning). Default: false.
    public var strict: Bool {
        get { jpeg.strict }
        set {
            jpeg.strict = newValue
            png.strict = newValue
            webp.strict = newValue
            gif.strict = newValue
            tiff.strict = newValue
        }
    }
    /// Limits applied to the JPEG decoder (main image and embedded ones). Unlike a plain
    /// `JPEGOptions()`, its `progressiveFidelity` is `.preview`: a progressive photo too large
    /// for exact coefficients at its reduced scale is shrunk further by the resampler, which
    /// the last refinement bits of its AC coefficients hardly survive, so they are not read.
    /// And its `maxExactCoefficientBytes` is 2 MiB, not 8: a 12 MP 4:2:0 photo's exact sets at
    /// 1/8 (luma DC with the AC coefficients block smoothing reads, chroma 2×2 exact sets) take
    /// about 6 MB, its preview corners about 1.1 MB, so a thumbnail of a photo past about
    /// 4 MP takes the corners; smaller photos still decode exactly as djpeg does.
    public var jpeg: JPEGOptions = {
        var options = JPEGOptions()
        options.progressiveFidelity = .preview
        options.maxExactCoefficientBytes = 2 << 20
        return options
    }()
    /// Limits applied to the PNG decoder. Unlike a plain `PNGOptions()`, its
    /// `verifiesZlibChecksum` is false: every IDAT's CRC-32 still covers every compressed
    /// byte, and a thumbnail, like a browser, skips zlib's second checksum over every
    /// inflated byte. And its `strict` is false, as `jpeg.strict` is: a PNG cut off or
    /// damaged in its image data gives the rows before the damage, the rest transparent (or
    /// black without alpha), with a `ThumbnailWarning.png` (see `PNGWarning`).
    public var png: PNGOptions = {
        var options = PNGOptions()
        options.verifiesZlibChecksum = false
        options.strict = false
        return options
    }()
    /// Limits applied to the WebP decoder; `strict` false, as the others' (a file cut off
    /// gives the rows before the cut, with a `ThumbnailWarning.webp`).
    public var webp: WebPOptions = {
        var options = WebPOptions()
        options.strict = false
        return options
    }()
    /// Limits applied to the GIF decoder; `strict` false, and the block walk stops at the
    /// first frame, so that a thumbnail of a long animation reads only its first frame.
    public var gif: GIFOptions = {
        var options = GIFOptions()
        options.strict = false
        options.walksAllBlocks = false
        return options
    }()
    /// Limits applied to the TIFF image decoder; `strict` false, as the others'.
    public var tiff: TIFFOptions = {
        var options = TIFFOptions()
        options.strict = false
        return options
    }()
    /// Limits applied to EXIF, TIFF and MPF metadata.
    public var exif = EXIFOptions()
    /// Limits applied to embedded ICC profiles.
    public var icc = ICCOptions()
    /// What happens to colour: `.keep` (the default) leaves the pixels as decoded and
    /// carries the source's profile into the output; `.sRGB` converts them to sRGB.
    public var colour: ColourHandling = .keep
    /// What happens to an HDR photo's gain map: `.drop` (the default) or `.keep`.
    public var gainMap: GainMapHandling = .drop
    /// The profile that converts an untagged CMYK or YCCK JPEG to sRGB (`--cmyk-profile`):
    /// without it such a file gets the naive R = (1 − C)(1 − K)… that djpeg and Pillow use.
    /// A CMYK profile in the file wins over it. A tagged or given CMYK profile is applied
    /// whatever `colour` says: an RGB output cannot carry a CMYK profile.
    public var cmykProfile: ICCProfile?
    /// Threads that decode the bands of a JPEG with restart markers (see
    /// `ParallelJPEGDecoder`), the caller's among them; for a PNG, 2 or more inflate on a
    /// helper thread while the caller's unfilters and resamples (`ParallelPNGDecoder`, the
    /// same pixels). 1 decodes serially on the caller's thread. Default (nil): the cores this process may use, shared among the thumbnails
    /// decoding at that moment: one alone gets every core, two on two cores get one each, and
    /// 64 tasks in a task group (which runs as many at once as there are cores) start no
    /// thread of their own.
    public var decodeWorkers: Int?
    /// Decode a JPEG main image at this DCT scale whatever the size asks for. Tests use it to
    /// compare the scaled path with a full-scale decode; it is not part of the public API.
    var forcedJPEGScale: JPEGScale?

    /// The decoders' own defaults, for a full decode (`ImageSource.decodeMainImage`): every
    /// checksum checked, damage refused, a progressive JPEG decoded exactly as djpeg does.
    public static var exactDecode: ThumbnailOptions {
        var options = ThumbnailOptions(maxPixelSize: 0)
        options.jpeg = JPEGOptions()
        options.png = PNGOptions()
        options.webp = WebPOptions()
        options.gif = GIFOptions()
        options.tiff = TIFFOptions()
        return options
    }

    /// Options for a thumbnail whose long side is `maxPixelSize`, every other setting at its
    /// default.
    public init(maxPixelSize: Int) {
        self.maxPixelSize = maxPixelSize
    }
}
