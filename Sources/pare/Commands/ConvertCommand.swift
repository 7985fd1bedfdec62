@_spi(CommandLine) import Pare
import PareICC
import PareCore
import PareJPEG
import ParePNG

/// `pare convert IN -o OUT [--quality N] [--sampling 4:2:0|4:2:2|4:4:4] [--optimize]
/// [--progressive] [--restart N|NB] [--background RRGGBB] [--colour keep|srgb] [--cmyk-profile FILE]
/// [--png-compression fast|default|small]`: decodes IN (JPEG, PNG, PGM/PPM/PAM; sniffed from its
/// first bytes) at full size, with no orientation applied, and writes the format OUT's
/// extension names. JPEG output streams, row by row from the decoder into the encoder;
/// with no options it is what `cjpeg` writes from the same pixels (quality 75, 4:2:0,
/// standard tables, baseline). `--restart N` puts a restart marker every N MCU rows,
/// `--restart NB` every N MCUs, as cjpeg's `-restart` does. JPEG has no alpha: an input
/// with alpha is composited over `--background` (default FFFFFF, white) on its way in.
///
/// Colour goes through the thumbnail's colour stage (`ColourStage`): by default (`--colour
/// keep`) a JPEG or PNG output carries the source's ICC profile byte for byte (Netpbm
/// cannot, and a warning says so when one is dropped); `--colour srgb` converts the rows to
/// sRGB on their way to the encoder and writes no profile (a PNG gets an `sRGB` chunk).
/// Converted rows are 8-bit, whatever the input's sample size. A CMYK or YCCK JPEG goes
/// through its CMYK profile, else `--cmyk-profile FILE`, to sRGB in either mode.
func runConvert(_ raw: [String]) -> Int32 {
    let arguments: Arguments
    do {
        arguments = try Arguments(raw, valued: ["--output", "--quality", "--sampling", "--restart", "--format", "--colour",
                                                   "--background", "--cmyk-profile", "--png-compression"],
                                  boolean: ["--optimize", "--progressive", "--baseline"], aliases: ["-o": "--output"])
    } catch {
        return usageError(error.message)
    }
    guard arguments.positionals.count == 1, let output = arguments.value("--output") else {
        return usageError("convert needs one input and -o OUT")
    }
    let format: ImageFileFormat
    switch outputFormat(named: arguments.value("--format"), path: output) {
    case let .success(chosen): format = chosen
    case let .failure(error): return usageError(error.message)
    }
    var options = JPEGEncoderOptions()
    switch jpegOptions(arguments, defaultQuality: 75, into: &options) {
    case .success: break
    case let .failure(error): return usageError(error.message)
    }
    let background: BackgroundColour
    switch backgroundOption(arguments) {
    case let .success(colour): background = colour
    case let .failure(error): return usageError(error.message)
    }
    let png: PNGCompression
    switch pngCompressionOption(arguments) {
    case let .success(compression): png = compression
    case let .failure(error): return usageError(error.message)
    }
    var colour = ColourHandling.keep
    if let text = arguments.value("--colour") {
        guard let parsed = ColourHandling(rawValue: text) else { return usageError("--colour takes keep or srgb") }
        colour = parsed
    }
    var cmykProfile: ICCProfile?
    switch cmykProfileOption(arguments) {
    case let .success(profile): cmykProfile = profile
    case let .failure(error): return usageError(error.message)
    }
    let input = arguments.positionals[0]
    let source: InputBytes
    do {
        source = try InputBytes(path: input)
    } catch {
        return reportInputError(input, error)
    }
    let ledger = MemoryLedger()
    let file = OutputFile(path: output)
    var colourWarnings: [ThumbnailWarning] = []
    do throws(PareError) {
        let (sourceColour, isCMYK) = try sourceColour(source)
        let stage = ColourStage(colour, source: sourceColour, cmykProfile: cmykProfile)
        // A CMYK frame comes out as cmyk8 rows for the colour stage, which makes them sRGB.
        let convertsCMYK = stage.wantsCMYKSamples && isCMYK
        colourWarnings = stage.source.warnings.map(ThumbnailWarning.colour)
        if format == .jpeg {
            guard file.open() else {
                printError("pare: \(output): cannot write the file")
                return 1
            }
            let encoder = DeclaringJPEGEncoder(options: options, stage: stage, ledger: ledger, file: file,
                                               convertsCMYK: convertsCMYK)
            var sink = stage.sink(ledger: ledger, into: AlphaFlattener(encoder, over: background, ledger: ledger))
            do {
                try decodeFullSize(input: input, source: source, ledger: ledger, cmykSamples: convertsCMYK, into: &sink)
            } catch {
                // When the encoder refused the rows (a size JPEG cannot hold), its reason is the one to report.
                if error.kind == .usage { try sink.downstream.downstream.finish() }
                throw error
            }
            colourWarnings += sink.downstream.downstream.colourWarnings
            try sink.downstream.downstream.finish()
        } else {
            var sink = stage.sink(ledger: ledger, into: ImageBuilder(ledger: ledger))
            try decodeFullSize(input: input, source: source, ledger: ledger, cmykSamples: convertsCMYK, into: &sink)
            guard let image = sink.downstream.image else { throw .unsupported("the decoder produced no rows") }
            let declared = stage.outputColour(decoded: image.format, output: image.format,
                                              convertedCMYK: sink.convertedCMYK, warnings: &colourWarnings)
            if let dropped = ImageEncoding.colourDropped(declared, by: format) { colourWarnings.append(dropped) }
            guard file.open() else {
                printError("pare: \(output): cannot write the file")
                return 1
            }
            file.write(try ImageEncoding.encode(image, as: format, png: png, colour: declared, background: background,
                                            ledger: ledger))
        }
    } catch {
        file.abandon()
        return reportInputError(input, error)
    }
    for warning in colourWarnings { printError("pare: \(input): warning: \(warning)") }
    return commitOutput(file)
}

