import PareCore
import PareJPEG
import PareEXIF
@_spi(Pipeline) import PareWebP

/// WebP (RIFF `WEBP`): lossy VP8, lossless VP8L, alpha, an animation's first frame; the
/// orientation from its EXIF chunk, the colour from its ICCP chunk.
enum WebPFormatReader: FormatReader {
    static let format = ImageFormat.webp

    /// `RIFF`, a size, `WEBP` (RIFF container of the WebP specification).
    static func matches(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 12 && prefix.starts(with: Array("RIFF".utf8)) && Array(prefix[8 ..< 12]) == Array("WEBP".utf8)
    }

    static func properties(of input: InputBytes, options: ThumbnailOptions,
                           ledger: MemoryLedger) throws(PareError) -> ImageProperties {
        let decoder: WebPDecoder<InputBytes> = try openDecoder(input, ledger: ledger, options: options.webp,
                                                              error: PareError.init)
        let info = decoder.info
        var properties = ImageProperties(format: .webp, pixelWidth: info.width, pixelHeight: info.height, bitDepth: 8,
                                         hasAlpha: info.hasAlpha, colorModel: info.isLossless ? .rgb : .yCbCr,
                                         frameCount: info.frameCount, loopCount: info.isAnimated ? info.loopCount : nil)
        let exif = exifBlock(of: info).flatMap {
            properties.describeEXIF($0.payload, baseOffset: $0.offset, options: options.exif)
        }
        properties.colour = SourceColour.embedded(info.iccProfile, exif: exif, options: options.icc)
        // A lossy still picture without alpha decodes at half size.
        properties.reducedScales = decoder.decodesAtHalfScale ? [.half] : []
        return properties
    }

    /// The TIFF block of the EXIF chunk and the file offset of its header: some writers keep
    /// JPEG's "Exif\0\0" before it, which is skipped.
    static func exifBlock(of info: WebPInfo) -> (payload: [UInt8], offset: Int)? {
        guard let payload = info.exif,
              let chunk = info.chunks.first(where: { $0.fourCCBytes == Array("EXIF".utf8) }) else { return nil }
        let skip = payload.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) ? 6 : 0
        return (Array(payload.dropFirst(skip)), chunk.payloadOffset + skip)
    }

    static func decodeMainImage<Sink: RowSink>(_ input: InputBytes, scale: JPEGScale, job: DecodeJob,
                                               into sink: inout Sink) throws(PareError) -> [ThumbnailWarning] {
        // With a second core, a lossy frame's reconstruction runs beside its loop filter and
        // colour conversion (four macroblock rows in the ring keep either from waiting long),
        // a lossless frame's pixel decoding beside the undoing of its transforms.
        try decodeMain(input, options: job.options.webp, job: job, error: PareError.init, warning: ThumbnailWarning.webp) {
            (decoder: inout WebPDecoder<InputBytes>) throws(WebPError) in
            let half = scale == .half
            if job.workers > 1 {
                try decoder.decodePipelined(handoff: DecodePipelineThreads(slots: 4), halfScale: half, into: &sink)
            } else {
                try decoder.decode(halfScale: half, into: &sink)
            }
        }
    }
}
