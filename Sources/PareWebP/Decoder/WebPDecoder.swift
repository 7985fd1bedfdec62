@_spi(Pipeline) import PareCore

/// A WebP decoder (WebP Container Specification; RFC 6386 for lossy frames; WebP Lossless
/// Bitstream Specification) that hands out rows as `dwebp -pam` (libwebp 1.2.4) writes them.
///
/// `init` reads the container and the image's headers, so `info` and `outputFormat` are known
/// before any pixel is decoded. `decode(into:)` then pushes rows into a sink, top to bottom:
/// a lossy image one macroblock row (16 pixel rows) at a time, holding only a few macroblock
/// rows; a lossless image once its whole picture (which its transforms need) is decoded. An
/// animation gives its first frame placed on its canvas, the rest transparent black, as
/// libwebp's animation decoder composes a first frame. RGBA when the image has alpha (straight,
/// not premultiplied) or is animated, RGB otherwise.
///
/// Damage in the image data (a file cut off inside it) throws when `options.strict` is set,
/// the default; without it the rows decoded before the damage are kept, the rest are left to
/// the sink (black or transparent in an `ImageBuilder`) and `warnings` says so.
public struct WebPDecoder<Source: ByteSource> {
    let source: Source
    /// Counts what the decoder holds, and a whole decoded image (`decodeImage`).
    public let ledger: MemoryLedger
    let options: WebPOptions
    var container: RIFFReader<Source>
    var lossyHeader: VP8FrameHeader?
    /// What the container and the headers say.
    public private(set) var info: WebPInfo
    /// Damage a decode with `options.strict` false survived.
    public internal(set) var warnings: [WebPWarning] = []
    /// Asked between macroblock rows (and before each stage of a lossless decode); when it
    /// says stop, `decode` throws `.core(.cancelled)`.
    public var cancellation = CancellationCheck()
    var decoded = false

    public init(source: Source, ledger: MemoryLedger, options: WebPOptions = WebPOptions()) throws(WebPError) {
        self.source = source
        self.ledger = ledger
        self.options = options
        container = RIFFReader(source: source, options: options)
        try container.read()
        let image = container.image!
        let animated = container.hasANIM
        info = WebPInfo(width: 0, height: 0, hasAlpha: false, isLossless: image.bitstream.fourCC == FourCC.vp8l,
                        isAnimated: animated, frameCount: animated ? container.frameCount : 1,
                        loopCount: container.loopCount, backgroundColor: container.background,
                        chunks: container.chunks, extendedFlags: container.vp8xFlags)
        let headerBytes = try container.bytes(image.bitstream.payloadOffset, min(image.bitstream.available, 30),
                                              what: "image header")
        var frameWidth = 0, frameHeight = 0
        if info.isLossless {
            var vp8l = try VP8LDecoder.parseHeader(headerBytes, fileOffset: image.bitstream.payloadOffset)
            frameWidth = vp8l.width
            frameHeight = vp8l.height
            try checkLimits(frameWidth, frameHeight, offset: image.bitstream.offset)
            // The transforms and the cache size are read by a pass over the stream's start.
            try scanLossless(image.bitstream, info: &vp8l)
            info.vp8l = vp8l
            info.hasAlpha = vp8l.alphaHint
        } else {
            let header = try VP8FrameHeader(source: source, chunk: image.bitstream, ledger: ledger)
            frameWidth = header.width
            frameHeight = header.height
            try checkLimits(frameWidth, frameHeight, offset: image.bitstream.offset)
            lossyHeader = header
            info.vp8 = header.info
            if let alpha = image.alpha {
                let byte = try container.bytes(alpha.payloadOffset, min(1, alpha.available), what: "ALPH header")
                if let b = byte.first {
                    info.alpha = WebPAlphaInfo(compression: Int(b & 3), filter: Int(b >> 2) & 3,
                                               preprocessing: Int(b >> 4) & 3)
                }
                info.hasAlpha = true
            }
        }
        if let flags = container.vp8xFlags {
            if flags & 0x10 != 0 { info.hasAlpha = true }
            info.width = container.canvasWidth
            info.height = container.canvasHeight
            if animated {
                guard frameWidth == container.frameWidth, frameHeight == container.frameHeight else {
                    throw .invalidChunk(fourCC: "ANMF", offset: image.bitstream.offset,
                                        reason: "frame header says \(frameWidth)x\(frameHeight), ANMF says \(container.frameWidth)x\(container.frameHeight)")
                }
                info.frameX = container.frameX
                info.frameY = container.frameY
                info.frameWidth = frameWidth
                info.frameHeight = frameHeight
                info.frameBlends = container.frameBlends
                info.frameDisposesToBackground = container.frameDisposes
            } else {
                guard frameWidth == container.canvasWidth, frameHeight == container.canvasHeight else {
                    throw .invalidChunk(fourCC: "VP8X", offset: 12,
                                        reason: "canvas \(container.canvasWidth)x\(container.canvasHeight) differs from the image's \(frameWidth)x\(frameHeight)")
                }
            }
        } else {
            info.width = frameWidth
            info.height = frameHeight
        }
        if animated {
            // The canvas around and under the first frame is transparent.
            info.hasAlpha = true
        } else {
            info.frameWidth = frameWidth
            info.frameHeight = frameHeight
        }
        info.iccProfile = try metadata(container.icc)
        info.exif = try metadata(container.exif)
        info.xmp = try metadata(container.xmp)
    }