/// The colour facts of an input `ImageSource` reads (JPEG, PNG, TIFF), and whether it is a
/// CMYK or YCCK JPEG; none for Netpbm.
private func sourceColour(_ source: InputBytes) throws(PareError) -> (SourceColour, isCMYK: Bool) {
    let image: ImageSource
    do {
        image = try ImageSource(input: source)
    } catch {
        return (SourceColour(), false)
    }
    let properties = try image.properties()
    return (properties.colour, image.format == .jpeg && (properties.colorModel == .cmyk || properties.colorModel == .ycck))
}

/// The JPEG encoder, made when the first rows' format is known, so that the file declares
/// what the colour stage gives for that format (a CMYK profile is not carried on the RGB
/// pixels of a CMYK JPEG). It writes to `file` as rows arrive.
struct DeclaringJPEGEncoder: RowSink {
    let options: JPEGEncoderOptions
    let stage: ColourStage
    let ledger: MemoryLedger
    let file: OutputFile
    var encoder: JPEGEncoder<FileByteSink>?
    var failure: JPEGEncodingError?
    var colourWarnings: [ThumbnailWarning] = []
    /// The rows are a CMYK frame the colour stage made sRGB.
    let convertsCMYK: Bool

    init(options: JPEGEncoderOptions, stage: ColourStage, ledger: MemoryLedger, file: OutputFile, convertsCMYK: Bool) {
        self.convertsCMYK = convertsCMYK
        self.options = options
        self.stage = stage
        self.ledger = ledger
        self.file = file
    }

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        let colour = stage.outputColour(decoded: header.format, output: header.format, convertedCMYK: convertsCMYK,
                                        warnings: &colourWarnings)
        do {
            encoder = try JPEGEncoder(options: options.declaring(colour), ledger: ledger, sink: FileByteSink(file: file))
        } catch {
            failure = error
            throw .sinkStopped(row: 0)
        }
        try encoder?.begin(header)
    }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        try encoder?.consume(row, at: placement)
    }

    mutating func finish() throws(PareError) {
        do throws(JPEGEncodingError) {
            if let failure { throw failure }
            guard var encoder else { throw .incompleteImage(rowsGiven: 0, height: 0) }
            try encoder.finish()
        } catch {
            throw PareError(error)
        }
    }
}

/// Writes encoder output into an `OutputFile`.
struct FileByteSink: ByteSink {
    let file: OutputFile

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        file.write(bytes)
    }
}

/// The output format from `--format`, else from the file name; a usage error names the choices.
func outputFormat(named name: String?, path: String) -> Result<ImageFileFormat, Arguments.UsageError> {
    if let name {
        switch name {
        case "jpeg", "jpg": return .success(.jpeg)
        case "png": return .success(.png)
        case "ppm", "pgm", "pam", "netpbm": return .success(.netpbm)
        default: return .failure(.init(message: "--format takes jpeg, png or ppm"))
        }
    }
    guard let format = ImageFileFormat(fileName: path) else {
        return .failure(.init(message: "cannot tell the output format from '\(path)': name it .jpg or .jpeg (JPEG), "
            + ".png (PNG), .ppm, .pgm or .pam (Netpbm), or give --format jpeg|png|ppm"))
    }
    return .success(format)
}

