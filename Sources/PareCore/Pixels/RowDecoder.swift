/// A decoder that reads a file's headers when it is made and then streams its image's rows
/// into a `RowSink`: what the PNG, GIF, TIFF and WebP decoders have in common. The
/// whole-image conveniences (`decodeImage`) are written once here, on top of
/// `decode(into:)`, and a caller can drive any of the decoders through one generic path.
public protocol RowDecoder {
    associatedtype Source: ByteSource
    associatedtype Options: DecoderOptions
    associatedtype Failure: Error
    /// What the decoder survived and reports after a decode (damage it repaired).
    associatedtype Warning

    /// Reads the headers from `source` under `options`, counting what it holds in `ledger`.
    init(source: Source, ledger: MemoryLedger, options: Options) throws(Failure)

    /// The ledger the decoder counts its memory in; a whole decoded image is counted there too.
    var ledger: MemoryLedger { get }
    /// Asked as the decode goes; when it says stop, the decode throws.
    var cancellation: CancellationCheck { get set }
    /// The damage survived so far.
    var warnings: [Warning] { get }
    /// The error `decodeImage` throws when `decode(into:)` returned without starting the
    /// image's rows, naming where in the file the image was expected.
    var noImageError: Failure { get }

    /// Decodes the image, pushing its rows into `sink`. Called once.
    mutating func decode<Sink: RowSink>(into sink: inout Sink) throws(Failure)
}

extension RowDecoder {
    /// Decodes the whole image into an `Image` (rows put in place, an interlaced one
    /// gathered whole), counted by the decoder's ledger. Call it instead of `decode(into:)`,
    /// once.
    public mutating func decodeImage() throws(Failure) -> Image {
        var builder = ImageBuilder(ledger: ledger)
        try decode(into: &builder)
        guard let image = builder.image else { throw noImageError }
        return image
    }
}

extension RowDecoder where Source == MemoryByteSource {
    /// Decodes the image of a file held in memory into an `Image`.
    public static func decodeImage(_ bytes: [UInt8], ledger: MemoryLedger,
                                   options: Options = Options()) throws(Failure) -> Image {
        var decoder = try Self(source: MemoryByteSource(bytes), ledger: ledger, options: options)
        return try decoder.decodeImage()
    }
}

/// A decoder's options: every option has a default, and `init()` gives them all, the options
/// a decoder made without any uses.
public protocol DecoderOptions {
    init()
}
