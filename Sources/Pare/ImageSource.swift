import PareCore
import PareJPEG
import PareEXIF
import PareICC
import ParePNG

/// The container formats Pare recognises, sniffed from the first bytes, never the name.
public enum ImageFormat: String, Sendable {
    case jpeg, png, tiff

    /// The format whose signature `prefix` starts with, if any: the one sniffer of the
    /// library and the command line. It asks for what names the format and leaves the rest
    /// to the format's own reader, which says precisely what is wrong: JPEG's SOI marker
    /// `FF D8` (T.81 B.1.1.2; the decoder, like libjpeg, finds the next marker itself), the
    /// `89 'PNG'` that opens PNG's signature (the decoder checks the other four bytes, which
    /// catch line-ending damage, PNG 3rd ed. §5.2), and a TIFF header's byte order and
    /// version, 42 or BigTIFF's 43 (TIFF 6.0 §2).
    public init?(sniffing prefix: [UInt8]) {
        if prefix.starts(with: [0xFF, 0xD8]) {
            self = .jpeg
        } else if prefix.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            self = .png
        } else if prefix.starts(with: [0x49, 0x49, 0x2A, 0x00]) || prefix.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            || prefix.starts(with: [0x49, 0x49, 0x2B, 0x00]) || prefix.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) {
            self = .tiff
        } else {
            return nil
        }
    }
}

/// A picture stored inside the file that can stand in for the main image.
public struct EmbeddedImageInfo: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The EXIF IFD1 thumbnail (JPEGInterchangeFormat), usually 160×120.
        case exifThumbnail
        /// An MPF (CIPA DC-007) image other than the primary: often a 1–2 MP preview.
        case mpfPreview(index: Int)
    }

    public var kind: Kind
    /// Absolute byte range of the embedded JPEG in the file.
    public var offset: Int
    public var length: Int
    /// Stored (not oriented) size, read from the embedded JPEG's own SOF.
    public var width: Int
    public var height: Int
}

/// What the headers say about an input, read without decoding pixels.
public struct ImageProperties: Sendable {
    public var format: ImageFormat
    /// Stored size of the main image.
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var orientation: Orientation
    public var orientedWidth: Int { orientation.orientedSize(width: pixelWidth, height: pixelHeight).width }
    public var orientedHeight: Int { orientation.orientedSize(width: pixelWidth, height: pixelHeight).height }
    /// The EXIF IFD1 thumbnail, when it is a JPEG whose size could be read.
    public var exifThumbnail: EmbeddedImageInfo?
    /// MPF images other than the primary, when their size could be read.
    public var previews: [EmbeddedImageInfo]
    /// Why metadata could not be used, when it could not (the image itself may still be fine).
    public var metadataWarning: String?
    /// The embedded ICC profile or the colour space the tags imply.
    public var colour = SourceColour()
    /// The embedded ICC profile, parsed.
    public var iccProfile: ICCProfile? { colour.profile }
}

/// One input image, the counterpart of ImageIO's `CGImageSource`: created from a path or
/// from bytes, it reads headers lazily and makes thumbnails through the cheapest source.
///
/// A path is read on demand (`pread` through the decoders' 64 KiB windows), never whole.
/// An `ImageSource` is not thread-safe; make one per input and per thread.
public final class ImageSource {
    public let input: InputBytes
    public let format: ImageFormat
    private var cachedProperties: ImageProperties?

    /// Opens a file. Fails if it cannot be read or is not a JPEG, PNG or TIFF file.
    public convenience init(path: String) throws(PareError) {
        try self.init(input: try InputBytes(path: path))
    }

    /// Wraps bytes already in memory.
    public convenience init(bytes: [UInt8]) throws(PareError) {
        try self.init(input: InputBytes(bytes))
    }

    public init(input: InputBytes) throws(PareError) {
        self.input = input
        let prefix: [UInt8]
        do {
            prefix = try input.bytes(at: 0, count: min(8, input.count))
        } catch {
            throw .core(error)
        }
        guard let format = ImageFormat(sniffing: prefix) else { throw .unknownFormat }
        self.format = format
    }

