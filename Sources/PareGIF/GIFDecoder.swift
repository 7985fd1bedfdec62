@_spi(Codec) import PareCore

/// A GIF decoder (GIF89a, and GIF87a, its subset) for the first frame of a file, composed on
/// its canvas, with the whole file's structure for inspection.
///
/// `init` reads the header, the logical screen and the global colour table (§17–§19), the
/// extensions and the first image descriptor (§20–§26), then walks the rest of the file's
/// blocks to the trailer, skipping every frame's image data by its sub-block sizes without
/// decoding it (§15): `info` then holds the frame count, the loop count, comments, XMP and
/// the block list, at the cost of reading the file once through the 64 KiB window (a
/// 600-frame animation takes a few milliseconds, and no LZW table is ever allocated for it).
/// `GIFOptions.walksAllBlocks` false stops the walk at the first frame.
///
/// `decode(into:)` decodes the first frame's LZW data (§22, Appendix F) and pushes canvas
/// rows top to bottom into the sink: the canvas is the logical screen, grown (as Pillow
/// grows it) to hold the frame where the frame passes its edge; see `ColorLookup` for the
/// colours, the fill around the frame and indices past the colour table. A sequential
/// frame streams with one row of indices; an interlaced one (Appendix E) is gathered as
/// indices (one byte a pixel, counted by the ledger) and then handed out top to bottom, so
/// that the sink sees an ordinary sequential image (`interlaced` false) and filters it as
/// any other, instead of the area accumulation a pass-by-pass stream would force on a
/// resampler; a quarter of the RGBA it would otherwise keep.
///
/// Memory: the read window, two canvas rows, the LZW table (4096 codes, 28 KiB), one frame
/// row of indices or an interlaced frame's indices, all counted by the ledger.
public struct GIFDecoder<Source: ByteSource> {
    var stream: ByteStream
    /// Counts what the decoder holds, and a whole decoded image (`decodeImage`).
    public let ledger: MemoryLedger
    let options: GIFOptions
    /// What the file's blocks say (see `GIFInfo`).
    public private(set) var info: GIFInfo
    /// Damage that the decoder survived: in the blocks after the first frame (found by
    /// `init`), and in the first frame's image data when `options.strict` is false.
    public internal(set) var warnings: [GIFError]
    /// Asked before each row by `decode`; when it says stop, `decode` throws
    /// `.core(.cancelled)`. Never, by default.
    public var cancellation = CancellationCheck()
    /// The canvas: the logical screen grown to hold the first frame.
    public let width: Int
    public let height: Int
    let frame: FrameDescriptor
    let minimumCodeSize: Int
    let lookup: ColorLookup

    public init(source: Source, ledger: MemoryLedger, options: GIFOptions = GIFOptions()) throws(GIFError) {
        self.ledger = ledger
        self.options = options
        do {
            stream = try ByteStream(source: source, ledger: ledger)
        } catch {
            throw .core(error)
        }
        var walker = StructureWalker(options: options)
        try walker.readHeader(&stream)
        let first = try walker.readUntilFirstImage(&stream)
        frame = first

        let codeSize: UInt8
        do {
            codeSize = try stream.readUInt8()
        } catch {
            throw .from(error, in: "image data")
        }
        guard codeSize >= 2 && codeSize <= 8 else {
            throw .badCodeSize(offset: first.dataOffset, size: Int(codeSize))
        }
        minimumCodeSize = Int(codeSize)

        width = max(walker.info.screenWidth, first.left + first.width)
        height = max(walker.info.screenHeight, first.top + first.height)
        guard width > 0 && height > 0 else { throw .emptyImage(offset: first.offset) }
        if let crossed = ImageSizeLimits.crossed(width: width, height: height, maxWidth: options.maxWidth,
                                                 maxHeight: options.maxHeight, maxPixels: options.maxPixels) {
            throw .limitExceeded(what: crossed.what, value: crossed.value, limit: crossed.limit, offset: first.offset)
        }

        walker.info.frameLeft = first.left
        walker.info.frameTop = first.top
        walker.info.frameWidth = first.width
        walker.info.frameHeight = first.height
        walker.info.interlaced = first.interlaced
        walker.info.localColorCount = (first.localPalette?.count ?? 0) / 3
        lookup = ColorLookup(palette: first.localPalette ?? walker.globalPalette,
                             transparentIndex: walker.info.transparentIndex)
        if options.walksAllBlocks {
            walker.readRest(&stream, first: first)
            walker.info.framesCounted = true
        }
        info = walker.info
        warnings = walker.warnings
    }

    /// The layout of the rows `decode` hands out: RGBA8, or RGB8 for `.native` output of a
    /// frame without a transparent index.
    public var outputFormat: PixelFormat {
        options.output == .rgba8 || info.hasTransparency ? .rgba8 : .rgb8
    }

