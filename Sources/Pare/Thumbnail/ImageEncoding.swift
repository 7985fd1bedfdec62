import PareCore
import PareJPEG
@_spi(Codec) import PareEXIF
import ParePNG

/// The file formats Pare writes.
public enum ImageFileFormat: String, Sendable, CaseIterable {
    /// JFIF JPEG (T.81 baseline, or progressive on request). JPEG has no alpha: an image
    /// with alpha is composited over a background colour first (`AlphaFlattener`).
    case jpeg
    /// PNG, with alpha when the image has it.
    case png
    /// Binary Netpbm: PGM (P5) for gray, PPM (P6) for RGB, PAM (P7) with alpha.
    case netpbm

    /// The format a file name's extension names: .jpg/.jpeg, .png, .ppm/.pgm/.pam; nil for
    /// any other.
    public init?(fileName: String) {
        let lower = fileName.lowercased()
        if lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") {
            self = .jpeg
        } else if lower.hasSuffix(".png") {
            self = .png
        } else if lower.hasSuffix(".ppm") || lower.hasSuffix(".pgm") || lower.hasSuffix(".pam") {
            self = .netpbm
        } else {
            return nil
        }
    }

    /// The extension written for an image of `format` (without the dot).
    public func fileExtension(for format: PixelFormat) -> String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .netpbm: return format.channels == 1 ? "pgm" : format.channels == 3 ? "ppm" : "pam"
        }
    }
}

/// A thumbnail and its encoded file.
public struct EncodedThumbnail: Sendable {
    /// The thumbnail that was encoded.
    public var thumbnail: Thumbnail
    /// The file format written.
    public var format: ImageFileFormat
    /// The file's bytes.
    public var bytes: [UInt8]
}

extension JPEGEncoderOptions {
    /// What thumbnails are written with: cjpeg's defaults but quality 85. A thumbnail is
    /// looked at pixel for pixel, where quality 75's ringing around edges and blocking in
    /// smooth skies show; 85 removes most of it for about a third more bytes, and a 256-px
    /// JPEG at 85 is still a fraction of the PNG's size (Benchmarks/README.md).
    public static var thumbnail: JPEGEncoderOptions { JPEGEncoderOptions(quality: 85) }
}

/// One call from an image to its file's bytes.
public enum ImageEncoding {
    /// `colour` is what the file declares: a carried profile goes into JPEG APP2 chunks
    /// (ICC.1 B.4) or PNG iCCP byte for byte, sRGB into a PNG sRGB chunk (a JPEG without a
    /// profile is read as sRGB); Netpbm has no place for either. A JPEG of an image with
    /// alpha shows it composited over `background` (PNG and Netpbm keep the alpha). A PNG is
    /// written with the effort `png` asks for.
    public static func encode(_ image: Image, as format: ImageFileFormat,
                              jpeg: JPEGEncoderOptions = .thumbnail, png: PNGCompression = .default,
                              colour: OutputColour = .untagged,
                              background: BackgroundColour = .white,
                              ledger: MemoryLedger = MemoryLedger()) throws(PareError) -> [UInt8] {
        switch format {
        case .jpeg:
            do throws(JPEGEncodingError) {
                let encoder = try JPEGEncoder(options: jpeg.declaring(colour), ledger: ledger, sink: ByteArraySink())
                var flattener = AlphaFlattener(encoder, over: background, ledger: ledger)
                do throws(CoreError) {
                    try image.send(to: &flattener)
                } catch {
                    throw JPEGEncodingError.core(error)
                }
                try flattener.downstream.finish()
                return flattener.downstream.sink.bytes
            } catch {
                throw PareError(error)
            }
        case .png:
            do {
                var encoder = PNGEncoder(ledger: ledger, compression: png)
                switch colour {
                case .untagged: break
                // Relative colorimetric, the intent of the conversion to sRGB.
                case .sRGB: encoder.srgbIntent = 1
                case let .profile(profile): encoder.iccProfile = profile.bytes
                }
                return try encoder.encode(image)
            } catch {
                throw PareError(error)
            }
        case .netpbm:
            return NetpbmEncoder.encode(image)
        }
    }
}

