import PareCore
import PareJPEG
import PareEXIF
import PareWebP

/// WebP (RIFF `WEBP`): lossy VP8, lossless VP8L, alpha, an animation's first frame; the
/// orientation from its EXIF chunk, the colour from its ICCP chunk.
enum WebPFormatReader: FormatReader {
    static let format = ImageFormat.webp
    static let hasReducedScales = false

    /// `RIFF`, a size, `WEBP` (RIFF container of the WebP specification).
    static func matches(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 12 && prefix.starts(with: Array("RIFF".utf8)) && Array(prefix[8 ..< 12]) == Array("WEBP".utf8)
    }

    static func properties(of input: InputBytes, options: ThumbnailOptions,
                           ledger: MemoryLedger) throws(PareError) -> ImageProperties {
        let decoder: WebPDecoder<InputBytes>
        do {
            decoder = try WebPDecoder(source: input, ledger: ledger, options: options.webp)
        } catch {
            throw PareError(error)
        }
        let info = decoder.info
        var properties = ImageProperties(format: .webp, pixelWidth: info.width, pixelHeight: info.height,
                                         orientation: .up, exifThumbnail: nil, previews: [])
        properties.bitDepth = 8
        properties.hasAlpha = info.hasAlpha
        properties.colorModel = info.isLossless ? .rgb : .yCbCr
        properties.frameCount = info.frameCount
        properties.loopCount = info.isAnimated ? info.loopCount : nil
        var exif: EXIFMetadata?
        if let block = exifBlock(of: info) {
            do {
                let read = try EXIFReader.readTIFF(block.payload, baseOffset: block.offset, options: options.exif)
                properties.describe(read)
                properties.metadataWarnings = read.warnings
                exif = read
            } catch {
                properties.metadataWarnings.append(error)
            }
        }
        properties.colour = SourceColour.embedded(info.iccProfile, exif: exif, options: options.icc)
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
        do {
            var decoder = try WebPDecoder(source: input, ledger: job.ledger, options: job.options.webp)
            decoder.cancellation = job.cancellation
            try decoder.decode(into: &sink)
            return decoder.warnings.map(ThumbnailWarning.webp)
        } catch {
            throw PareError(error)
        }
    }
}