    func checkLimits(_ width: Int, _ height: Int, offset: Int) throws(WebPError) {
        if let crossed = ImageSizeLimits.crossed(width: width, height: height, maxWidth: options.maxWidth,
                                                 maxHeight: options.maxHeight, maxPixels: options.maxPixels) {
            throw .limitExceeded(what: crossed.what, value: crossed.value, limit: crossed.limit, offset: offset)
        }
    }

    func metadata(_ chunk: ChunkHeader?) throws(WebPError) -> [UInt8]? {
        guard let chunk, chunk.isComplete, chunk.size <= options.maxMetadataBytes else { return nil }
        return try container.bytes(chunk.payloadOffset, chunk.size, what: "metadata chunk")
    }

    /// Reads a lossless stream's transforms and cache size for `info` (the pixels are not kept).
    func scanLossless(_ chunk: ChunkHeader, info: inout VP8LInfo) throws(WebPError) {
        let payload = try container.payload(chunk, ledger: ledger)
        do throws(WebPError) {
            try VP8LDecoder.scan(data: payload.baseAddress, count: payload.count, fileOffset: chunk.payloadOffset,
                                 ledger: ledger, maxPixels: options.maxPixels, info: &info)
        } catch {
            // A damaged or cut-off stream is reported by `decode`, which reads it again.
            if error.kind == .memoryLimit || error.kind == .limit { throw error }
        }
    }

    /// The layout of the rows `decode` hands out.
    public var outputFormat: PixelFormat { info.hasAlpha ? .rgba8 : .rgb8 }

    /// Decodes the image (the first frame of an animation) into `sink`. Call it once.
    public mutating func decode<Sink: RowSink>(into sink: inout Sink) throws(WebPError) {
        try decodeImage(into: &sink, handoff: NoPipeline?.none, halfScale: false)
    }

    /// True when the image can be decoded at half size (`decode(halfScale:into:)`): a lossy
    /// still picture without alpha.
    public var decodesAtHalfScale: Bool { !info.isLossless && !info.isAnimated && !info.hasAlpha }

    /// Decodes the image, at half size (rounded up; `YUVToRGB.halfRow`: each pixel a 2×2
    /// block's mean luma with its one chroma sample) when `halfScale` is set and the picture
    /// `decodesAtHalfScale`, else as `decode` does. For pictures that are to be made smaller:
    /// the rows are not `dwebp`'s. The sink's header says the size.
    public mutating func decode<Sink: RowSink>(halfScale: Bool, into sink: inout Sink) throws(WebPError) {
        try decodeImage(into: &sink, handoff: NoPipeline?.none, halfScale: halfScale)
    }

    /// `decode(halfScale:into:)` with a frame's work split between two threads (a lossy
    /// frame: `LossyDecoder.decodePipelined`; a lossless one: its pixels decoded beside the
    /// undoing of its transforms, `decodeLossless`): the same rows, warnings and errors.
    @_spi(Pipeline) public mutating func decodePipelined<Sink: RowSink, Handoff: DecodePipelineHandoff>(
        handoff: Handoff, halfScale: Bool = false, into sink: inout Sink
    ) throws(WebPError) {
        try decodeImage(into: &sink, handoff: handoff, halfScale: halfScale)
    }

