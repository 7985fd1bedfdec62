@_spi(TIFF) import PareEXIF
@_spi(Pipeline) @_spi(Codec) import PareCore

/// A streaming TIFF decoder (TIFF 6.0; BigTIFF): the first image of the file, from strips
/// or tiles, uncompressed, PackBits, LZW, Deflate, JPEG or CCITT fax; min-is-white,
/// min-is-black, RGB, palette, CMYK and YCbCr (chroma full or subsampled); 1 to 16 bits a
/// sample, either planar configuration, the horizontal predictor, alpha.
///
/// `init` reads the header and IFD0 through PareEXIF's IFD reader (one IFD reader in Pare),
/// counts the pages and checks every tag and size, so `info` and `outputFormat` are known
/// before a pixel is decoded. `decode(into:)` then hands the sink its rows top to bottom,
/// one strip (or one row of tiles) at a time: memory is one such band, the compressed
/// bytes of one strip or tile, one output row and the decompressor's state, all counted by
/// the ledger. Damage in the image data (the file cut off, data a decompressor refuses)
/// throws when `options.strict` is set, the default; without it the rows before the damage
/// are handed out and `warnings` says where it was.
public struct TIFFDecoder<Source: ByteSource> {
    let source: Source
    /// Counts what the decoder holds, and a whole decoded image (`decodeImage`).
    public private(set) var ledger: MemoryLedger
    let options: TIFFOptions
    let structure: ImageStructure
    /// What IFD0 says, known once `init` returns.
    public let info: TIFFInfo
    /// The IFD reader's warnings (entries dropped), then damage a lenient decode survived.
    public internal(set) var warnings: [TIFFError] = []
    /// Asked before each strip or row of tiles; when it says stop, `decode` throws
    /// `.core(.cancelled)`. Never, by default.
    public var cancellation = CancellationCheck()
    var lzw: LZWDecoder?

    public init(source: Source, ledger: MemoryLedger, options: TIFFOptions = TIFFOptions()) throws(TIFFError) {
        self.source = source
        self.ledger = ledger
        self.options = options
        var exifOptions = EXIFOptions()
        exifOptions.maxIFDs = max(1, options.maxPages)
        exifOptions.maxValueBytes = options.maxTagBytes
        exifOptions.maxTotalValueBytes = options.maxTagBytes
        exifOptions.maxWarnings = options.maxWarnings
        var reader = IFDReader(block: TIFFBlock(source: source, start: 0, count: source.count, absoluteBase: 0),
                               options: exifOptions)
        let ifd: IFD
        do {
            ifd = try reader.readIFD(at: try reader.readHeader(), name: "IFD0")
        } catch {
            throw .structure(error)
        }
        // Pages: the IFD0 chain, read only for its pointers; a broken chain ends the count.
        var pages = 1
        var next = ifd.nextIFD
        while next != 0 && pages < options.maxPages {
            do {
                next = try reader.nextIFDPointer(of: next, name: "IFD\(pages)")
                pages += 1
            } catch {
                if options.maxWarnings > 0 { warnings.append(.structure(error)) }
                break
            }
        }
        for warning in reader.warnings.prefix(max(0, options.maxWarnings - warnings.count)) {
            warnings.append(.structure(warning))
        }
        structure = try ImageStructure(ifd: ifd, fileSize: source.count, options: options)
        var segments: [TIFFSegment] = []
        segments.reserveCapacity(structure.offsets.count)
        for i in 0 ..< structure.offsets.count {
            segments.append(TIFFSegment(offset: Int(clamping: structure.offsets[i]), count: Int(clamping: structure.counts[i])))
        }
        let s = structure
        info = TIFFInfo(width: s.width, height: s.height, bitsPerSample: s.bitsPerSample, samplesPerPixel: s.samplesPerPixel,
                        photometric: s.photometric, compression: s.compression, planarConfiguration: s.planar,
                        predictor: s.predictor, alpha: s.alpha, isTiled: s.tiled, segmentWidth: s.segmentWidth,
                        segmentHeight: s.segmentHeight, pageCount: pages, orientation: s.orientation, iccProfile: s.icc,
                        segments: segments, byteOrder: reader.byteOrder, ifdOffset: ifd.offset)
    }

    /// The layout of the rows `decode` hands out: gray8, grayAlpha8, rgb8, rgba8 (alpha
    /// unassociated) or cmyk8 (ink amounts, for a profile or the pipeline to convert).
    public var outputFormat: PixelFormat { structure.outputFormat }

