import PareCore
import PareJPEG
import PareEXIF

/// TIFF (TIFF 6.0; BigTIFF): its tags, and its embedded JPEG thumbnail as a source.
enum TIFFFormatReader: FormatReader {
    static let format = ImageFormat.tiff
    static let hasReducedScales = false

    /// A header's byte order and version, 42 or BigTIFF's 43 (TIFF 6.0 §2).
    static func matches(_ prefix: [UInt8]) -> Bool {
        prefix.starts(with: [0x49, 0x49, 0x2A, 0x00]) || prefix.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            || prefix.starts(with: [0x49, 0x49, 0x2B, 0x00]) || prefix.starts(with: [0x4D, 0x4D, 0x00, 0x2B])
    }

    static func properties(of input: InputBytes, options: ThumbnailOptions,
                           ledger: MemoryLedger) throws(PareError) -> ImageProperties {
        let exif: EXIFMetadata
        do {
            exif = try EXIFReader.readTIFFFile(input, options: options.exif)
        } catch {
            throw PareError(error)
        }
        // The main image is the one IFD0 describes (TIFF 6.0 §3); Exif's size is a fallback.
        // TIFF 6.0 §8 stores a size as SHORT or LONG, BigTIFF also as LONG8: a size outside
        // 1 … 2^31 − 1 (PNG's bound, the largest any format here describes) counts as
        // unknown, so that the source choice's arithmetic on it cannot overflow.
        func dimension(_ value: Int?) -> Int? {
            value.flatMap { (1 ... Int(Int32.max)).contains($0) ? $0 : nil }
        }
        var properties = ImageProperties(format: .tiff,
                                         pixelWidth: dimension(exif.imageWidth) ?? dimension(exif.pixelWidth) ?? 0,
                                         pixelHeight: dimension(exif.imageHeight) ?? dimension(exif.pixelHeight) ?? 0,
                                         orientation: exif.orientation, exifThumbnail: nil, previews: [])
        properties.describe(exif)
        properties.metadataWarnings = exif.warnings
        properties.colour = SourceColour.tiff(exif, in: input, options: options.icc)
        let ifd0 = exif.ifds.first { $0.name == "IFD0" }
        properties.bitDepth = ifd0?.entry(0x0102)?.integer().flatMap { Int(exactly: $0) }
        properties.hasAlpha = ifd0?.entry(0x0152) != nil
        switch ifd0?.entry(0x0106)?.integer() {
        case 0, 1: properties.colorModel = .gray
        case 2: properties.colorModel = .rgb
        case 3: properties.colorModel = .palette
        case 5: properties.colorModel = .cmyk
        case 6: properties.colorModel = .yCbCr
        default: properties.colorModel = .unknown
        }
        properties.exifThumbnail = EmbeddedImageInfo(exifThumbnailOf: exif)
        return properties
    }

    static func decodeMainImage<Sink: RowSink>(_ input: InputBytes, scale: JPEGScale, job: DecodeJob,
                                               into sink: inout Sink) throws(PareError) -> [ThumbnailWarning] {
        throw .unsupported("TIFF image data (only an embedded JPEG thumbnail can be used)")
    }
}