extension ImageEncoding {
    /// A thumbnail's file: its image as `encode(_:as:…)` writes it, declaring the thumbnail's
    /// colour; with a gain map (`GainMapHandling.keep`) and JPEG output, an HDR JPEG
    /// (`GainMapContainer`: the gain map JPEG-encoded at quality 95 or the picture's if
    /// higher, 4:4:4 when it has colour, no profile, behind the picture in an MPF container with the source's
    /// metadata). Returns what the format could not hold as warnings: a profile in Netpbm,
    /// a gain map in PNG or Netpbm.
    public static func encode(_ thumbnail: Thumbnail, as format: ImageFileFormat,
                              jpeg: JPEGEncoderOptions = .thumbnail, png: PNGCompression = .default,
                              background: BackgroundColour = .white,
                              ledger: MemoryLedger = MemoryLedger()) throws(PareError) -> (bytes: [UInt8], warnings: [ThumbnailWarning]) {
        var warnings: [ThumbnailWarning] = []
        if let dropped = colourDropped(thumbnail.colour, by: format) { warnings.append(dropped) }
        let picture = try encode(thumbnail.image, as: format, jpeg: jpeg, png: png, colour: thumbnail.colour,
                                 background: background, ledger: ledger)
        guard let gainMap = thumbnail.gainMap, let metadata = gainMap.source.metadata else { return (picture, warnings) }
        guard format == .jpeg else {
            warnings.append(.gainMap(.notCarried(format)))
            return (picture, warnings)
        }
        // The map's errors are multiplied into the HDR rendition (a code of the map is a
        // step of boost): quality 95 at least, and no chroma subsampling.
        var options = jpeg
        options.iccProfile = nil
        options.sampling = .s444
        options.quality = max(options.quality, 95)
        let map = try encode(gainMap.image, as: .jpeg, jpeg: options, ledger: ledger)
        guard let joined = GainMapContainer.assemble(primary: picture, gainMap: map, metadata: metadata,
                                                     isoPayload: gainMap.source.isoPayload) else {
            return (picture, warnings)
        }
        return (joined, warnings)
    }

    /// The warning for a file of `format` that cannot declare `colour`: Netpbm has no place
    /// for a profile. Nil when nothing is lost (sRGB is what an untagged file is read as).
    public static func colourDropped(_ colour: OutputColour, by format: ImageFileFormat) -> ThumbnailWarning? {
        guard format == .netpbm, case let .profile(profile) = colour else { return nil }
        return .colour(.droppedByNetpbm(ProfileName(profile)))
    }
}

extension JPEGEncoderOptions {
    /// These options with the file declaring `colour`: a carried profile goes into APP2
    /// chunks (ICC.1 B.4); sRGB needs nothing, since a JPEG without a profile is read as sRGB.
    public func declaring(_ colour: OutputColour) -> JPEGEncoderOptions {
        var options = self
        if case let .profile(profile) = colour { options.iccProfile = profile.bytes }
        return options
    }
}

/// The binary Netpbm formats: PGM (P5) for gray, PPM (P6) for RGB, PAM (P7) for gray+alpha
/// and RGBA; MAXVAL 255, or 65535 for 16-bit samples (stored big-endian, as `Image` holds them).
public enum NetpbmEncoder {
    public static func header(width: Int, height: Int, channels: Int, maxValue: Int = 255) -> [UInt8] {
        let text: String
        switch channels {
        case 1: text = "P5\n\(width) \(height)\n\(maxValue)\n"
        case 3: text = "P6\n\(width) \(height)\n\(maxValue)\n"
        default:
            text = "P7\nWIDTH \(width)\nHEIGHT \(height)\nDEPTH \(channels)\nMAXVAL \(maxValue)\n"
                + "TUPLTYPE \(channels == 4 ? "RGB_ALPHA" : "GRAYSCALE_ALPHA")\nENDHDR\n"
        }
        return Array(text.utf8)
    }

    public static func encode(_ image: Image) -> [UInt8] {
        header(width: image.width, height: image.height, channels: image.format.channels,
               maxValue: image.format.bytesPerSample == 2 ? 65535 : 255) + image.pixels
    }
}

extension ImageSource {
    /// A thumbnail encoded as `format`: `thumbnail(options:)`, then the encoder, counting
    /// both into one ledger.
    public func encodedThumbnail(options: ThumbnailOptions, format: ImageFileFormat,
                                 jpeg: JPEGEncoderOptions = .thumbnail,
                                 background: BackgroundColour = .white) throws(PareError) -> EncodedThumbnail {
        let ledger = MemoryLedger(limit: options.memoryLimit)
        var thumbnail = try self.thumbnail(options: options, ledger: ledger)
        let (bytes, warnings) = try ImageEncoding.encode(thumbnail, as: format, jpeg: jpeg, background: background,
                                                         ledger: ledger)
        thumbnail.warnings += warnings
        return EncodedThumbnail(thumbnail: thumbnail, format: format, bytes: bytes)
    }
}