    /// Decodes the first image into `sink`, top to bottom. Call it once.
    public mutating func decode<Sink: RowSink>(into sink: inout Sink) throws(TIFFError) {
        try decodeImage(into: &sink, handoff: NoPipeline?.none)
    }

    /// `decode` with the bands shared between two threads (`decodeBandsPipelined`) where the
    /// compression allows: the same rows, warnings and errors.
    @_spi(Pipeline) public mutating func decodePipelined<Sink: RowSink, Handoff: DecodePipelineHandoff>(
        handoff: Handoff, into sink: inout Sink
    ) throws(TIFFError) {
        try decodeImage(into: &sink, handoff: handoff)
    }

    mutating func decodeImage<Sink: RowSink, Handoff: DecodePipelineHandoff>(
        into sink: inout Sink, handoff: Handoff?
    ) throws(TIFFError) {
        let s = structure
        let format = s.outputFormat
        do { try sink.begin(RowStreamHeader(width: s.width, height: s.height, format: format)) } catch { throw .core(error) }
        let (bandBytes, overflow) = (s.planes * s.across).multipliedReportingOverflow(by: s.segmentBytes)
        guard !overflow, bandBytes <= options.maxSegmentBytes else {
            throw .limitExceeded(what: "strip/tile bytes", value: overflow ? Int.max : bandBytes,
                                 limit: options.maxSegmentBytes, offset: s.offsetsAt)
        }
        let band: LedgerBuffer<UInt8>, samples: LedgerBuffer<UInt16>, row: LedgerBuffer<UInt8>
        do {
            band = try ledger.allocate(UInt8.self, count: bandBytes, initialValue: 0)
            samples = try ledger.allocate(UInt16.self, count: s.width * s.samplesPerPixel, initialValue: 0)
            row = try ledger.allocate(UInt8.self, count: s.width * format.bytesPerPixel, initialValue: 0)
        } catch {
            throw .core(error)
        }
        if s.compression == TIFFCompression.lzw {
            do { try ledger.reserve(bytes: Self.lzwBytes) } catch { throw .core(error) }
            lzw = LZWDecoder()
        }
        defer {
            if lzw != nil {
                lzw = nil
                ledger.release(bytes: Self.lzwBytes)
            }
        }
        let output = BandOutput(assembler: RowAssembler(s, byteOrder: info.byteOrder), samples: samples.baseAddress,
                                row: row.baseAddress, rowBytes: row.count, width: s.width)
        if let handoff, try decodeBandsPipelined(handoff: handoff, band: band.baseAddress, bandBytes: bandBytes,
                                                 output: output, into: &sink) {
            return
        }
        for bandIndex in 0 ..< s.down {
            if cancellation.isCancelled { throw .core(.cancelled) }
            let (goodRows, damage) = try decodeBand(bandIndex, into: band.baseAddress)
            try output.emit(band: band.baseAddress, rows: goodRows, from: bandIndex * s.segmentHeight, into: &sink)
            if let damage {
                if options.strict { throw damage }
                if warnings.count < options.maxWarnings { warnings.append(damage) }
                return
            }
        }
    }

    /// The LZW decoder's tables, as the ledger counts them.
    static var lzwBytes: Int { 2 * MemoryLayout<Int>.stride * LZWDecoder.maxCodes }

    /// What turns a decoded band into the sink's rows: the assembler and its one-row buffers.
    struct BandOutput {
        let assembler: RowAssembler
        let samples: UnsafeMutablePointer<UInt16>
        let row: UnsafeMutablePointer<UInt8>
        let rowBytes: Int
        let width: Int

        /// Hands out the first `rows` rows of `band`, image rows from `y0`.
        // SAFETY: rows ≤ the rows every segment of the band decoded; `samples` and `row` are
        // sized for one image row (see RowAssembler.assemble).
        func emit<Sink: RowSink>(band: UnsafeMutablePointer<UInt8>, rows: Int, from y0: Int,
                                 into sink: inout Sink) throws(TIFFError) {
            for r in 0 ..< rows {
                let assembled = assembler.assemble(row: r, band: UnsafeRawPointer(band), samples: samples, output: row)
                do {
                    try sink.consume(UnsafeBufferPointer(start: assembled, count: rowBytes), at: RowPlacement(y: y0 + r, width: width))
                } catch {
                    throw .core(error)
                }
            }
        }
    }