    mutating func decodeImage<Sink: RowSink, Handoff: DecodePipelineHandoff>(
        into sink: inout Sink, handoff: Handoff?, halfScale: Bool
    ) throws(WebPError) {
        precondition(!decoded, "WebPDecoder.decode called twice")
        decoded = true
        let format = outputFormat
        let half = halfScale && decodesAtHalfScale
        let width = half ? (info.width + 1) / 2 : info.width, height = half ? (info.height + 1) / 2 : info.height
        do { try sink.begin(RowStreamHeader(width: width, height: height, format: format)) } catch {
            throw .core(error)
        }
        if info.isAnimated {
            // The sink goes into the canvas and comes back out, also when the frame throws.
            var canvas = try CanvasPlacement(inner: sink, info: info, ledger: ledger)
            defer { sink = canvas.inner }
            try decodeFrame(into: &canvas, format: format, handoff: handoff, halfScale: false)
            do { try canvas.finish() } catch { throw .core(error) }
        } else {
            try decodeFrame(into: &sink, format: format, handoff: handoff, halfScale: half)
        }
    }

    mutating func decodeFrame<Sink: RowSink, Handoff: DecodePipelineHandoff>(
        into sink: inout Sink, format: PixelFormat, handoff: Handoff?, halfScale: Bool
    ) throws(WebPError) {
        if cancellation.isCancelled { throw .core(.cancelled) }
        let image = container.image!
        if info.isLossless {
            try decodeLossless(image.bitstream, into: &sink, format: format, handoff: handoff)
        } else {
            try decodeLossy(image, into: &sink, format: format, handoff: handoff, halfScale: halfScale)
        }
    }

    mutating func noteDamage(_ warning: WebPWarning) throws(WebPError) {
        if options.strict { throw .strict(warning) }
        warnings.append(warning)
    }

    /// A lossless image (`VP8LDecoder`): the main image's pixels decoded into one buffer
    /// (a backward reference may reach any pixel before), and each `TransformBands.bandRows`
    /// rows, once whole, have their transforms undone and are handed out. With a handoff the
    /// pixels are decoded on its thread (the producer), one publication a band, and the bands
    /// undone and handed out on the caller's (the consumer): the same rows, warnings and
    /// errors as without. The consumer asks `cancellation` before each band.
    mutating func decodeLossless<Sink: RowSink, Handoff: DecodePipelineHandoff>(
        _ chunk: ChunkHeader, into sink: inout Sink, format: PixelFormat, handoff: Handoff?
    ) throws(WebPError) {
        let payload = try container.payload(chunk, ledger: ledger)
        var vp8l = info.vp8l!
        var stream = try VP8LDecoder.open(data: payload.baseAddress, count: payload.count,
                                          fileOffset: chunk.payloadOffset, width: vp8l.width, height: vp8l.height,
                                          hasHeader: true, ledger: ledger, maxPixels: options.maxPixels, info: &vp8l)
        info.vp8l = vp8l
        let width = stream.width, channels = format.channels, bandRows = TransformBands.bandRows
        let bands = try TransformBands(transforms: stream.transforms, width: width, codedWidth: stream.image.width,
                                       ledger: ledger)
        let row: LedgerBuffer<UInt8>
        do { row = try ledger.allocate(UInt8.self, count: width * channels, initialValue: 0) } catch {
            throw .core(error)
        }
        let coded = stream.image.pixels.baseAddress
        let cancellation = self.cancellation
        var handedOut = 0
        /// Undoes and hands out the rows from `handedOut` up to `end`, a band at a time.
        func handOut(through end: Int) throws(WebPError) {
            while handedOut < end {
                if cancellation.isCancelled { throw .core(.cancelled) }
                let rows = handedOut ..< min(handedOut + bandRows, end)
                let band = bands.undo(coded, rows: rows)
                let out = row.baseAddress
                for y in rows {
                    let line = band + (y - rows.lowerBound) * width
                    // SAFETY: x < width; `line` holds width words, `out` width * channels bytes.
                    for x in 0 ..< width {
                        let p = line[x]
                        out[x * channels] = UInt8(truncatingIfNeeded: p >> 16)
                        out[x * channels + 1] = UInt8(truncatingIfNeeded: p >> 8)
                        out[x * channels + 2] = UInt8(truncatingIfNeeded: p)
                        if channels == 4 { out[x * 4 + 3] = UInt8(truncatingIfNeeded: p >> 24) }
                    }
                    do { try sink.consume(UnsafeBufferPointer(row.buffer), at: RowPlacement(y: y, width: width)) } catch {
                        throw .core(error)
                    }
                }
                handedOut = rows.upperBound
            }
        }
        if let handoff {
            // Per publication, the rows whole by then and whether it is the last; written once
            // before its `publishRow`, read after the matching `awaitRow`. At most one a band
            // and the last.
            let ends: LedgerBuffer<BandEnd>
            do {
                ends = try ledger.allocate(BandEnd.self, count: stream.image.height / bandRows + 2,
                                           initialValue: BandEnd(rows: 0, last: false))
            } catch { throw .core(error) }
            let slots = max(2, handoff.slots)
            var failure: WebPError?                    // producer
            var stopError: WebPError?                  // consumer
            handoff.run(producer: {
                var published = 0
                handoff.acquireSlot()
                do throws(WebPError) {
                    try stream.decodePixels(reportEvery: bandRows) { (whole: Int) throws(WebPError) in
                        while (published + 1) * bandRows <= whole {
                            ends[published] = BandEnd(rows: (published + 1) * bandRows, last: false)
                            published += 1
                            handoff.publishRow()
                            handoff.acquireSlot()
                            if handoff.stopRequested { throw .core(.cancelled) }
                        }
                    }
                } catch {
                    failure = error
                }
                // After an error, the bands published so far, as the serial decode hands out.
                ends[published] = BandEnd(rows: failure == nil ? stream.completeRows : published * bandRows, last: true)
                handoff.publishRow()
            }, consumer: {
                var publication = 0
                while true {
                    handoff.awaitRow()
                    // The slot holds nothing: the pixels are in the one buffer.
                    handoff.releaseSlot()
                    let end = ends[publication]
                    publication += 1
                    do throws(WebPError) {
                        try handOut(through: end.rows)
                    } catch {
                        stopError = error
                        handoff.requestStop()
                        for _ in 0 ..< slots { handoff.releaseSlot() }
                        break
                    }
                    if end.last { break }
                }
            })
            if let stopError { throw stopError }
            if let failure { throw failure }
        } else {
            try stream.decodePixels(reportEvery: bandRows) { (whole: Int) throws(WebPError) in
                try handOut(through: whole / bandRows * bandRows)
            }
            try handOut(through: stream.completeRows)
        }
        if let offset = stream.truncatedAt {
            try noteDamage(.truncated(row: stream.completeRows, offset: offset))
        }
    }
}

