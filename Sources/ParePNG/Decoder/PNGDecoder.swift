import PareCore

/// A streaming PNG decoder (PNG Specification, 3rd edition): chunks (§5), IHDR/PLTE/IDAT/IEND
/// and their ordering (§5.6, §11.2), inflation of the zlib stream over a bounded input buffer (§10),
/// unfiltering with only the previous scanline kept (§9), Adam7 (§8.2), every colour type
/// and bit depth (§11.2.1), palette expansion and tRNS.
///
/// `init` reads the signature, IHDR and every chunk up to the first IDAT, so `header`,
/// `metadata` and `outputFormat` are known before any pixel is decoded. `decode(into:)`
/// then pushes rows into a sink: top to bottom for a sequential image; pass by pass with
/// each row's x origin and step for an interlaced one. Damage in the image data (the file
/// cut off, a zlib data error, a bad IDAT CRC) throws when `options.strict` is set, the
/// default; without it the rows before the damage are kept, the rest are zero, and
/// `warnings` says so (`PNGWarning`, PNG 3rd ed. §13.1). It reads the chunks after the image
/// data up to IEND, adding their metadata. Memory: two scanlines, one output row, the
/// 64 KiB read window, a 32 KiB input buffer and the inflater's window, input buffer and
/// tables (`Inflater`), all counted by the ledger.
public struct PNGDecoder<Source: ByteSource> {
    var reader: ChunkReader<Source>
    /// Counts what the decoder holds, and a whole decoded image (`decodeImage`).
    public let ledger: MemoryLedger
    let options: PNGOptions
    public private(set) var header: PNGHeader
    /// What the ancillary chunks say. `decode` adds the chunks that follow the image data.
    public internal(set) var metadata = PNGMetadata()
    /// Damage in the image data that a decode with `options.strict` false survived (see
    /// `PNGWarning`): at most one for the image data, whose end it marks.
    public internal(set) var warnings: [PNGWarning] = []
    /// 256 RGBA entries: PLTE's colours, tRNS's alphas (255 where tRNS is shorter).
    var palette = [UInt8](repeating: 0, count: 1024)
    var colorKey: [Int]?
    /// Chunk types already seen, for the ordering rules.
    var seen: Set<UInt32> = []
    var seenPalette = false
    var afterImageData = false
    /// Bytes inflated from zTXt and iTXt so far, kept or not, against `maxMetadataBytes`.
    var inflatedTextBytes = 0
    /// The first IDAT's header, read by `init`.
    var firstImageChunk = ChunkHeader(offset: 0, length: 0, type: ChunkType.IDAT)
    var decoded = false
    /// Asked before each scanline by `decode`; when it says stop, `decode` throws
    /// `.core(.cancelled)`. Never, by default.
    public var cancellation = CancellationCheck()

    /// The compressed-input buffer handed to the inflater.
    static var inputBufferSize: Int { 32 * 1024 }

    public init(source: Source, ledger: MemoryLedger, options: PNGOptions = PNGOptions()) throws(PNGError) {
        self.ledger = ledger
        self.options = options
        reader = try ChunkReader(source: source, ledger: ledger, maxChunkLength: options.maxChunkLength)
        try reader.readSignature()
        let first = try reader.nextHeader()
        guard first.type == ChunkType.IHDR else { throw .missingIHDR(offset: first.offset) }
        guard first.length == 13 else {
            throw .invalidIHDR(offset: first.offset, reason: "length \(first.length), expected 13")
        }
        let (data, crcMatches) = try reader.readData(first)
        guard crcMatches else { throw .crcMismatch(chunk: "IHDR", offset: first.offset) }
        header = try Self.parseHeader(data, offset: first.offset, options: options)
        for i in 0 ..< 256 { palette[4 * i + 3] = 255 }

        while true {
            let chunk = try reader.nextHeader()
            switch chunk.type {
            case ChunkType.IDAT:
                if header.colorType == 3 && !seenPalette { throw .missingPLTE(offset: chunk.offset) }
                firstImageChunk = chunk
                return
            case ChunkType.IEND:
                throw .missingIDAT(offset: chunk.offset)
            case ChunkType.IHDR:
                throw .chunkOutOfOrder(chunk: "IHDR", offset: chunk.offset, reason: "IHDR appears twice")
            case ChunkType.PLTE:
                try readPalette(chunk)
            default:
                if chunk.isCritical { throw .unknownCriticalChunk(chunk: chunk.name, offset: chunk.offset) }
                try readAncillary(chunk)
            }
        }
    }

