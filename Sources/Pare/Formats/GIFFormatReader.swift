import PareCore
import PareJPEG
import PareGIF

/// GIF (87a, 89a): the first frame on its logical screen. A thumbnail reads the blocks up to
/// the first frame only, so that a long animation costs what its first frame costs.
enum GIFFormatReader: FormatReader {
    static let format = ImageFormat.gif
    static let hasReducedScales = false

    /// `GIF87a` or `GIF89a` (GIF89a §17, the Header).
    static func matches(_ prefix: [UInt8]) -> Bool {
        prefix.starts(with: Array("GIF87a".utf8)) || prefix.starts(with: Array("GIF89a".utf8))
    }

    static func properties(of input: InputBytes, options: ThumbnailOptions,
                           ledger: MemoryLedger) throws(PareError) -> ImageProperties {
        let decoder: GIFDecoder<InputBytes>
        do {
            decoder = try GIFDecoder(source: input, ledger: ledger, options: options.gif)
        } catch {
            throw PareError(error)
        }
        let info = decoder.info
        var properties = ImageProperties(format: .gif, pixelWidth: decoder.width, pixelHeight: decoder.height,
                                         orientation: .up, exifThumbnail: nil, previews: [])
        properties.bitDepth = 8
        properties.hasAlpha = info.hasTransparency
        properties.colorModel = .palette
        properties.frameCount = info.framesCounted ? info.frameCount : nil
        properties.loopCount = info.loopCount
        return properties
    }

    static func decodeMainImage<Sink: RowSink>(_ input: InputBytes, scale: JPEGScale, job: DecodeJob,
                                               into sink: inout Sink) throws(PareError) -> [ThumbnailWarning] {
        do {
            var decoder = try GIFDecoder(source: input, ledger: job.ledger, options: job.options.gif)
            decoder.cancellation = job.cancellation
            try decoder.decode(into: &sink)
            return decoder.warnings.map(ThumbnailWarning.gif)
        } catch {
            throw PareError(error)
        }
    }
}