    /// The headers' facts (size, orientation, embedded images). Read once, then cached.
    public func properties(options: ThumbnailOptions = ThumbnailOptions(maxPixelSize: 0)) throws(PareError) -> ImageProperties {
        if let cachedProperties { return cachedProperties }
        let ledger = MemoryLedger(limit: options.memoryLimit)
        let properties = try readProperties(options: options, ledger: ledger)
        cachedProperties = properties
        return properties
    }

    private func readProperties(options: ThumbnailOptions, ledger: MemoryLedger) throws(PareError) -> ImageProperties {
        switch format {
        case .jpeg:
            let decoder: JPEGDecoder<InputBytes>
            do {
                decoder = try JPEGDecoder(source: input, ledger: ledger, options: options.jpeg)
            } catch {
                throw .jpeg(error)
            }
            var properties = ImageProperties(format: .jpeg, pixelWidth: decoder.info.width,
                                             pixelHeight: decoder.info.height, orientation: .up,
                                             exifThumbnail: nil, previews: [])
            do {
                let metadata = try EXIFReader.readJPEG(input, options: options.exif)
                if let exif = metadata.exif {
                    properties.orientation = exif.orientation
                    if let thumbnail = exif.thumbnail, let width = thumbnail.width, let height = thumbnail.height,
                       width > 0, height > 0 {
                        properties.exifThumbnail = EmbeddedImageInfo(kind: .exifThumbnail, offset: thumbnail.offset,
                                                                     length: thumbnail.length, width: width, height: height)
                    }
                }
                properties.colour = SourceColour.jpeg(metadata, in: input, options: options.icc)
                for entry in metadata.mpf where entry.offset > 0 && entry.length > 0 {
                    guard let width = entry.width, let height = entry.height, width > 0, height > 0 else { continue }
                    properties.previews.append(EmbeddedImageInfo(kind: .mpfPreview(index: entry.index), offset: entry.offset,
                                                                 length: entry.length, width: width, height: height))
                }
            } catch {
                properties.metadataWarning = "\(error)"
            }
            return properties
        case .png:
            let decoder: PNGDecoder<InputBytes>
            do {
                decoder = try PNGDecoder(source: input, ledger: ledger, options: options.png)
            } catch {
                throw .png(error)
            }
            var properties = ImageProperties(format: .png, pixelWidth: decoder.header.width,
                                             pixelHeight: decoder.header.height, orientation: .up,
                                             exifThumbnail: nil, previews: [])
            var exif: EXIFMetadata?
            if let payload = decoder.metadata.exif {
                do {
                    exif = try EXIFReader.readTIFF(payload, baseOffset: decoder.metadata.exifOffset ?? 0,
                                                   options: options.exif)
                    properties.orientation = exif?.orientation ?? .up
                } catch {
                    properties.metadataWarning = "\(error)"
                }
            }
            properties.colour = SourceColour.png(decoder.metadata, exif: exif, png: options.png, icc: options.icc,
                                                 ledger: ledger)
            return properties
        case .tiff:
            let exif: EXIFMetadata
            do {
                exif = try EXIFReader.readTIFFFile(input, options: options.exif)
            } catch {
                throw .exif(error)
            }
            // The main image is the one IFD0 describes (TIFF 6.0 §3); Exif's size is a fallback.
            var properties = ImageProperties(format: .tiff, pixelWidth: exif.imageWidth ?? exif.pixelWidth ?? 0,
                                             pixelHeight: exif.imageHeight ?? exif.pixelHeight ?? 0, orientation: exif.orientation,
                                             exifThumbnail: nil, previews: [])
            properties.colour = SourceColour.tiff(exif, in: input, options: options.icc)
            if let thumbnail = exif.thumbnail, let width = thumbnail.width, let height = thumbnail.height,
               width > 0, height > 0 {
                properties.exifThumbnail = EmbeddedImageInfo(kind: .exifThumbnail, offset: thumbnail.offset,
                                                             length: thumbnail.length, width: width, height: height)
            }
            return properties
        }
    }
}