    /// The layout of the rows `decode` hands out.
    public var outputFormat: PixelFormat { expander.outputFormat }

    var expander: PixelExpander {
        PixelExpander(header: header, palette: palette, paletteCount: metadata.paletteSize,
                      paletteHasAlpha: header.colorType == 3 && metadata.hasTransparency,
                      colorKey: colorKey, output: options.output)
    }

    /// §11.2.1: IHDR's fields and the colour type / bit depth combinations of Table 11.1.
    static func parseHeader(_ data: [UInt8], offset: Int, options: PNGOptions) throws(PNGError) -> PNGHeader {
        func be32(_ i: Int) -> UInt32 {
            UInt32(data[i]) << 24 | UInt32(data[i + 1]) << 16 | UInt32(data[i + 2]) << 8 | UInt32(data[i + 3])
        }
        let width = be32(0), height = be32(4)
        let depth = Int(data[8]), colorType = Int(data[9])
        guard width > 0, height > 0 else {
            throw .invalidIHDR(offset: offset, reason: "zero width or height (\(width)x\(height))")
        }
        guard width <= UInt32(Int32.max), height <= UInt32(Int32.max) else {
            throw .invalidIHDR(offset: offset, reason: "width or height over 2^31-1 (\(width)x\(height))")
        }
        let allowed: [Int]
        switch colorType {
        case 0: allowed = [1, 2, 4, 8, 16]
        case 3: allowed = [1, 2, 4, 8]
        case 2, 4, 6: allowed = [8, 16]
        default: throw .invalidIHDR(offset: offset, reason: "colour type \(colorType)")
        }
        guard allowed.contains(depth) else {
            throw .invalidIHDR(offset: offset, reason: "bit depth \(depth) with colour type \(colorType)")
        }
        guard data[10] == 0 else { throw .invalidIHDR(offset: offset, reason: "compression method \(data[10])") }
        guard data[11] == 0 else { throw .invalidIHDR(offset: offset, reason: "filter method \(data[11])") }
        guard data[12] <= 1 else { throw .invalidIHDR(offset: offset, reason: "interlace method \(data[12])") }
        let w = Int(width), h = Int(height)
        if let crossed = ImageSizeLimits.crossed(width: w, height: h, maxWidth: options.maxWidth,
                                                 maxHeight: options.maxHeight, maxPixels: options.maxPixels) {
            throw .limitExceeded(what: crossed.what, value: crossed.value, limit: crossed.limit, offset: offset)
        }
        return PNGHeader(width: w, height: h, bitDepth: depth, colorType: colorType, interlaced: data[12] == 1)
    }

    /// §11.2.2: one PLTE, before IDAT, 1…256 entries (at most 2^depth for palette images),
    /// never for gray.
    mutating func readPalette(_ chunk: ChunkHeader) throws(PNGError) {
        if seenPalette { throw .chunkOutOfOrder(chunk: "PLTE", offset: chunk.offset, reason: "PLTE appears twice") }
        if header.colorType == 0 || header.colorType == 4 {
            throw .invalidPalette(offset: chunk.offset, reason: "PLTE is not allowed in a gray image")
        }
        guard chunk.length > 0, chunk.length <= 768, chunk.length % 3 == 0 else {
            throw .invalidPalette(offset: chunk.offset, reason: "length \(chunk.length)")
        }
        let (data, crcMatches) = try reader.readData(chunk)
        guard crcMatches else { throw .crcMismatch(chunk: "PLTE", offset: chunk.offset) }
        let entries = chunk.length / 3
        if header.colorType == 3 && entries > 1 << header.bitDepth {
            throw .invalidPalette(offset: chunk.offset,
                                  reason: "\(entries) entries for bit depth \(header.bitDepth)")
        }
        for i in 0 ..< entries {
            palette[4 * i] = data[3 * i]
            palette[4 * i + 1] = data[3 * i + 1]
            palette[4 * i + 2] = data[3 * i + 2]
        }
        seenPalette = true
        metadata.paletteSize = entries
    }

