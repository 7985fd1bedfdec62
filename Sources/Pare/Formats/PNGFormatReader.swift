import PareCore
import PareJPEG
import PareEXIF
import ParePNG

/// PNG (PNG 3rd edition), with its eXIf orientation and colour chunks.
enum PNGFormatReader: FormatReader {
    static let format = ImageFormat.png

    /// The `89 'PNG'` that opens the signature; the decoder checks the other four bytes,
    /// which catch line-ending damage (PNG 3rd ed. §5.2).
    static func matches(_ prefix: [UInt8]) -> Bool {
        prefix.starts(with: [0x89, 0x50, 0x4E, 0x47])
    }

    static func properties(of input: InputBytes, options: ThumbnailOptions,
                           ledger: MemoryLedger) throws(PareError) -> ImageProperties {
        let decoder: PNGDecoder<InputBytes> = try openDecoder(input, ledger: ledger, options: options.png,
                                                             error: PareError.init)
        var properties = ImageProperties(format: .png, pixelWidth: decoder.header.width,
                                         pixelHeight: decoder.header.height, bitDepth: decoder.header.bitDepth,
                                         isProgressive: decoder.header.interlaced)
        properties.hasAlpha = decoder.header.colorType == 4 || decoder.header.colorType == 6
            || decoder.metadata.hasTransparency
        switch decoder.header.colorType {
        case 0, 4: properties.colorModel = .gray
        case 2, 6: properties.colorModel = .rgb
        case 3: properties.colorModel = .palette
        default: properties.colorModel = .unknown
        }
        let exif = decoder.metadata.exif.flatMap {
            properties.describeEXIF($0, baseOffset: decoder.metadata.exifOffset ?? 0, options: options.exif)
        }
        properties.colour = SourceColour.png(decoder.metadata, exif: exif, png: options.png, icc: options.icc,
                                             ledger: ledger)
        return properties
    }

    /// Inflation on a helper thread when `job.workers` allows (`ParallelPNGDecoder`). 16-bit
    /// rows go to the sink as they are (the resampler filters them at full precision).
    static func decodeMainImage<Sink: RowSink>(_ input: InputBytes, scale: JPEGScale, job: DecodeJob,
                                               into sink: inout Sink) throws(PareError) -> [ThumbnailWarning] {
        do throws(PNGError) {
            var decoder = try PNGDecoder(source: input, ledger: job.ledger, options: job.options.png)
            if decoder.header.interlaced && job.sequentialRows {
                // Adam7's passes revisit every row: collect them, then stream the rows out.
                var builder = ImageBuilder(ledger: job.ledger)
                decoder.cancellation = job.cancellation
                try decoder.decode(into: &builder)
                guard let image = builder.image else { throw PNGError.core(.sizeOverflow) }
                do {
                    try image.send(to: &sink)
                } catch {
                    throw PNGError.core(error)
                }
            } else {
                try ParallelPNGDecoder.decode(&decoder, ledger: job.ledger, workers: job.workers,
                                              cancellation: job.cancellation, into: &sink)
            }
            return decoder.warnings.map(ThumbnailWarning.png)
        } catch {
            throw PareError(error)
        }
    }
}
