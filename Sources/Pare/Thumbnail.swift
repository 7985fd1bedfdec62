import PareCore
import PareJPEG
import PareEXIF
import ParePNG
import Synchronization

/// A repair or a problem met while making a thumbnail.
public enum ThumbnailWarning: Sendable, Equatable {
    /// The JPEG decoder repaired damaged data the way libjpeg does (truncated data comes
    /// out gray, a bad code reads as 0…): the pixels near the place it names are guesses.
    case jpeg(JPEGWarning)
    /// Further JPEG repairs, counted but not kept (past `JPEGOptions.maxWarnings`).
    case moreJPEGRepairs(count: Int)
    /// The PNG's image data was damaged (cut off, a zlib data error, a bad IDAT CRC):
    /// the rows before the damage are the file's, the rest transparent, or black without
    /// alpha (`PNGWarning`, `PNGOptions.strict`).
    case png(PNGWarning)
    /// The metadata (EXIF, MPF, the marker walk that finds them) could not be read in
    /// full; the image is not affected, but the orientation or an embedded preview may be
    /// missing.
    case metadata(EXIFError)
    /// The colour profile could not be read, converted or carried; the pixels are the
    /// source's, as decoded.
    case colour(ColourWarning)
    /// `GainMapHandling.keep` was asked for and the gain map could not be carried.
    case gainMap(GainMapWarning)

    /// True when the thumbnail's pixels were affected: the input was damaged and repaired.
    public var isDamage: Bool {
        switch self {
        case .jpeg, .moreJPEGRepairs, .png: return true
        case .metadata, .colour, .gainMap: return false
        }
    }
}

extension ThumbnailWarning: CustomStringConvertible {
    /// One line, like the errors': "JPEG: data of scan 1 ends early… at byte N".
    public var description: String {
        switch self {
        case let .jpeg(warning): return "\(warning)"
        case let .moreJPEGRepairs(count): return "JPEG: \(count) more repairs not listed"
        case let .png(warning): return "\(warning)"
        case let .metadata(error): return "metadata: \(error)"
        case let .colour(what): return "colour: \(what)"
        case let .gainMap(what): return "gain map: \(what)"
        }
    }
}

/// A finished thumbnail and how it was made. A value: it owns its pixels and can be sent
/// to other tasks and actors.
public struct Thumbnail: Sendable {
    /// Upright (unless orientation was turned off), 8 bits per sample, in the source's
    /// channels: gray8, grayAlpha8, rgb8 or rgba8. The resampler writes 8-bit rows only, so
    /// a 16-bit source gives an 8-bit thumbnail; gray+alpha stays gray+alpha (PNG colour
    /// type 4 in, type 4 out).
    public var image: Image
    /// Which picture in the file the pixels came from.
    public var source: ThumbnailSource
    /// Why that source was chosen, in words.
    public var reason: String
    /// The orientation that was applied (`.up` when none was, or it was turned off).
    public var appliedOrientation: Orientation
    /// The most bytes the job's `MemoryLedger` held at once.
    public var ledgerPeakBytes: Int
    /// How many buffers the job's ledger counted.
    public var allocations: Int
    /// Recoverable problems met on the way: repairs of damaged data, unreadable metadata,
    /// colour that could not be converted or carried.
    public var warnings: [ThumbnailWarning]
    /// What the output file should declare about colour (see `ThumbnailOptions.colour`).
    public var colour: OutputColour = .untagged
    /// The gain map that goes with the picture, with `ThumbnailOptions.gainMap = .keep` and a
    /// source that has one.
    public var gainMap: GainMapThumbnail?

    /// True when the input was damaged and the decoder repaired it, so that some pixels are
    /// guesses (gray where a JPEG's data was missing, transparent or black where a PNG's was). Set `ThumbnailOptions.strict` to get an error
    /// instead.
    public var isDamaged: Bool { warnings.contains { $0.isDamage } }
}