/// --quality, --sampling, --optimize, --progressive, --restart and --baseline into encoder options.
func jpegOptions(_ arguments: Arguments, defaultQuality: Int,
                 into options: inout JPEGEncoderOptions) -> Result<Void, Arguments.UsageError> {
    options.quality = defaultQuality
    if let text = arguments.value("--quality") {
        guard let quality = Int(text), (1 ... 100).contains(quality) else {
            return .failure(.init(message: "--quality takes a whole number from 1 to 100"))
        }
        options.quality = quality
    }
    if let text = arguments.value("--sampling") {
        guard let sampling = ChromaSampling(rawValue: text) else {
            return .failure(.init(message: "--sampling takes 4:2:0, 4:2:2 or 4:4:4"))
        }
        options.sampling = sampling
    }
    options.optimizeHuffmanTables = arguments.flag("--optimize")
    options.progressive = arguments.flag("--progressive")
    options.forceBaseline = arguments.flag("--baseline")
    if var text = arguments.value("--restart") {
        let blocks = text.hasSuffix("B") || text.hasSuffix("b")
        if blocks { text.removeLast() }
        guard let n = Int(text), (0 ... 65535).contains(n) else {
            return .failure(.init(message: "--restart takes N (MCU rows) or NB (MCUs), N from 0 to 65535"))
        }
        if n > 0 { options.restartInterval = blocks ? .mcus(n) : .mcuRows(n) }
    }
    return .success(())
}

/// `--png-compression fast|default|small`: the PNG encoder's effort (`PNGCompression`).
func pngCompressionOption(_ arguments: Arguments) -> Result<PNGCompression, Arguments.UsageError> {
    guard let text = arguments.value("--png-compression") else { return .success(.default) }
    guard let compression = PNGCompression(rawValue: text) else {
        return .failure(.init(message: "--png-compression takes fast, default or small"))
    }
    return .success(compression)
}

/// `--background RRGGBB`: the colour a JPEG output shows where the picture is transparent.
func backgroundOption(_ arguments: Arguments) -> Result<BackgroundColour, Arguments.UsageError> {
    guard let text = arguments.value("--background") else { return .success(.white) }
    guard let colour = BackgroundColour(hex: text) else {
        return .failure(.init(message: "--background takes a colour as RRGGBB (six hexadecimal digits)"))
    }
    return .success(colour)
}

/// Decodes any input Pare reads at full size into `sink`, printing the decoder's warnings.
func decodeFullSize<Sink: RowSink>(input: String, source: InputBytes, ledger: MemoryLedger, cmykSamples: Bool = false,
                                   into sink: inout Sink) throws(PareError) {
    let magic: [UInt8]
    do {
        magic = try source.bytes(at: 0, count: min(16, source.count))
    } catch {
        throw PareError(error)
    }
    let format = ImageFormat(sniffing: magic)
    if format == .jpeg {
        do {
            var options = JPEGOptions()
            options.cmykSamples = cmykSamples
            let outcome = try ParallelJPEGDecoder.decode(source: source, scale: .full, options: options, ledger: ledger,
                                                         into: &sink)
            for warning in outcome.warnings { printError("pare: \(input): warning: \(warning)") }
        } catch {
            throw .jpeg(error)
        }
    } else if format != nil {
        let warnings = try ImageSource(input: source).decodeMainImage(ledger: ledger, into: &sink)
        for warning in warnings { printError("pare: \(input): warning: \(warning)") }
    } else {
        throw .unreadable(sniffing: magic)
    }
}

/// `--cmyk-profile FILE`: the profile for untagged CMYK and YCCK JPEGs, read and checked
/// now (a usage error names what is wrong with it); nil without the option.
func cmykProfileOption(_ arguments: Arguments) -> Result<ICCProfile?, Arguments.UsageError> {
    guard let path = arguments.value("--cmyk-profile") else { return .success(nil) }
    let profile: ICCProfile
    do {
        let bytes = try InputBytes(path: path)
        profile = try ICCProfile(bytes: bytes.bytes(at: 0, count: bytes.count))
    } catch {
        return .failure(Arguments.UsageError(message: "--cmyk-profile \(path): \(error)"))
    }
    guard profile.header.colourSpace == .cmyk, SRGBConverter(profile: profile) != nil else {
        return .failure(Arguments.UsageError(message: "--cmyk-profile \(path): not a CMYK profile Pare can apply"))
    }
    return .success(profile)
}