    /// Decodes the image data into `sink` and reads the remaining chunks up to IEND.
    /// Call it once.
    public mutating func decode<Sink: RowSink>(into sink: inout Sink) throws(PNGError) {
        var rows = try beginRows(into: &sink)
        try decodeRows(&rows, into: &sink)
    }

    /// The rest of `decode(into:)` after `beginRows(into:)`, on this thread alone: two
    /// scanline buffers, the image data stage, then `decodeRows(_:inflating:lines:into:)`.
    @_spi(Stages)
    public mutating func decodeRows<Sink: RowSink>(_ rows: inout ScanlineReconstruction,
                                                   into sink: inout Sink) throws(PNGError) {
        let order = scanlineOrder
        let current: LedgerBuffer<UInt8>, previous: LedgerBuffer<UInt8>
        do {
            current = try ledger.allocate(UInt8.self, count: order.maxLineBytes, initialValue: 0)
            previous = try ledger.allocate(UInt8.self, count: order.maxLineBytes, initialValue: 0)
        } catch {
            throw .core(error)
        }
        var stage = try beginImageData(ledger: ledger)
        try decodeRows(&rows, inflating: &stage, lines: (current.baseAddress, previous.baseAddress), into: &sink)
    }

    /// Each scanline inflated into one of `lines` (each `scanlineOrder.maxLineBytes` long)
    /// and reconstructed against the other, then the rest of the image data and the chunks
    /// up to IEND: the serial decode, and the oracle of any other.
    @_spi(Stages)
    public mutating func decodeRows<Sink: RowSink>(
        _ rows: inout ScanlineReconstruction, inflating stage: inout ImageDataInflation,
        lines: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>), into sink: inout Sink
    ) throws(PNGError) {
        let order = scanlineOrder
        var (current, previous) = lines
        for _ in 0 ..< order.count {
            if rows.startsPass { previous.update(repeating: 0, count: order.maxLineBytes) }
            if cancellation.isCancelled { throw .core(.cancelled) }
            do throws(PNGError) {
                try inflateScanline(&stage, into: current)
                try rows.reconstruct(current, previous: previous, offset: reader.position, into: &sink)
            } catch {
                return try survive(error, rows: &rows, into: &sink)
            }
            swap(&current, &previous)
        }
        do throws(PNGError) {
            try finishImageData(&stage, scratch: current, count: order.maxLineBytes)
            try readTrailingChunks()
        } catch {
            try survive(error, rows: &rows, into: &sink)
        }
    }

    /// §5.6: after the IDAT run only ancillary chunks may come, then IEND. The last step
    /// of a decode, after `finishImageData`.
    @_spi(Stages)
    public mutating func readTrailingChunks() throws(PNGError) {
        afterImageData = true
        guard var chunk = reader.afterImageData else { return }
        while true {
            switch chunk.type {
            case ChunkType.IEND:
                let (_, crcMatches) = try reader.readData(chunk)
                guard crcMatches else { throw .crcMismatch(chunk: "IEND", offset: chunk.offset) }
                return
            case ChunkType.IDAT:
                throw .chunkOutOfOrder(chunk: "IDAT", offset: chunk.offset, reason: "IDAT chunks are not consecutive")
            case ChunkType.IHDR, ChunkType.PLTE:
                throw .chunkOutOfOrder(chunk: chunk.name, offset: chunk.offset, reason: "after the image data")
            default:
                if chunk.isCritical { throw .unknownCriticalChunk(chunk: chunk.name, offset: chunk.offset) }
                try readAncillary(chunk)
            }
            chunk = try reader.nextHeader()
        }
    }
}

extension PNGDecoder: RowDecoder {
    /// The first image data chunk, where a decode that gave no image should have found it.
    public var noImageError: PNGError { .noImage(offset: firstImageChunk.offset) }
}