/// A publication of `decodeLossless`'s producer: the rows whole by then, and whether the
/// producer is done.
struct BandEnd: BitwiseCopyable {
    var rows: Int
    var last: Bool
}

extension WebPDecoder: RowDecoder {
    /// A decode that gave no image found no image chunk in the file.
    public var noImageError: WebPError { .missingImage(offset: 0) }
}

extension WebPDecoder {
    /// A lossy image: the alpha plane first (when there is an ALPH chunk), then the frame
    /// macroblock row by macroblock row.
    mutating func decodeLossy<Sink: RowSink, Handoff: DecodePipelineHandoff>(
        _ image: ImageChunks, into sink: inout Sink, format: PixelFormat, handoff: Handoff?, halfScale: Bool
    ) throws(WebPError) {
        let frame = lossyHeader!
        var alpha: LedgerBuffer<UInt8>?
        if let chunk = image.alpha, format.channels == 4 {
            let payload = try container.payload(chunk, ledger: ledger)
            do throws(WebPError) {
                let (plane, rows) = try AlphaChunk.decode(data: payload.baseAddress, count: payload.count,
                                                          fileOffset: chunk.payloadOffset, width: frame.width,
                                                          height: frame.height, ledger: ledger,
                                                          maxPixels: options.maxPixels)
                alpha = plane
                if rows < frame.height { try noteDamage(.alphaDamaged(row: rows, offset: chunk.payloadOffset + chunk.available)) }
            } catch {
                if case .strict = error { throw error }
                if case .core = error { throw error }
                if case .limitExceeded = error { throw error }
                try noteDamage(.alphaDamaged(row: 0, offset: chunk.payloadOffset))
            }
        }
        var decoder = try LossyDecoder(frame: frame, channels: format.channels, halfScale: halfScale, ledger: ledger)
        if let handoff {
            try decoder.decodePipelined(source: source, into: &sink, alpha: alpha, cancellation: cancellation,
                                        handoff: handoff, ledger: ledger)
        } else {
            try decoder.decode(source: source, into: &sink, alpha: alpha, cancellation: cancellation, ledger: ledger)
        }
        if let row = decoder.truncatedRow {
            try noteDamage(.truncated(row: row, offset: decoder.truncatedOffset))
        }
    }
}
