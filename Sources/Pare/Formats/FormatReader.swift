import PareCore
import PareJPEG
import PareWebP

/// What a file format gives the library: the one place a new format plugs in.
///
/// A format is recognised by its signature (`matches`), described by its headers without
/// decoding pixels (`properties`: size, orientation, colour, embedded images), and decoded
/// into a `RowSink` (`decodeMainImage`): the resampler of a thumbnail, an encoder of
/// `convert`, an `ImageBuilder`. Embedded pictures (EXIF thumbnails, MPF previews, camera
/// previews) are JPEGs whatever the container, and the thumbnail decodes them itself; a
/// format decodes only its main image.
///
/// `ImageFormat.readers` lists the conformances; `ImageFormat(sniffing:)`, `ImageSource` and
/// the thumbnail iterate it rather than switching on the format. Adding a format is one
/// module (its decoder) and one conformance here. The readers are types used as values
/// (metatypes in a shared list), so they are `SendableMetatype`.
protocol FormatReader: SendableMetatype {
    /// The format this reader reads.
    static var format: ImageFormat { get }

    /// True when `prefix` (the file's first 16 bytes, or all of a shorter file) begins with
    /// the format's signature. It checks what names the format and leaves the rest to the
    /// decoder, which says precisely what is wrong.
    static func matches(_ prefix: [UInt8]) -> Bool

    /// The headers' facts, read without decoding pixels under `options`' limits, counting
    /// what the reads hold in `ledger`.
    static func properties(of input: InputBytes, options: ThumbnailOptions,
                           ledger: MemoryLedger) throws(PareError) -> ImageProperties

    /// Decodes the main image at `scale` (`.full`, or one of `ImageProperties.reducedScales`) into `sink`,
    /// returning the repairs made on the way.
    static func decodeMainImage<Sink: RowSink>(_ input: InputBytes, scale: JPEGScale, job: DecodeJob,
                                               into sink: inout Sink) throws(PareError) -> [ThumbnailWarning]
}

extension FormatReader {
    /// Opens a row decoder on `input`, its headers read under `options` and counted in
    /// `ledger`; its error becomes the library's through `lift`.
    static func openDecoder<Decoder: RowDecoder>(
        _ input: InputBytes, ledger: MemoryLedger, options: Decoder.Options,
        error lift: (Decoder.Failure) -> PareError
    ) throws(PareError) -> Decoder where Decoder.Source == InputBytes {
        do throws(Decoder.Failure) {
            return try Decoder(source: input, ledger: ledger, options: options)
        } catch {
            throw lift(error)
        }
    }

    /// The main image of a format with one row decoder: the decoder opened under `job`
    /// (its ledger, its cancellation), `decode` run on it, and its warnings returned as the
    /// thumbnail's through `warning`; any error becomes the library's through `lift`.
    static func decodeMain<Decoder: RowDecoder>(
        _ input: InputBytes, options: Decoder.Options, job: DecodeJob,
        error lift: (Decoder.Failure) -> PareError, warning: (Decoder.Warning) -> ThumbnailWarning,
        decode: (inout Decoder) throws(Decoder.Failure) -> Void
    ) throws(PareError) -> [ThumbnailWarning] where Decoder.Source == InputBytes {
        var decoder: Decoder = try openDecoder(input, ledger: job.ledger, options: options, error: lift)
        decoder.cancellation = job.cancellation
        do throws(Decoder.Failure) {
            try decode(&decoder)
        } catch {
            throw lift(error)
        }
        return decoder.warnings.map(warning)
    }

    /// `decodeMain` sending every row of the image to `sink`.
    static func decodeMain<Decoder: RowDecoder, Sink: RowSink>(
        with _: Decoder.Type, _ input: InputBytes, options: Decoder.Options, job: DecodeJob, into sink: inout Sink,
        error lift: (Decoder.Failure) -> PareError, warning: (Decoder.Warning) -> ThumbnailWarning
    ) throws(PareError) -> [ThumbnailWarning] where Decoder.Source == InputBytes {
        try decodeMain(input, options: options, job: job, error: lift, warning: warning) {
            (decoder: inout Decoder) throws(Decoder.Failure) in try decoder.decode(into: &sink)
        }
    }
}

/// What a decode runs under: the options (the decoders' own among them), the worker threads
/// it may use, the ledger it counts into and the cancellation it asks.
struct DecodeJob {
    var options: ThumbnailOptions
    var workers: Int
    var ledger: MemoryLedger
    var cancellation: CancellationCheck
    /// True when the sink needs rows once each, top to bottom: an interlaced picture is then
    /// collected whole and sent in order. The resampler takes passes as they come.
    var sequentialRows = false
    /// Where the main image's data ends when its file says so (a Multi-Picture file's primary
    /// image, before its gain map or previews): a hint for `JPEGDecoder.dataEnd`.
    var dataEnd: Int?
}

extension ImageFormat {
    /// Every format the library reads, in the order their signatures are tried.
    static let readers: [any FormatReader.Type] = [
        JPEGFormatReader.self, PNGFormatReader.self, TIFFFormatReader.self, WebPFormatReader.self,
        GIFFormatReader.self, NetpbmFormatReader.self,
    ]

    /// The formats read, named for an error message: "JPEG, PNG, TIFF, Netpbm".
    static var readableNames: String {
        readers.map { $0.format.displayName }.joined(separator: ", ")
    }

    /// The format's name as people write it.
    public var displayName: String {
        switch self {
        case .jpeg: return "JPEG"
        case .png: return "PNG"
        case .tiff: return "TIFF"
        case .netpbm: return "Netpbm"
        case .webp: return "WebP"
        case .gif: return "GIF"
        }
    }

    /// A WebP's EXIF block (`WebPFormatReader.exifBlock`), for the command line's `exif`.
    @_spi(CommandLine) public static func webpEXIFBlock(of info: WebPInfo) -> (payload: [UInt8], offset: Int)? {
        WebPFormatReader.exifBlock(of: info)
    }

    /// The reader of this format.
    var reader: any FormatReader.Type {
        // Every case has a reader (FormatReaderTests checks it).
        Self.readers.first { $0.format == self }!
    }
}
