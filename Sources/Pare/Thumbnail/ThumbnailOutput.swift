import PareCore
import PareJPEG
import ParePNG

/// The file a thumbnail is written as: the format (or the rule that picks it) and every
/// setting of its encoder. With a `ThumbnailRequest` it names a file in the disk cache, so
/// each setting that changes the bytes is a field of `cacheKey`.
public struct ThumbnailOutput: Sendable {
    public enum Format: Sendable, Equatable {
        /// Always this format.
        case fixed(ImageFileFormat)
        /// JPEG for an opaque thumbnail, PNG for one with alpha.
        case jpegOrPNGByAlpha
    }

    public var format: Format
    /// The JPEG encoder's settings (and the gain map's, which it derives from them).
    public var jpeg: JPEGEncoderOptions
    /// The PNG writer's effort.
    public var png: PNGCompression
    /// What a JPEG of a picture with alpha is composited over.
    public var background: BackgroundColour

    public init(format: Format, jpeg: JPEGEncoderOptions = .thumbnail, png: PNGCompression = .default,
                background: BackgroundColour = .white) {
        self.format = format
        self.jpeg = jpeg
        self.png = png
        self.background = background
    }

    /// What the pipeline's disk cache stores for `thumbnail(_:)`: JPEG at
    /// `JPEGEncoderOptions.thumbnail` where the thumbnail is opaque, PNG where it has alpha.
    public static let automatic = ThumbnailOutput(format: .jpegOrPNGByAlpha)

    /// The format an image of this thumbnail is written in.
    public func fileFormat(for image: Image) -> ImageFileFormat {
        switch format {
        case let .fixed(format): return format
        case .jpegOrPNGByAlpha: return image.format.hasAlpha ? .png : .jpeg
        }
    }

    /// What the disk cache keeps for this output: the file itself for JPEG and PNG; for
    /// Netpbm (as large as the pixels) a PNG, converted back on a hit.
    var stored: ThumbnailOutput {
        guard format == .fixed(.netpbm) else { return self }
        var stored = self
        stored.format = .fixed(.png)
        return stored
    }

    /// Every field, named, as text for the disk cache's key (`ThumbnailKey.encoded(as:)`).
    /// `ThumbnailOutputTests` fails when a field of this type or of `JPEGEncoderOptions` is
    /// added without a change here.
    var cacheKey: String {
        let formatName: String
        switch format {
        case let .fixed(format): formatName = format.rawValue
        case .jpegOrPNGByAlpha: formatName = "jpeg-or-png"
        }
        let restart: String
        switch jpeg.restartInterval {
        case nil: restart = "none"
        case let .mcuRows(rows)?: restart = "\(rows)rows"
        case let .mcus(count)?: restart = "\(count)mcus"
        }
        let profile = jpeg.iccProfile.map { ThumbnailOptions.fingerprint($0) } ?? "none"
        return "v2|format=\(formatName)|quality=\(jpeg.quality)|sampling=\(jpeg.sampling.rawValue)"
            + "|optimize=\(jpeg.optimizeHuffmanTables ? 1 : 0)|restart=\(restart)|progressive=\(jpeg.progressive ? 1 : 0)"
            + "|baseline=\(jpeg.forceBaseline ? 1 : 0)|profile=\(profile)|png=\(png.rawValue)|background=\(background.hex)"
    }
}

/// A thumbnail as a file, from `ThumbnailPipeline.file(_:as:)`: the bytes and what the
/// report of a batch says of them.
public struct ThumbnailFile: Sendable {
    public var bytes: [UInt8]
    public var format: ImageFileFormat
    /// Where the pixels came from (the disk cache's entry says, on a hit).
    public var source: ThumbnailSource
    public var width: Int
    public var height: Int
    /// The job's ledger: its peak and allocations over the decode and the encode (0 on a
    /// disk-cache hit of a JPEG or PNG, which decodes nothing).
    public var ledgerPeakBytes: Int
    public var allocations: Int
    /// True if the bytes came from the disk cache.
    public var fromDiskCache: Bool
    /// The decode's warnings and what the format could not hold.
    public var warnings: [ThumbnailWarning]
    /// The time it took to make: the disk-cache lookup, the decode and the encode.
    public var duration: Duration = .zero
}
