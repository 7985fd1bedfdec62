import PareCore
import PareJPEG
import PareEXIF
import PareICC
import ParePNG
import PareWebP
import PareGIF
import Synchronization

/// The container formats Pare recognises, sniffed from the first bytes, never the name.
public enum ImageFormat: String, Sendable, CaseIterable {
    /// JPEG (JFIF, Exif): `FF D8 FF`.
    case jpeg
    /// PNG: its eight-byte signature.
    case png
    /// TIFF (`II*\0`, `MM\0*`, and BigTIFF's 43): only its metadata and an embedded JPEG
    /// thumbnail are read.
    case tiff
    /// Binary Netpbm (P5 gray, P6 RGB, P7 PAM): what tools pass between them.
    case netpbm
    /// WebP (RIFF `WEBP`): lossy, lossless, with alpha, an animation's first frame.
    case webp
    /// GIF (87a, 89a): the first frame on its logical screen.
    case gif

    /// The format whose signature `prefix` starts with, if any: the one sniffer of the
    /// library and the command line. It asks each format's reader (`FormatReader.matches`),
    /// which checks what names the format and leaves the rest to the decoder.
    public init?(sniffing prefix: [UInt8]) {
        guard let reader = Self.readers.first(where: { $0.matches(prefix) }) else { return nil }
        self = reader.format
    }
}

extension ImageFormat {
    /// The formats Pare knows by their signature but does not decode, named so that a refusal
    /// says what the file is rather than "not an image": ISO BMFF's `ftyp` box with a HEIF or
    /// AVIF brand (ISO/IEC 23008-12, AV1 Image File Format), JPEG XL's codestream and
    /// container signatures (ISO/IEC 18181-2), JPEG 2000's (ISO/IEC 15444-1 and its JP2
    /// signature box), and BMP's "BM". Reads up to 16 bytes of `prefix`.
    public static func unsupportedName(sniffing prefix: [UInt8]) -> String? {
        func at(_ offset: Int, _ text: String) -> Bool { prefix.dropFirst(offset).starts(with: Array(text.utf8)) }
        if at(4, "ftyp") {
            let brand = String(decoding: prefix.dropFirst(8).prefix(4), as: UTF8.self)
            if ["avif", "avis"].contains(brand) { return "AVIF" }
            if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "mif2"].contains(brand) { return "HEIF" }
            if brand == "jxl " { return "JPEG XL" }
            if ["jp2 ", "jpx ", "jph "].contains(brand) { return "JPEG 2000" }
            return nil
        }
        if prefix.starts(with: [0xFF, 0x0A]) || prefix.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            return "JPEG XL"
        }
        if prefix.starts(with: [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
            || prefix.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) {
            return "JPEG 2000"
        }
        if at(0, "BM") && prefix.count >= 14 { return "BMP" }
        return nil
    }
}

extension PareError {
    /// The refusal of an input whose first bytes are not a format Pare reads: the format
    /// named when it is one Pare knows ("HEIF image: not supported"), else `.unknownFormat`.
    public static func unreadable(sniffing prefix: [UInt8]) -> PareError {
        ImageFormat.unsupportedName(sniffing: prefix).map { .unsupported("\($0) image: not supported") } ?? .unknownFormat
    }
}

/// A picture stored inside the file that can stand in for the main image.
public struct EmbeddedImageInfo: Sendable, Equatable {
    /// Which kind of embedded picture.
    public enum Kind: Sendable, Equatable {
        /// The EXIF IFD1 thumbnail (JPEGInterchangeFormat), usually 160×120.
        case exifThumbnail
        /// An MPF (CIPA DC-007) image other than the primary: often a 1–2 MP preview.
        case mpfPreview(index: Int)
        /// The JPEG preview of a camera RAW file, the `index`th found (`RawPreviews`).
        case rawPreview(index: Int)
    }

    /// Which kind of embedded picture.
    public var kind: Kind
    /// Where the embedded JPEG starts in the file (absolute byte offset).
    public var offset: Int
    /// Its length in bytes.
    public var length: Int
    /// Stored (not oriented) width, read from the embedded JPEG's own SOF.
    public var width: Int
    /// Stored (not oriented) height.
    public var height: Int
}

/// How an image's samples are coded, as its headers say.
public enum ColorModel: Sendable, Equatable {
    /// One channel (JPEG one component, PNG colour types 0 and 4, TIFF
    /// PhotometricInterpretation 0 or 1).
    case gray
    /// Red, green, blue (PNG 2 and 6, a JPEG with Adobe transform 0 or RGB component ids,
    /// TIFF 2).
    case rgb
    /// Palette indices (PNG 3, TIFF 3).
    case palette
    /// JPEG's usual YCbCr (JFIF), or TIFF 6.
    case yCbCr
    /// Four ink channels (Adobe JPEG transform 0, TIFF 5).
    case cmyk
    /// YCbCr plus black (Adobe JPEG transform 2).
    case ycck
    /// Anything else or not stated.
    case unknown
}

