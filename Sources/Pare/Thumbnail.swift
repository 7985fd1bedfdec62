import PareCore
import PareJPEG
import PareEXIF
import ParePNG

/// A finished thumbnail and how it was made.
public struct Thumbnail {
    /// Upright (unless orientation was turned off), gray8, rgb8 or rgba8.
    public var image: Image
    public var source: ThumbnailSource
    /// Why that source was chosen, in words.
    public var reason: String
    /// The orientation that was applied (`.up` when none was, or it was turned off).
    public var appliedOrientation: Orientation
    /// The job's `MemoryLedger` figures: the most bytes held at once, and how many buffers.
    public var ledgerPeakBytes: Int
    public var allocations: Int
    /// Recoverable problems met on the way (damaged data, unreadable metadata).
    public var warnings: [String]
    /// What the output file should declare about colour (see `ThumbnailOptions.colour`).
    public var colour: OutputColour = .untagged
}

extension ImageSource {
    /// Makes a thumbnail: chooses the cheapest source, decodes it row by row (at a reduced
    /// DCT scale where possible) into the streaming resampler, then turns the small result
    /// upright. Only the output and a few rows of the input are ever held.
    public func thumbnail(options: ThumbnailOptions) throws(PareError) -> Thumbnail {
        try thumbnail(options: options, ledger: MemoryLedger(limit: options.memoryLimit))
    }

    /// The same, counting into a ledger the caller supplies (to watch it, or to share one
    /// limit between several jobs run one after another). `options.memoryLimit` is then
    /// ignored in favour of the ledger's own limit.
    public func thumbnail(options: ThumbnailOptions, ledger: MemoryLedger) throws(PareError) -> Thumbnail {
        guard options.maxPixelSize > 0 else { throw .unsupported("maxPixelSize must be at least 1") }
        let properties = try self.properties(options: options)
        let plan = SourceChooser.plan(properties: properties, fileSize: input.count, options: options)
        var warnings: [String] = []
        if let warning = properties.metadataWarning { warnings.append("metadata: \(warning)") }
        warnings += properties.colour.warnings.map { "colour: \($0)" }

        // The output keeps the chosen source's aspect ratio; its long side is the target.
        let long = max(plan.width, plan.height)
        guard long > 0 else { throw .unsupported("image has no pixels") }
        let outLong = min(options.maxPixelSize, long)
        let outWidth = max(1, (plan.width * outLong + long / 2) / long)
        let outHeight = max(1, (plan.height * outLong + long / 2) / long)

        let builder = ImageBuilder(ledger: ledger)
        let resampler = Resampler(outputWidth: outWidth, outputHeight: outHeight, filter: options.filter,
                                  ledger: ledger, downstream: builder)
        var image: Image
        switch format {
        case .jpeg, .tiff:
            if format == .tiff && plan.embedded == nil {
                throw .unsupported("TIFF image data (only an embedded JPEG thumbnail can be used)")
            }
            var sink = resampler
            if let embedded = plan.embedded {
                let slice: ByteSourceSlice<InputBytes>
                do {
                    slice = try ByteSourceSlice(input, offset: embedded.offset, count: embedded.length)
                } catch {
                    throw .core(error)
                }
                warnings += try Self.decodeJPEG(slice, scale: plan.scale, options: options, ledger: ledger, into: &sink)
            } else {
                warnings += try Self.decodeJPEG(input, scale: plan.scale, options: options, ledger: ledger, into: &sink)
            }
            sink.finish()
            guard let built = sink.downstream.image else { throw .unsupported("decoder produced no rows") }
            image = built
        case .png:
            // 16-bit PNGs go to the resampler as they are: it filters at full precision and
            // writes 8-bit rows.
            var sink = resampler
            do {
                var decoder = try PNGDecoder(source: input, ledger: ledger, options: options.png)
                try decoder.decode(into: &sink)
            } catch {
                throw .png(error)
            }
            sink.finish()
            guard let built = sink.downstream.image else { throw .unsupported("decoder produced no rows") }
            image = built
        }

        do {
            if image.format == .grayAlpha8 { image = try Self.expandGrayAlpha(image, ledger: ledger) }
            let colour = ThumbnailColour.apply(options.colour, source: properties.colour, to: image, warnings: &warnings)
            let orientation = options.applyOrientation ? properties.orientation : .up
            if orientation != .up { image = try orientation.apply(to: image, ledger: ledger) }
            return Thumbnail(image: image, source: plan.source, reason: plan.reason, appliedOrientation: orientation,
                             ledgerPeakBytes: ledger.peakBytes, allocations: ledger.allocationCount, warnings: warnings,
                             colour: colour)
        } catch {
            throw .core(error)
        }
    }

    private static func decodeJPEG<S: ByteSource & SendableMetatype, Sink: RowSink>(
        _ source: S, scale: JPEGScale, options: ThumbnailOptions, ledger: MemoryLedger, into sink: inout Sink
    ) throws(PareError) -> [String] {
        do {
            let outcome = try ParallelJPEGDecoder.decode(source: source, scale: scale, options: options.jpeg, ledger: ledger,
                                                         workers: options.decodeWorkers, into: &sink)
            return outcome.warnings.map { "\($0)" }
        } catch {
            throw .jpeg(error)
        }
    }

    /// gray+alpha becomes RGBA: thumbnails come out as gray8, rgb8 or rgba8 only.
    private static func expandGrayAlpha(_ image: Image, ledger: MemoryLedger) throws(CoreError) -> Image {
        let result = try Image(width: image.width, height: image.height, format: .rgba8, ledger: ledger)
        for y in 0 ..< image.height {
            let from = image.row(y), to = result.row(y)
            for x in 0 ..< image.width {
                let gray = from[2 * x], alpha = from[2 * x + 1]
                to[4 * x] = gray
                to[4 * x + 1] = gray
                to[4 * x + 2] = gray
                to[4 * x + 3] = alpha
            }
        }
        return result
    }
}