    /// Decodes every segment of band `bandIndex` (a strip, or a row of tiles, in each plane)
    /// into `band`. Returns the rows every segment decoded and the first damage.
    mutating func decodeBand(_ bandIndex: Int, into band: UnsafeMutablePointer<UInt8>) throws(TIFFError) -> (rows: Int, damage: TIFFError?) {
        let s = structure
        let y0 = bandIndex * s.segmentHeight
        let bandRows = min(s.segmentHeight, s.height - y0)
        // Tiles are always whole (TIFF 6.0 §15); the last strip holds only the rows left.
        let segmentRows = s.tiled ? s.segmentHeight : bandRows
        var goodRows = bandRows
        var damage: TIFFError?
        for plane in 0 ..< s.planes {
            for column in 0 ..< s.across {
                let index = plane * s.segmentsPerPlane + bandIndex * s.across + column
                // SAFETY: the band holds planes × across segments of segmentBytes; this one is
                // segment plane × across + column, storedRows(segmentRows) × segmentRowBytes ≤
                // segmentBytes long.
                let region = UnsafeMutableRawBufferPointer(start: band + (plane * s.across + column) * s.segmentBytes,
                                                           count: s.storedRows(segmentRows) * s.segmentRowBytes)
                let (rows, problem) = try decodeSegment(index, into: region, y0: y0)
                goodRows = min(goodRows, rows)
                if damage == nil, let problem { damage = problem }
            }
        }
        return (goodRows, damage)
    }

    /// How a band decoded on the handoff's thread ended.
    enum BandOutcome {
        case decoded(rows: Int, damage: TIFFError?)
        case failed(TIFFError)
    }