/// What the headers say about an input, read without decoding pixels.
public struct ImageProperties: Sendable {
    /// The container format, sniffed from the first bytes.
    public var format: ImageFormat
    /// Stored width of the main image (before orientation). For a TIFF file: IFD0
    /// ImageWidth, else the Exif PixelXDimension.
    public var pixelWidth: Int
    /// Stored height of the main image (TIFF: ImageLength, else PixelYDimension).
    public var pixelHeight: Int
    /// The EXIF orientation (`.up` when there is none).
    public var orientation: Orientation = .up
    /// The reduced scales the main image decodes at, smallest first (a JPEG's DCT scales, a
    /// lossy WebP's half size), as its format's reader finds them; the source choice picks
    /// among them.
    var reducedScales: [JPEGScale] = []
    /// Width once turned upright.
    public var orientedWidth: Int { orientation.orientedSize(width: pixelWidth, height: pixelHeight).width }
    /// Height once turned upright.
    public var orientedHeight: Int { orientation.orientedSize(width: pixelWidth, height: pixelHeight).height }
    /// Bits per sample: the JPEG SOF's precision, the PNG IHDR bit depth, the first TIFF
    /// BitsPerSample (nil when the TIFF does not say).
    public var bitDepth: Int?
    /// True when the pixels carry alpha: PNG colour types 4 and 6 or a tRNS chunk, a TIFF
    /// with ExtraSamples. JPEG has none.
    public var hasAlpha: Bool = false
    /// True for a progressive JPEG (SOF2) or an interlaced (Adam7) PNG: files whose first
    /// rows cannot be had before the whole data is read.
    public var isProgressive: Bool = false
    /// How the samples are coded.
    public var colorModel: ColorModel = .unknown
    /// When the picture was taken, as EXIF writes it ("2024:05:17 14:03:22"): DateTimeOriginal,
    /// else IFD0 DateTime.
    public var dateTaken: String?
    /// The camera's maker (IFD0 Make).
    public var cameraMake: String?
    /// The camera's model (IFD0 Model).
    public var cameraModel: String?
    /// True when the metadata holds a GPS position.
    public var hasGPS: Bool = false
    /// Frames (an animated WebP or GIF) or pages (TIFF); 1 for a still, nil when not
    /// counted (a GIF's frames are counted only by walking the whole file, which a
    /// thumbnail does not do).
    public var frameCount: Int? = 1
    /// How many times an animation repeats (0: forever), nil for a still or when unsaid.
    public var loopCount: Int?
    /// True for a camera RAW file: its sensor data is never decoded, only its JPEG
    /// previews (`previews`) serve.
    public var isRaw = false
    /// The EXIF IFD1 thumbnail, when it is a JPEG whose size could be read.
    public var exifThumbnail: EmbeddedImageInfo?
    /// The MPF images that may stand in for the primary: those of a Large Thumbnail type
    /// (CIPA DC-007 Table 4, 0x010001–0x010004) whose size could be read. Other entries
    /// (gain maps, disparity and multi-frame images, "undefined") are in `mpfImages` only.
    public var previews: [EmbeddedImageInfo] = []
    /// Every entry of the MP Entry list, the primary's included, whatever its type.
    public var mpfImages: [MPFEntry] = []
    /// The gain map of an HDR photo (Ultra HDR, ISO 21496-1, Apple's), nil when there is none.
    public var gainMap: GainMapInfo?
    /// Why metadata could not be used in full, when it could not (the image itself may
    /// still be fine): the marker walk's, the EXIF block's and the MPF index's problems.
    public var metadataWarnings: [EXIFError] = []
    /// The embedded ICC profile or the colour space the tags imply.
    public var colour = SourceColour()
    /// The embedded ICC profile, parsed.
    public var iccProfile: ICCProfile? { colour.profile }
}

/// One input image, the counterpart of ImageIO's `CGImageSource`: created from a path or
/// from bytes, it reads headers lazily and makes thumbnails through the cheapest source.
///
/// A path is read on demand (`pread` through the decoders' 64 KiB windows), never whole.
/// `Sendable`: tasks may share one source; its properties cache is behind a lock, and the
/// input is only read (see `InputBytes`). Each thumbnail call has its own decoder and ledger.
public final class ImageSource: Sendable {
    /// The bytes being read.
    public let input: InputBytes
    /// The format sniffed from the first bytes.
    public let format: ImageFormat
    /// The last properties read, and the options that decided them.
    private let cachedProperties = Mutex<(options: PropertyOptions, properties: ImageProperties)?>(nil)

    /// Opens a file. Fails if it cannot be read or is not of a format Pare reads.
    public convenience init(path: String) throws(PareError) {
        try self.init(input: try InputBytes(path: path))
    }

