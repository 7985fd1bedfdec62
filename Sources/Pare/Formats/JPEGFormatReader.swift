import PareCore
import PareJPEG
import PareEXIF

/// JPEG (T.81): JFIF, Exif and Adobe files, with their EXIF thumbnail and MPF previews.
enum JPEGFormatReader: FormatReader {
    static let format = ImageFormat.jpeg

    /// SOI, `FF D8` (T.81 B.1.1.2); the decoder, like libjpeg, finds the next marker itself.
    static func matches(_ prefix: [UInt8]) -> Bool {
        prefix.starts(with: [0xFF, 0xD8])
    }

    static func properties(of input: InputBytes, options: ThumbnailOptions,
                           ledger: MemoryLedger) throws(PareError) -> ImageProperties {
        let decoder: JPEGDecoder<InputBytes>
        do {
            decoder = try JPEGDecoder(source: input, ledger: ledger, options: options.jpeg)
        } catch {
            throw PareError(error)
        }
        var properties = ImageProperties(format: .jpeg, pixelWidth: decoder.info.width,
                                         pixelHeight: decoder.info.height, bitDepth: decoder.info.precision,
                                         isProgressive: decoder.info.process == .progressive,
                                         colorModel: ColorModel(decoder.info.colorSpace))
        properties.reducedScales = [.eighth, .quarter, .half]
        do {
            let metadata = try EXIFReader.readJPEG(input, options: options.exif)
            properties.metadataWarnings = metadata.warnings + (metadata.exif?.warnings ?? [])
            if let exif = metadata.exif {
                properties.describe(exif)
                properties.exifThumbnail = EmbeddedImageInfo(exifThumbnailOf: exif)
            }
            properties.colour = SourceColour.jpeg(metadata, in: input, options: options.icc)
            properties.mpfImages = metadata.mpf
            properties.gainMap = metadata.gainMap
            for entry in metadata.mpf where entry.offset > 0 && entry.length > 0 && entry.kind.isLargeThumbnail {
                guard entry.index != metadata.gainMap?.mpfIndex else { continue }
                guard let width = entry.width, let height = entry.height, width > 0, height > 0 else { continue }
                properties.previews.append(EmbeddedImageInfo(kind: .mpfPreview(index: entry.index), offset: entry.offset,
                                                             length: entry.length, width: width, height: height))
            }
        } catch {
            properties.metadataWarnings.append(error)
        }
        return properties
    }

    /// Restart bands on `job.workers` threads where the file has restart markers
    /// (`ParallelJPEGDecoder`), else the serial decode.
    static func decodeMainImage<Sink: RowSink>(_ input: InputBytes, scale: JPEGScale, job: DecodeJob,
                                               into sink: inout Sink) throws(PareError) -> [ThumbnailWarning] {
        try decodeJPEG(input, scale: scale, job: job, dataEnd: job.dataEnd, into: &sink)
    }

    /// Decodes a JPEG, the main image or one embedded in another file (a slice of it).
    static func decodeJPEG<S: ByteSource & SendableMetatype, Sink: RowSink>(
        _ source: S, scale: JPEGScale, job: DecodeJob, dataEnd: Int? = nil, into sink: inout Sink
    ) throws(PareError) -> [ThumbnailWarning] {
        do {
            let outcome = try ParallelJPEGDecoder.decode(source: source, scale: scale, options: job.options.jpeg,
                                                         ledger: job.ledger, workers: job.workers,
                                                         cancellation: job.cancellation, dataEnd: dataEnd, into: &sink)
            var warnings = outcome.warnings.map(ThumbnailWarning.jpeg)
            if outcome.droppedWarnings > 0 { warnings.append(.moreJPEGRepairs(count: outcome.droppedWarnings)) }
            return warnings
        } catch {
            throw PareError(error)
        }
    }
}

extension EmbeddedImageInfo {
    /// The EXIF IFD1 thumbnail, when it is a JPEG whose size could be read. Uncompressed
    /// IFD1 strips (Exif 2.32 §4.5.8; in a plain TIFF, the second page) are listed by
    /// `inspect` but are not a source: embedded sources are decoded as JPEG.
    init?(exifThumbnailOf exif: EXIFMetadata) {
        guard let thumbnail = exif.thumbnail, thumbnail.encoding == .jpeg, let width = thumbnail.width,
              let height = thumbnail.height, width > 0, height > 0 else { return nil }
        self.init(kind: .exifThumbnail, offset: thumbnail.offset, length: thumbnail.length, width: width, height: height)
    }
}

extension ColorModel {
    /// The JPEG decoder's reading of the components and the Adobe marker.
    init(_ space: JPEGColorSpace) {
        switch space {
        case .gray: self = .gray
        case .yCbCr: self = .yCbCr
        case .rgb: self = .rgb
        case .cmyk: self = .cmyk
        case .ycck: self = .ycck
        }
    }
}
