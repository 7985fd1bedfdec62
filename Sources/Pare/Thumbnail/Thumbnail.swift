import PareCore
import PareJPEG
import PareEXIF
import ParePNG
import PareWebP
import PareGIF
import PareTIFF
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
    /// The WebP's image data was cut off or its alpha damaged: the rows before it are the
    /// file's (`WebPWarning`, `WebPOptions.strict`).
    case webp(WebPWarning)
    /// The GIF's first frame was cut off or its LZW data damaged: the rows before it are
    /// the file's, the rest the canvas's fill (`GIFOptions.strict`).
    case gif(GIFError)
    /// The TIFF's image data was cut off or refused by its decompressor: the rows before
    /// it are the file's (`TIFFOptions.strict`).
    case tiff(TIFFError)
    /// The metadata (EXIF, MPF, the marker walk that finds them) could not be read in
    /// full; the image is not affected, but the orientation or an embedded preview may be
    /// missing.
    case metadata(EXIFError)
    /// The colour profile could not be read, converted or carried; the pixels are the
    /// source's, as decoded.
    case colour(ColourWarning)
    /// `GainMapHandling.keep` was asked for and the gain map could not be carried.
    case gainMap(GainMapWarning)
    /// A camera RAW file's largest JPEG preview is smaller than the size asked for; it
    /// serves (the sensor data is never decoded), and the thumbnail is that size.
    case rawPreviewSmallerThanAsked(width: Int, height: Int, asked: Int)

    /// True when the thumbnail's pixels were affected: the input was damaged and repaired.
    public var isDamage: Bool {
        switch self {
        case .jpeg, .moreJPEGRepairs, .png, .webp, .gif, .tiff: return true
        case .metadata, .colour, .gainMap, .rawPreviewSmallerThanAsked: return false
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
        case let .webp(warning): return "\(warning)"
        case let .gif(warning): return "\(warning)"
        case let .tiff(warning): return "\(warning)"
        case let .metadata(error): return "metadata: \(error)"
        case let .colour(what): return "colour: \(what)"
        case let .gainMap(what): return "gain map: \(what)"
        case let .rawPreviewSmallerThanAsked(width, height, asked):
            return "RAW: the largest JPEG preview is \(width)×\(height), smaller than the \(asked) px asked for"
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
        guard options.maxPixelSize > 0 || options.box != nil else {
            throw .invalidArgument("maxPixelSize must be at least 1")
        }
        if let workers = options.decodeWorkers, workers < 1 {
            throw .invalidArgument("decodeWorkers must be at least 1")
        }
        if cancellation.isCancelled { throw .cancelled }
        if let box = options.box, box.width.map({ $0 < 1 }) ?? false || box.height.map({ $0 < 1 }) ?? false
            || (box.width == nil && box.height == nil) {
            throw .invalidArgument("a box needs a side of at least 1")
        }
        let properties = try self.properties(options: options, ledger: ledger)
        var warnings = properties.metadataWarnings.map(ThumbnailWarning.metadata)
        warnings += properties.colour.warnings.map(ThumbnailWarning.colour)

        // The shape is worked out on the upright picture; the source and the DCT scale must
        // reach the long side it needs.
        let orientation = options.applyOrientation ? properties.orientation : .up
        let upright = orientation.orientedSize(width: properties.pixelWidth, height: properties.pixelHeight)
        guard upright.width > 0, upright.height > 0 else { throw .unsupported("image has no pixels") }
        let box = options.box ?? ThumbnailBox(width: options.maxPixelSize, height: options.maxPixelSize)
        var geometry = ThumbnailGeometry(pictureWidth: upright.width, pictureHeight: upright.height, box: box,
                                         fit: options.fit, enlarge: options.enlarge)
        let keepsAspect = options.fit == .inside || options.fit == .contain || box.width == nil || box.height == nil
        let requested = options.box == nil && keepsAspect ? options.maxPixelSize : geometry.neededLongSide
        let plan = SourceChooser.plan(properties: properties, fileSize: input.count, options: options,
                                      requestedLongSide: requested)
        if properties.isRaw, plan.embedded != nil, max(plan.width, plan.height) < requested {
            warnings.append(.rawPreviewSmallerThanAsked(width: plan.width, height: plan.height, asked: requested))
        }
        // A crop placed by content is chosen on the whole picture at the cover scale, then
        // cut from it (CropChooser); a centred one is cut before resampling.
        let cropsByContent = options.crop != .centre && !geometry.showsWholePicture

        // What is decoded, in stored pixels: the chosen source at its DCT scale.
        let k = plan.scale.rawValue
        let decodedWidth = (plan.width * k + 7) / 8, decodedHeight = (plan.height * k + 7) / 8
        guard decodedWidth > 0, decodedHeight > 0 else { throw .unsupported("image has no pixels") }
        let window: PixelRect
        let outWidth: Int, outHeight: Int
        if keepsAspect {
            // The whole picture, aspect kept: sized from the chosen source's own size, whose
            // aspect may differ from the main image's by up to 1 %.
            let source = orientation.orientedSize(width: plan.width, height: plan.height)
            let shape = ThumbnailGeometry(pictureWidth: source.width, pictureHeight: source.height, box: box,
                                          fit: .inside, enlarge: options.enlarge)
            geometry.scaledWidth = shape.scaledWidth
            geometry.scaledHeight = shape.scaledHeight
            // `contain` centres the picture on a canvas of the box's size.
            let contains = options.fit == .contain
            geometry.canvasWidth = max(shape.scaledWidth, contains ? box.width ?? 0 : 0)
            geometry.canvasHeight = max(shape.scaledHeight, contains ? box.height ?? 0 : 0)
            window = PixelRect(x: 0, y: 0, width: decodedWidth, height: decodedHeight)
        } else if cropsByContent {
            window = PixelRect(x: 0, y: 0, width: decodedWidth, height: decodedHeight)
        } else {
            window = geometry.storedWindow(orientation: orientation, decodedWidth: decodedWidth,
                                           decodedHeight: decodedHeight)
        }
        let (resampledWidth, resampledHeight) = cropsByContent ? (geometry.coverWidth, geometry.coverHeight)
            : (geometry.scaledWidth, geometry.scaledHeight)
        (outWidth, outHeight) = orientation.swapsDimensions ? (resampledHeight, resampledWidth)
            : (resampledWidth, resampledHeight)

        // Colour is converted on the decoded rows, before the resampler (ColourStage).
        let colourStage = ColourStage(options.colour, source: properties.colour, cmykProfile: options.cmykProfile)
        var options = options
        options.jpeg.cmykSamples = colourStage.wantsCMYKSamples
        var sink = colourStage.sink(ledger: ledger, into: CropSink(window: window, downstream: Resampler(
            outputWidth: outWidth, outputHeight: outHeight, filter: options.filter, ledger: ledger,
            downstream: ImageBuilder(ledger: ledger))))
        let running = runningDecodes.add(1, ordering: .relaxed).newValue
        defer { runningDecodes.subtract(1, ordering: .relaxed) }
        let workers = options.decodeWorkers ?? max(1, ParallelJPEGDecoder.activeCores / max(1, running))
        var job = DecodeJob(options: options, workers: workers, ledger: ledger, cancellation: cancellation)
        // The primary image of a Multi-Picture file ends where its index says.
        job.dataEnd = properties.mpfImages.first { $0.offset == 0 && $0.length > 0 }?.length
        if let embedded = plan.embedded {
            // Embedded pictures are JPEGs whatever their container.
            let slice: ByteSourceSlice<InputBytes>
            do {
                slice = try ByteSourceSlice(input, offset: embedded.offset, count: embedded.length)
            } catch {
                throw PareError(error)
            }
            warnings += try JPEGFormatReader.decodeJPEG(slice, scale: plan.scale, job: job, into: &sink)
        } else {
            warnings += try format.reader.decodeMainImage(input, scale: plan.scale, job: job, into: &sink)
        }
        do { try sink.downstream.downstream.finish() } catch { throw PareError(error) }
        guard var image = sink.downstream.downstream.downstream.image else { throw .unsupported("decoder produced no rows") }

        // With `.keep`, the gain map follows the picture through its own decode and resampler.
        var gainMap: GainMapThumbnail?
        if options.gainMap == .keep {
            if !keepsAspect {
                warnings.append(.gainMap(.notCropped))
            } else if let info = properties.gainMap, info.metadata != nil {
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
            if orientation != .up { image = try orientation.apply(to: image, ledger: ledger) }
            if cropsByContent {
                let corner = try CropChooser.corner(in: image, width: geometry.scaledWidth,
                                                    height: geometry.scaledHeight, by: options.crop, ledger: ledger)
                image = try image.cropped(to: PixelRect(x: corner.x, y: corner.y, width: geometry.scaledWidth,
                                                        height: geometry.scaledHeight), ledger: ledger)
            }
            if geometry.canvasWidth != image.width || geometry.canvasHeight != image.height {
                image = try image.letterboxed(width: geometry.canvasWidth, height: geometry.canvasHeight,
                                              background: options.background, ledger: ledger)
            }
            return Thumbnail(image: image, source: plan.source, reason: plan.reason,
                             appliedOrientation: orientation, ledgerPeakBytes: ledger.peakBytes,
                             allocations: ledger.allocationCount, warnings: warnings, colour: colour,
                             gainMap: gainMap)
        } catch {
            throw PareError(error)
        }
    }
}