/// How many thumbnail decodes run in this process now: the default `decodeWorkers` shares
/// the cores among them.
private let runningDecodes = Atomic<Int>(0)

extension ImageSource {
    /// Makes a thumbnail: chooses the cheapest source, decodes it row by row (at a reduced
    /// DCT scale where possible) into the streaming resampler, then turns the small result
    /// upright. Only the output and a few rows of the input are ever held.
    ///
    /// Runs on the calling thread (plus restart-band or PNG inflation helper threads, see
    /// `ThumbnailOptions.decodeWorkers`). Counts into a ledger of its own, limited to
    /// `options.memoryLimit`.
    public func thumbnail(options: ThumbnailOptions) throws(PareError) -> Thumbnail {
        try thumbnail(options: options, ledger: MemoryLedger(limit: options.memoryLimit), cancellation: CancellationCheck())
    }

    /// The same, as a task: the decode runs on the calling task, and cancelling the task
    /// stops it within one MCU row (JPEG) or scanline (PNG) with `PareError.cancelled`,
    /// every buffer given back.
    public func thumbnail(options: ThumbnailOptions) async throws(PareError) -> Thumbnail {
        try thumbnail(options: options, ledger: MemoryLedger(limit: options.memoryLimit),
                      cancellation: CancellationCheck { Task.isCancelled })
    }

    /// As a task, counting into a ledger the caller supplies (to watch it, or to give the
    /// job a limit of the caller's choosing). `options.memoryLimit` is then ignored in
    /// favour of the ledger's own limit. The ledger is back where it was when this returns
    /// or throws: the thumbnail's image is the caller's, no longer counted.
    public func thumbnail(options: ThumbnailOptions, ledger: MemoryLedger) async throws(PareError) -> Thumbnail {
        try thumbnail(options: options, ledger: ledger, cancellation: CancellationCheck { Task.isCancelled })
    }