    /// The bands on two threads, with exactly the serial loop's rows, warnings and errors:
    /// the handoff's thread (the producer) decodes the odd bands into a ring of
    /// `handoff.slots` bands, while the caller's thread (the consumer) decodes the even ones
    /// itself and hands out every band in order. Decompression is most of a compressed
    /// TIFF's work and its segments are independent (TIFF 6.0 §3: each strip is compressed
    /// on its own), so the two threads share it. The producer works under a ledger of its
    /// own, for its compressed input and its decompressor, whose size this decoder's ledger
    /// reserves first; the ring is this one's. Returns false, having decoded nothing, where
    /// the compression is not one of the byte-stream ones (uncompressed, PackBits, LZW,
    /// Deflate), the image has fewer than four bands, or the ledger has no room.
    mutating func decodeBandsPipelined<Sink: RowSink, Handoff: DecodePipelineHandoff>(
        handoff: Handoff, band: UnsafeMutablePointer<UInt8>, bandBytes: Int, output: BandOutput, into sink: inout Sink
    ) throws(TIFFError) -> Bool {
        let s = structure
        let streams = [TIFFCompression.none, TIFFCompression.packBits, TIFFCompression.lzw, TIFFCompression.adobeDeflate,
                       TIFFCompression.deflate]
        guard streams.contains(s.compression), s.down >= 4 else { return false }
        // The producer's ledger: the largest compressed segment it may read, its LZW tables
        // or inflater (its window and tables, with room), all reserved here first.
        var largest = 0
        for i in 0 ..< s.counts.count where s.offsets[i] < UInt64(source.count) {
            largest = max(largest, Int(min(s.counts[i], UInt64(source.count) - s.offsets[i])))
        }
        guard largest <= options.maxSegmentBytes else { return false }
        let producerBytes = largest + Self.lzwBytes + 256 * 1024
        let slots = max(2, handoff.slots)
        let ring: LedgerBuffer<UInt8>
        do {
            ring = try ledger.allocate(UInt8.self, count: slots * bandBytes, initialValue: 0)
            try ledger.reserve(bytes: producerBytes)
        } catch {
            guard case .limitExceeded = error else { throw .core(error) }
            return false
        }
        defer { ledger.release(bytes: producerBytes) }
        var producerSide = self
        producerSide.ledger = MemoryLedger(limit: producerBytes)
        producerSide.lzw = s.compression == TIFFCompression.lzw ? LZWDecoder() : nil
        // The consumer's copy takes over the LZW tables, so that they are not copied on write.
        var consumerSide = self
        lzw = nil
        let outcomes = UnsafeMutablePointer<BandOutcome>.allocate(capacity: slots)
        outcomes.initialize(repeating: .decoded(rows: 0, damage: nil), count: slots)
        defer {
            outcomes.deinitialize(count: slots)
            outcomes.deallocate()
        }
        let bands = s.down, cancellation = self.cancellation, strict = options.strict
        var failure: TIFFError?, damages: [TIFFError] = []
        // A slot's band and outcome are written by the producer while it holds the slot,
        // before `publishRow`, and read by the consumer after the matching `awaitRow`,
        // before it gives the slot back; `failure` and `damages` are the consumer's.
        handoff.run(producer: {
            var bandIndex = 1
            while bandIndex < bands {
                handoff.acquireSlot()
                if handoff.stopRequested { break }
                let slot = (bandIndex / 2) % slots
                // SAFETY: slot < slots; the ring holds `slots` bands of bandBytes.
                let target = ring.baseAddress + slot * bandBytes
                do throws(TIFFError) {
                    let (rows, damage) = try producerSide.decodeBand(bandIndex, into: target)
                    outcomes[slot] = .decoded(rows: rows, damage: damage)
                } catch {
                    outcomes[slot] = .failed(error)
                }
                handoff.publishRow()
                if case let .decoded(_, damage) = outcomes[slot], damage == nil {
                    bandIndex += 2
                } else {
                    break
                }
            }
        }, consumer: {
            func stop(_ error: TIFFError?) {
                failure = error
                handoff.requestStop()
                for _ in 0 ..< slots { handoff.releaseSlot() }
            }
            for bandIndex in 0 ..< bands {
                if cancellation.isCancelled { return stop(.core(.cancelled)) }
                let outcome: BandOutcome, source: UnsafeMutablePointer<UInt8>
                if bandIndex % 2 == 0 {
                    do throws(TIFFError) {
                        let (rows, damage) = try consumerSide.decodeBand(bandIndex, into: band)
                        outcome = .decoded(rows: rows, damage: damage)
                    } catch {
                        return stop(error)
                    }
                    source = band
                } else {
                    handoff.awaitRow()
                    let slot = (bandIndex / 2) % slots
                    outcome = outcomes[slot]
                    source = ring.baseAddress + slot * bandBytes
                }
                guard case let .decoded(rows, damage) = outcome else {
                    if case let .failed(error) = outcome { stop(error) }
                    return
                }
                do throws(TIFFError) {
                    try output.emit(band: source, rows: rows, from: bandIndex * s.segmentHeight, into: &sink)
                } catch {
                    return stop(error)
                }
                if bandIndex % 2 == 1 { handoff.releaseSlot() }
                if let damage {
                    if strict { return stop(damage) }
                    damages.append(damage)
                    return stop(nil)
                }
            }
        })
        lzw = consumerSide.lzw
        if let failure { throw failure }
        for damage in damages where warnings.count < options.maxWarnings { warnings.append(damage) }
        return true
    }

