import PareCore
import PareJPEG
import PareGIF

/// GIF (87a, 89a): the first frame on its logical screen. A thumbnail reads the blocks up to
/// the first frame only, so that a long animation costs what its first frame costs.
enum GIFFormatReader: FormatReader {
    static let format = ImageFormat.gif

    /// `GIF87a` or `GIF89a` (GIF89a §17, the Header).
    static func matches(_ prefix: [UInt8]) -> Bool {
        prefix.starts(with: Array("GIF87a".utf8)) || prefix.starts(with: Array("GIF89a".utf8))
    }

    static func properties(of input: InputBytes, options: ThumbnailOptions,
                           ledger: MemoryLedger) throws(PareError) -> ImageProperties {
        let decoder: GIFDecoder<InputBytes> = try openDecoder(input, ledger: ledger, options: options.gif,
                                                             error: PareError.init)
        let info = decoder.info
        return ImageProperties(format: .gif, pixelWidth: decoder.width, pixelHeight: decoder.height, bitDepth: 8,
                               hasAlpha: info.hasTransparency, colorModel: .palette,
                               frameCount: info.framesCounted ? info.frameCount : nil, loopCount: info.loopCount)
    }

    static func decodeMainImage<Sink: RowSink>(_ input: InputBytes, scale: JPEGScale, job: DecodeJob,
                                               into sink: inout Sink) throws(PareError) -> [ThumbnailWarning] {
        try decodeMain(with: GIFDecoder<InputBytes>.self, input, options: job.options.gif, job: job, into: &sink,
                       error: PareError.init, warning: ThumbnailWarning.gif)
    }
}