    /// The synchronous form with every choice: a caller-supplied ledger (see the async
    /// form) and a `CancellationCheck` the decoders ask once per MCU row or scanline.
    public func thumbnail(options: ThumbnailOptions, ledger: MemoryLedger,
                          cancellation: CancellationCheck = CancellationCheck()) throws(PareError) -> Thumbnail {
        guard options.maxPixelSize > 0 else { throw .invalidArgument("maxPixelSize must be at least 1") }
        if let workers = options.decodeWorkers, workers < 1 {
            throw .invalidArgument("decodeWorkers must be at least 1")
        }
        if cancellation.isCancelled { throw .cancelled }
        let properties = try self.properties(options: options, ledger: ledger)
        let plan = SourceChooser.plan(properties: properties, fileSize: input.count, options: options)
        var warnings = properties.metadataWarnings.map(ThumbnailWarning.metadata)
        warnings += properties.colour.warnings.map(ThumbnailWarning.colour)

        // The output keeps the chosen source's aspect ratio; its long side is the target.
        let long = max(plan.width, plan.height)
        guard long > 0 else { throw .unsupported("image has no pixels") }
        let outLong = min(options.maxPixelSize, long)
        let outWidth = max(1, (plan.width * outLong + long / 2) / long)
        let outHeight = max(1, (plan.height * outLong + long / 2) / long)

        // Colour is converted on the decoded rows, before the resampler (ColourStage).
        let colourStage = ColourStage(options.colour, source: properties.colour, cmykProfile: options.cmykProfile)
        var options = options
        options.jpeg.cmykSamples = colourStage.wantsCMYKSamples
        var sink = colourStage.sink(ledger: ledger, into: Resampler(
            outputWidth: outWidth, outputHeight: outHeight, filter: options.filter, ledger: ledger,
            downstream: ImageBuilder(ledger: ledger)))
        if format == .tiff && plan.embedded == nil {
            throw .unsupported("TIFF image data (only an embedded JPEG thumbnail can be used)")
        }
        let running = runningDecodes.add(1, ordering: .relaxed).newValue
        defer { runningDecodes.subtract(1, ordering: .relaxed) }
        let workers = options.decodeWorkers ?? max(1, ParallelJPEGDecoder.activeCores / max(1, running))
        switch format {
        case .jpeg, .tiff:
            if let embedded = plan.embedded {
                let slice: ByteSourceSlice<InputBytes>
                do {
                    slice = try ByteSourceSlice(input, offset: embedded.offset, count: embedded.length)
                } catch {
                    throw PareError(error)
                }
                warnings += try Self.decodeJPEG(slice, scale: plan.scale, options: options, workers: workers,
                                                ledger: ledger, cancellation: cancellation, into: &sink)
            } else {
                warnings += try Self.decodeJPEG(input, scale: plan.scale, options: options, workers: workers,
                                                ledger: ledger, cancellation: cancellation, into: &sink)
            }
        case .png:
            // 16-bit PNGs go to the resampler as they are (it filters at full precision and
            // writes 8-bit rows), or as 8-bit sRGB rows when they are converted.
            do {
                var decoder = try PNGDecoder(source: input, ledger: ledger, options: options.png)
                try ParallelPNGDecoder.decode(&decoder, ledger: ledger, workers: workers, cancellation: cancellation,
                                              into: &sink)
                warnings += decoder.warnings.map(ThumbnailWarning.png)
            } catch {
                throw PareError(error)
            }
        }
        sink.downstream.finish()
        guard var image = sink.downstream.downstream.image else { throw .unsupported("decoder produced no rows") }

        // With `.keep`, the gain map follows the picture through its own decode and resampler.
        var gainMap: GainMapThumbnail?
        if options.gainMap == .keep {
            if let info = properties.gainMap, info.metadata != nil {
                do {
                    gainMap = try gainMapThumbnail(info, pictureWidth: outWidth, pictureHeight: outHeight,
                                                   mainWidth: properties.pixelWidth, mainHeight: properties.pixelHeight,
                                                   orientation: options.applyOrientation ? properties.orientation : .up,
                                                   options: options, workers: workers, ledger: ledger,
                                                   cancellation: cancellation)
                } catch {
                    if error == .cancelled { throw error }
                    warnings.append(.gainMap(.unreadable(error)))
                }
            } else if let info = properties.gainMap {
                warnings.append(.gainMap(.valuesUnknown(info.standard)))
            } else {
                warnings.append(.gainMap(.absent))
            }
        }
        // The resampled image stays counted (the builder holds it) while the steps below make
        // their own; the job's count falls back to zero when the builder goes, on return.
        do {
            let colour = colourStage.outputColour(decoded: image.format, output: image.format,
                                                  convertedCMYK: sink.convertedCMYK, warnings: &warnings)
            let orientation = options.applyOrientation ? properties.orientation : .up
            if orientation != .up { image = try orientation.apply(to: image, ledger: ledger) }
            return Thumbnail(image: image, source: plan.source, reason: plan.reason,
                             appliedOrientation: orientation, ledgerPeakBytes: ledger.peakBytes,
                             allocations: ledger.allocationCount, warnings: warnings, colour: colour,
                             gainMap: gainMap)
        } catch {
            throw PareError(error)
        }
    }

    static func decodeJPEG<S: ByteSource & SendableMetatype, Sink: RowSink>(
        _ source: S, scale: JPEGScale, options: ThumbnailOptions, workers: Int, ledger: MemoryLedger,
        cancellation: CancellationCheck, into sink: inout Sink
    ) throws(PareError) -> [ThumbnailWarning] {
        do {
            let outcome = try ParallelJPEGDecoder.decode(source: source, scale: scale, options: options.jpeg, ledger: ledger,
                                                         workers: workers, cancellation: cancellation, into: &sink)
            var warnings = outcome.warnings.map(ThumbnailWarning.jpeg)
            if outcome.droppedWarnings > 0 { warnings.append(.moreJPEGRepairs(count: outcome.droppedWarnings)) }
            return warnings
        } catch {
            throw PareError(error)
        }
    }
}