    /// Reads and decompresses strip or tile `index` into `region`, then undoes the
    /// predictor. Returns the whole rows decoded and, when the segment is damaged, the error
    /// (the rows counted in the image from `y0`).
    mutating func decodeSegment(_ index: Int, into region: UnsafeMutableRawBufferPointer,
                                y0: Int) throws(TIFFError) -> (rows: Int, damage: TIFFError?) {
        let s = structure
        let fileSize = source.count
        let pointer = s.offsets[index], length = s.counts[index]
        let entryAt = s.offsetsAt
        guard pointer < UInt64(fileSize) else {
            return (0, .segmentOutOfBounds(index: index, pointer: Int(clamping: pointer), fileSize: fileSize, offset: entryAt))
        }
        let start = Int(pointer)
        let available = Int(min(length, UInt64(fileSize - start)))
        guard available <= options.maxSegmentBytes else {
            throw .limitExceeded(what: "strip/tile bytes", value: available, limit: options.maxSegmentBytes,
                                 offset: s.countsAt)
        }
        if s.compression == TIFFCompression.none {
            // The bytes are the samples: read straight into the region, not through a copy.
            let wanted = min(available, region.count)
            var copied = 0
            do {
                // SAFETY: each read fills region[copied ..< wanted], inside the region.
                while copied < wanted {
                    let n = try source.read(into: UnsafeMutableRawBufferPointer(start: region.baseAddress! + copied,
                                                                                count: wanted - copied),
                                            at: start + copied)
                    if n <= 0 { break }
                    copied += n
                }
            } catch {
                throw .core(error)
            }
            let filled = UnsafeMutableRawBufferPointer(rebasing: region[0 ..< copied])
            if s.fillOrderReversed { FillOrder.reverse(filled) }
            return finishSegment(index, region: region, decompressed: Decompressed(produced: copied,
                                 damage: copied < region.count ? .ended : nil), y0: y0, start: start, available: available)
        }
        let input: LedgerBuffer<UInt8>
        do {
            input = try ledger.allocate(UInt8.self, count: available, initialValue: 0)
            var copied = 0
            // SAFETY: each read fills input[copied ..< available], inside the buffer of `available` bytes.
            while copied < available {
                let n = try source.read(into: UnsafeMutableRawBufferPointer(start: input.baseAddress + copied,
                                                                            count: available - copied),
                                        at: start + copied)
                if n <= 0 { break }
                copied += n
            }
        } catch {
            throw .core(error)
        }
        let raw = UnsafeMutableRawBufferPointer(start: input.baseAddress, count: available)
        if s.fillOrderReversed { FillOrder.reverse(raw) }
        let data = UnsafeRawBufferPointer(raw)
        let result: Decompressed
        switch s.compression {
        case TIFFCompression.none: result = Uncompressed.copy(data, into: region)
        case TIFFCompression.packBits: result = PackBits.decode(data, into: region)
        case TIFFCompression.lzw: result = lzw!.decode(data, into: region)
        case TIFFCompression.adobeDeflate, TIFFCompression.deflate:
            result = inflate(data, into: region)
        case TIFFCompression.jpeg:
            result = JPEGSegment.decode(data, tables: s.jpegTables, cmyk: s.photometric == TIFFPhotometric.separated,
                                        width: s.segmentWidth, rowBytes: s.segmentRowBytes, into: region, ledger: ledger)
        default:
            result = CCITTFax.decode(data, compression: s.compression, t4Options: s.t4Options, width: s.segmentWidth,
                                     rowBytes: s.segmentRowBytes, into: region)
        }
        return finishSegment(index, region: region, decompressed: result, y0: y0, start: start, available: available)
    }

    /// After a segment's decompression: the predictor undone over the whole rows produced,
    /// and those rows with the damage, if any.
    func finishSegment(_ index: Int, region: UnsafeMutableRawBufferPointer, decompressed result: Decompressed, y0: Int,
                       start: Int, available: Int) -> (rows: Int, damage: TIFFError?) {
        let s = structure
        let storedRows = result.produced / max(1, s.segmentRowBytes)
        let rows = storedRows * s.rowsPerStoredRow
        if s.predictor == 2 {
            HorizontalPredictor.undo(region, rows: storedRows, rowBytes: s.segmentRowBytes, samples: s.samplesPerSegmentPixel,
                                     bitsPerSample: s.bitsPerSample, byteOrder: info.byteOrder)
        }
        let rowsInImage = min(y0 + rows, s.height)
        switch result.damage {
        case nil: return (rows, nil)
        case .ended: return (rows, .truncatedData(index: index, rows: rowsInImage, offset: start + available))
        case let .refused(reason):
            return (rows, .compressedDataError(index: index, rows: rowsInImage, offset: start, reason: reason))
        }
    }

    /// Deflate (Adobe's compression 8 and the older 32946, TIFF Technical Note 2): one zlib
    /// stream per segment, through PareCore's `Inflater`.
    func inflate(_ data: UnsafeRawBufferPointer, into region: UnsafeMutableRawBufferPointer) -> Decompressed {
        let (produced, outcome) = Inflater.inflate(data, into: region, ledger: ledger)
        switch outcome {
        case .finished, .outputFull:
            return Decompressed(produced: produced, damage: produced < region.count ? .ended : nil)
        case .inputEnded: return Decompressed(produced: produced, damage: .ended)
        case let .damaged(reason): return Decompressed(produced: produced, damage: .refused(reason))
        case let .refused(error): return Decompressed(produced: produced, damage: .refused(error.description))
        }
    }
}

extension TIFFDecoder: RowDecoder {
    /// The first image's segment offsets, where a decode that gave no image should have found it.
    public var noImageError: TIFFError { .noImage(offset: structure.offsetsAt) }
}