    /// Decodes the first frame into `sink`, canvas rows top to bottom. Call it once.
    public mutating func decode<Sink: RowSink>(into sink: inout Sink) throws(GIFError) {
        let format = outputFormat
        do {
            try sink.begin(RowStreamHeader(width: width, height: height, format: format))
        } catch {
            throw .core(error)
        }
        let canvas: CanvasComposition
        var lzw: LZWDecoder
        let frameRows: LedgerBuffer<UInt8>
        do {
            canvas = try CanvasComposition(lookup: lookup, format: format, canvasWidth: width, frameLeft: frame.left,
                                           frameWidth: frame.width, ledger: ledger)
            lzw = try LZWDecoder(minimumCodeSize: minimumCodeSize, ledger: ledger)
            // An interlaced frame is gathered whole; a sequential one needs one row.
            let rows = frame.interlaced ? frame.height : min(frame.height, 1)
            frameRows = try ledger.allocate(UInt8.self, count: frame.width * rows,
                                            initialValue: UInt8(truncatingIfNeeded: lookup.fillIndex))
        } catch {
            throw .core(error)
        }
        stream.seek(to: frame.dataOffset + 1)
        var rowsDone = 0
        func fillRows(until end: Int, into sink: inout Sink) throws(GIFError) {
            while rowsDone < end {
                if cancellation.isCancelled { throw .core(.cancelled) }
                do { try sink.consume(canvas.fill, at: RowPlacement(y: rowsDone, width: width)) } catch { throw .core(error) }
                rowsDone += 1
            }
        }
        try fillRows(until: frame.top, into: &sink)
        var damaged = false
        if frame.interlaced {
            var decodedPixels = 0
            // SAFETY (both loops): y < frame.height and frameRows holds frame.width × frame.height indices.
            for y in InterlaceOrder.rows(height: frame.height) where !damaged {
                if cancellation.isCancelled { throw .core(.cancelled) }
                let target = frameRows.baseAddress + y * frame.width
                let n = try decodeRow(&lzw, into: target, pixelsBefore: decodedPixels)
                decodedPixels += n
                damaged = n < frame.width
            }
            for y in 0 ..< frame.height {
                if cancellation.isCancelled { throw .core(.cancelled) }
                do {
                    try sink.consume(canvas.compose(frameRows.baseAddress + y * frame.width),
                                     at: RowPlacement(y: frame.top + y, width: width))
                } catch {
                    throw .core(error)
                }
            }
        } else {
            // SAFETY: frameRows holds one row of frame.width indices, all that decodeRow and compose touch.
            for y in 0 ..< frame.height {
                if cancellation.isCancelled { throw .core(.cancelled) }
                if !damaged {
                    let n = try decodeRow(&lzw, into: frameRows.baseAddress, pixelsBefore: y * frame.width)
                    damaged = n < frame.width
                } else {
                    frameRows.fill(with: UInt8(truncatingIfNeeded: lookup.fillIndex))
                }
                do {
                    try sink.consume(canvas.compose(frameRows.baseAddress), at: RowPlacement(y: frame.top + y, width: width))
                } catch {
                    throw .core(error)
                }
            }
        }
        rowsDone = frame.top + frame.height
        try fillRows(until: height, into: &sink)
    }

    /// One frame row of indices into `target`. Returns the indices decoded: fewer than the
    /// row only when the data is damaged and `options.strict` is false (the warning is
    /// recorded and the rest of the row is the fill index); with `strict`, damage throws.
    mutating func decodeRow(_ lzw: inout LZWDecoder, into target: UnsafeMutablePointer<UInt8>,
                            pixelsBefore: Int) throws(GIFError) -> Int {
        let n = try lzw.decode(into: target, count: frame.width, &stream)
        guard n < frame.width else { return n }
        let missing = frame.width * frame.height - pixelsBefore - n
        let error: GIFError
        switch lzw.end {
        case let .truncated(offset, needed): error = .truncated(offset: offset, needed: needed, what: "image data")
        case let .terminator(offset), let .endCode(offset): error = .notEnoughImageData(offset: offset, pixelsMissing: missing)
        case let .invalidCode(codeError): error = codeError
        case nil: error = .notEnoughImageData(offset: stream.position, pixelsMissing: missing)
        }
        return try survive(error, decoded: n, into: target)
    }

    /// Damage in the image data: thrown with `options.strict`, else recorded as a warning
    /// with the row's undecoded pixels set to the fill index.
    mutating func survive(_ error: GIFError, decoded: Int, into target: UnsafeMutablePointer<UInt8>) throws(GIFError) -> Int {
        if options.strict { throw error }
        warnings.append(error)
        // SAFETY: decoded <= frame.width, the row's length at target.
        (target + decoded).update(repeating: UInt8(truncatingIfNeeded: lookup.fillIndex), count: frame.width - decoded)
        return decoded
    }
}

extension GIFDecoder: RowDecoder {
    /// The first frame's image descriptor, where a decode that gave no image should have found it.
    public var noImageError: GIFError { .noImage(offset: frame.offset) }
}