    /// Wraps bytes already in memory (shared with the array, not copied).
    public convenience init(bytes: [UInt8]) throws(PareError) {
        try self.init(input: InputBytes(bytes))
    }

    /// Reads bytes the caller holds elsewhere in place, without a copy (see
    /// `InputBytes.init(unsafeBytes:)`: they must outlive the source and what it makes).
    public convenience init(unsafeBytes bytes: UnsafeRawBufferPointer) throws(PareError) {
        try self.init(input: InputBytes(unsafeBytes: bytes))
    }

    /// Reads from `input`. Fails if its first bytes are not those of a format Pare reads:
    /// with `.unsupported` naming the format when Pare knows it (HEIF, AVIF, JPEG XL, JPEG
    /// 2000, BMP), else with `.unknownFormat`; or with the read's error.
    public init(input: InputBytes) throws(PareError) {
        self.input = input
        let prefix: [UInt8]
        do {
            prefix = try input.bytes(at: 0, count: min(16, input.count))
        } catch {
            throw PareError(error)
        }
        guard let format = ImageFormat(sniffing: prefix) else { throw .unreadable(sniffing: prefix) }
        self.format = format
    }

    /// The headers' facts (size, orientation, embedded images, depth, metadata), read without
    /// decoding pixels under `options`' limits (`memoryLimit`, `jpeg`, `png`, `exif`).
    /// Cached: asked again with the same limits, the first answer is given; with other
    /// limits, the headers are read again.
    public func properties(options: ThumbnailOptions = ThumbnailOptions(maxPixelSize: 0)) throws(PareError) -> ImageProperties {
        try properties(options: options, ledger: MemoryLedger(limit: options.memoryLimit))
    }

    /// The same, counting what the headers take in `ledger` (a thumbnail's own, so that its
    /// limit covers the header reads too).
    func properties(options: ThumbnailOptions, ledger: MemoryLedger) throws(PareError) -> ImageProperties {
        let key = PropertyOptions(options)
        if let cached = cachedProperties.withLock({ $0 }), cached.options == key { return cached.properties }
        // Read outside the lock: two tasks asking at once may both read the headers, and
        // either answer is the same.
        let properties = try readProperties(options: options, ledger: ledger)
        cachedProperties.withLock { $0 = (key, properties) }
        return properties
    }

    /// Decodes the main image at full size into `sink`, each row once, top to bottom (an
    /// interlaced picture is collected first): no orientation, no colour conversion, no
    /// resampling. For encoders and file writers; returns the repairs made on the way.
    public func decodeMainImage<Sink: RowSink>(options: ThumbnailOptions = .exactDecode,
                                               ledger: MemoryLedger, workers: Int = 1,
                                               into sink: inout Sink) throws(PareError) -> [ThumbnailWarning] {
        let job = DecodeJob(options: options, workers: workers, ledger: ledger, cancellation: CancellationCheck(),
                            sequentialRows: true)
        return try format.reader.decodeMainImage(input, scale: .full, job: job, into: &sink)
    }

    private func readProperties(options: ThumbnailOptions, ledger: MemoryLedger) throws(PareError) -> ImageProperties {
        try format.reader.properties(of: input, options: options, ledger: ledger)
    }
}

/// The options that decide what `properties` reads: a cached answer is reused only under the
/// same ones.
struct PropertyOptions: Equatable, Sendable {
    var memoryLimit: Int?
    var jpeg: JPEGOptions
    var png: PNGOptions
    var webp: WebPOptions
    var gif: GIFOptions
    var exif: EXIFOptions
    var icc: ICCOptions

    init(_ options: ThumbnailOptions) {
        memoryLimit = options.memoryLimit
        jpeg = options.jpeg
        png = options.png
        webp = options.webp
        gif = options.gif
        exif = options.exif
        icc = options.icc
    }
}

extension ImageProperties {
    /// Takes the orientation, date, camera and GPS presence from EXIF metadata.
    mutating func describe(_ exif: EXIFMetadata) {
        orientation = exif.orientation
        dateTaken = exif.dateTimeOriginal ?? exif.dateTime
        cameraMake = exif.make
        cameraModel = exif.model
        hasGPS = exif.gps != nil
    }
    /// Reads a TIFF-structured EXIF block carried by the container (PNG's eXIf chunk, WebP's
    /// EXIF chunk), whose header stands at `baseOffset` in the file, and takes its facts and
    /// warnings; a block that cannot be read becomes a metadata warning. Returns what was read.
    mutating func describeEXIF(_ payload: [UInt8], baseOffset: Int, options: EXIFOptions) -> EXIFMetadata? {
        do {
            let read = try EXIFReader.readTIFF(payload, baseOffset: baseOffset, options: options)
            describe(read)
            metadataWarnings = read.warnings
            return read
        } catch {
            metadataWarnings.append(error)
            return nil
        }
    }
}
