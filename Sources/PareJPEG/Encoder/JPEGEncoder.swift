import PareCore

/// A JPEG encoder (ITU-T T.81, JFIF 1.02) that streams: rows come in through `RowSink`
/// (straight from a decoder or the resampler, or from `encode(_:)`), bytes go out to a
/// `ByteSink`, and only one MCU row of samples (16 rows at 4:2:0) is held. It gives the
/// bytes libjpeg-turbo's `cjpeg -dct int` gives for the same pixels and settings: the same
/// colour conversion, downsampling, edge padding, integer DCT, quantisation, Huffman tables
/// and marker order.
///
/// The stages, each in its file: `ForwardColor` (RGB → YCbCr), `Downsampling`, `ForwardDCT`,
/// `Quantization` / `Divisors`, `SequentialHuffman` and `ProgressiveHuffman` (T.81 F.1.2,
/// G.1.2), `BitWriter` (byte stuffing), `MarkerWriter` (Annex B).
///
/// Memory: with the standard tables, one MCU row of samples and quantised blocks per
/// component, the output buffer and the tables — about 2 × 24 bytes per pixel of width at
/// 4:2:0 — counted by the ledger. Optimized tables and progressive output must see every
/// coefficient before writing the first, so they hold all of them (2 bytes each: 3 bytes
/// per pixel at 4:2:0, 6 at 4:4:4) as libjpeg does.
///
/// Use: `begin` (or `RowSink.begin`), `consume` each row top to bottom, then `finish()`.
/// Gray inputs give a one-component file; RGB gives YCbCr. Alpha is dropped (Pare's
/// `ImageEncoding` composites it over a background first); 16-bit samples
/// are rounded to 8 bits as cjpeg reads a 16-bit PPM.
public struct JPEGEncoder<Sink: ByteSink>: RowSink {
    public let options: JPEGEncoderOptions
    let ledger: MemoryLedger
    var writer: BitWriter<Sink>
    /// A problem found in `begin` that is not the ledger's; `finish` throws it.
    var failure: JPEGEncodingError?
    var frame: EncoderFrame?
    var state: EncoderState?

    public init(options: JPEGEncoderOptions = JPEGEncoderOptions(), ledger: MemoryLedger,
                sink: Sink) throws(JPEGEncodingError) {
        guard (1 ... 100).contains(options.quality) else {
            throw .invalidOption("quality \(options.quality) is not in 1…100")
        }
        switch options.restartInterval {
        case let .mcuRows(n)? where n < 0 || n > 65535, let .mcus(n)? where n < 0 || n > 65535:
            throw .invalidOption("restart interval \(n) is not in 0…65535")
        default: break
        }
        if let profile = options.iccProfile, profile.count > 255 * MarkerWriter.iccChunkSize {
            throw .invalidOption("ICC profile of \(profile.count) bytes needs more than 255 APP2 segments")
        }
        self.options = options
        self.ledger = ledger
        do {
            writer = try BitWriter(sink: sink, ledger: ledger)
        } catch {
            throw .core(error)
        }
    }

    /// The sink, with everything written so far (all of the file after `finish`).
    public var sink: Sink { writer.sink }
    /// Bytes handed to the sink.
    public var bytesWritten: Int { writer.bytesWritten }

    /// Sizes the buffers and writes the headers up to the frame header. A picture JPEG cannot
    /// hold (a side of 0 or over 65,535) or rows it cannot take (interlaced) are refused here,
    /// before a row is decoded: `CoreError.sinkStopped(row: 0)`, with `failure` saying why.
    public mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        guard header.width > 0, header.height > 0, header.width <= 65535, header.height <= 65535 else {
            failure = .unsupportedImage("size \(header.width)×\(header.height) (each side must be 1…65535)")
            throw .sinkStopped(row: 0)
        }
        guard !header.interlaced else {
            failure = .unsupportedImage("interlaced rows (collect them into an image first)")
            throw .sinkStopped(row: 0)
        }
        let frame = EncoderFrame(width: header.width, height: header.height, format: header.format, options: options)
        let state = try EncoderState(frame: frame, options: options, ledger: ledger)
        self.frame = frame
        self.state = state
        writeFileHeader(frame)
    }

    /// Takes the next row; a row out of order stops the decode (`failure` says why).
    public mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        guard failure == nil, let frame, let state else { throw .sinkStopped(row: placement.y) }
        guard placement.y == state.rowsGiven, placement.xOrigin == 0, placement.xStep == 1,
              row.count >= frame.width * frame.format.bytesPerPixel, let base = row.baseAddress else {
            failure = .incompleteImage(rowsGiven: state.rowsGiven, height: frame.height)
            throw .sinkStopped(row: placement.y)
        }
        state.addRow(base, frame: frame)
        if state.groupRows == frame.maxV || state.rowsGiven == frame.height { state.downsampleGroup(frame: frame) }
        if state.groupsInRow == 8 || state.rowsGiven == frame.height {
            state.finishMCURow(frame: frame)
            if !state.holdsAllCoefficients { encodeSequentialRow(frame, state, row: state.mcuRowsDone - 1) }
        }
    }

    /// Writes what is left (for optimized or progressive output, every scan) and EOI.
    public mutating func finish() throws(JPEGEncodingError) {
        if let failure { throw failure }
        guard let frame, let state else { throw .incompleteImage(rowsGiven: 0, height: 0) }
        guard state.rowsGiven == frame.height else {
            throw .incompleteImage(rowsGiven: state.rowsGiven, height: frame.height)
        }
        do {
            if options.progressive {
                try writeProgressiveScans(frame, state)
            } else if state.holdsAllCoefficients {
                try writeOptimizedSequentialScan(frame, state)
            } else {
                writer.alignToByte()
            }
        } catch {
            throw .core(error)
        }
        MarkerWriter.marker(Marker.eoi, to: &writer)
        writer.drain()
        self.state = nil
    }

    /// Encodes a whole image.
    public mutating func encode(_ image: Image) throws(JPEGEncodingError) {
        do {
            try begin(RowStreamHeader(width: image.width, height: image.height, format: image.format))
        } catch {
            if let failure { throw failure }
            throw .core(error)
        }
        if failure == nil {
            do {
                for y in 0 ..< image.height {
                    try image.withRow(y) { (row) throws(CoreError) in try consume(row, at: RowPlacement(y: y, width: image.width)) }
                }
            } catch {
                // `consume` refused a row: `failure` says why, and `finish` throws it.
            }
        }
        try finish()
    }

    /// SOI, JFIF APP0, the ICC profile, DQT per table, SOFn (T.81 B.2.1, B.2.2).
    mutating func writeFileHeader(_ frame: EncoderFrame) {
        MarkerWriter.marker(Marker.soi, to: &writer)
        MarkerWriter.jfif(to: &writer)
        if let profile = options.iccProfile, !profile.isEmpty { MarkerWriter.iccProfile(profile, to: &writer) }
        for (id, table) in frame.quantTables.enumerated() {
            MarkerWriter.quantizationTable(id: id, naturalValues: table, to: &writer)
        }
        let wide = frame.quantTables.contains { $0.contains { $0 > 255 } }
        let code = options.progressive ? Marker.sof2 : wide ? Marker.sof1 : Marker.sof0
        MarkerWriter.frame(marker: code, width: frame.width, height: frame.height, components: frame.components,
                           to: &writer)
    }

    /// Ri for a scan whose MCU rows are `mcusPerRow` MCUs long.
    func restartInterval(mcusPerRow: Int) -> Int {
        switch options.restartInterval {
        case nil: return 0
        case let .mcus(n)?: return n
        case let .mcuRows(n)?: return min(n * mcusPerRow, 65535)
        }
    }

    /// The DHTs, DRI and SOS of a scan, with the tables of `tables` (indexed by destination).
    mutating func writeScanHeader(_ components: [EncoderComponent], dc: [HuffmanTable?], ac: [HuffmanTable?],
                                  restart: Int, lastRestart: inout Int, ss: Int, se: Int, ah: Int, al: Int) {
        var sentDC: Set<Int> = [], sentAC: Set<Int> = []
        for c in components {
            if ss == 0 && ah == 0, let table = dc[c.huffmanTable], sentDC.insert(c.huffmanTable).inserted {
                MarkerWriter.huffmanTable(tableClass: 0, id: c.huffmanTable, table, to: &writer)
            }
            if se > 0, let table = ac[c.huffmanTable], sentAC.insert(c.huffmanTable).inserted {
                MarkerWriter.huffmanTable(tableClass: 1, id: c.huffmanTable, table, to: &writer)
            }
        }
        if restart != lastRestart {
            MarkerWriter.restartInterval(restart, to: &writer)
            lastRestart = restart
        }
        MarkerWriter.scan(components: components, ss: ss, se: se, ah: ah, al: al, progressive: options.progressive,
                          to: &writer)
    }

    /// With the standard tables: the scan header before the first MCU row, then each row's
    /// MCUs as soon as its blocks are quantised.
    mutating func encodeSequentialRow(_ frame: EncoderFrame, _ state: EncoderState, row: Int) {
        let restart = restartInterval(mcusPerRow: frame.mcusPerRow)
        if row == 0 {
            let dc = [HuffmanTable.standard(tableClass: 0, id: 0), HuffmanTable.standard(tableClass: 0, id: 1)]
            let ac = [HuffmanTable.standard(tableClass: 1, id: 0), HuffmanTable.standard(tableClass: 1, id: 1)]
            var last = 0
            writeScanHeader(frame.components, dc: dc, ac: ac, restart: restart, lastRestart: &last,
                            ss: 0, se: 63, ah: 0, al: 0)
        }
        guard let codes = state.standardCodes else { return }
        // The blocks of each component's row, and its code tables, as plain pointers: the MCU
        // loop touches no reference counts, and runs as concrete code whatever the sink.
        let components = frame.components.indices.map { c in
            SequentialHuffman.Component(
                blocks: UnsafePointer(state.block(component: c, mcuRow: row, blockRow: 0, blockX: 0)),
                stride: state.blocksPerRow[c] &* 64, h: frame.components[c].h, v: frame.components[c].v,
                dc: UnsafePointer(codes.dc[frame.components[c].huffmanTable].entries.baseAddress),
                ac: UnsafePointer(codes.ac[frame.components[c].huffmanTable].entries.baseAddress))
        }
        var lastDC = state.lastDC
        var mcu = state.mcuCounter
        var mcuX = 0
        while true {
            mcuX = SequentialHuffman.encodeRow(components, mcusPerRow: frame.mcusPerRow, from: mcuX, mcu: &mcu,
                                               restart: restart, lastDC: &lastDC, zigZag: state.zigZag.tables,
                                               to: &writer.bits)
            if mcuX == frame.mcusPerRow { break }
            writer.drain()
        }
        state.mcuCounter = mcu
        state.lastDC = lastDC
    }

    /// Optimized tables (T.81 K.2): a statistics pass over every held block, the tables, then
    /// the scan with them.
    mutating func writeOptimizedSequentialScan(_ frame: EncoderFrame, _ state: EncoderState) throws(CoreError) {
        let restart = restartInterval(mcusPerRow: frame.mcusPerRow)
        let tableCount = frame.components.count == 1 ? 1 : 2
        var dcCounts = [SymbolCounts](repeating: SymbolCounts(), count: tableCount)
        var acCounts = dcCounts
        forEachSequentialBlock(frame, state, restart: restart, restartMarker: { _ in }) { c, block, difference in
            let table = frame.components[c].huffmanTable
            SequentialHuffman.count(block, dcDifference: difference, dc: &dcCounts[table], ac: &acCounts[table])
        }
        let dc = dcCounts.map { Optional(HuffmanTable.optimal(for: $0)) }
        let ac = acCounts.map { Optional(HuffmanTable.optimal(for: $0)) }
        var last = 0
        writeScanHeader(frame.components, dc: dc, ac: ac, restart: restart, lastRestart: &last, ss: 0, se: 63, ah: 0, al: 0)
        var dcCodes: [MergedCodes] = [], acCodes: [MergedCodes] = []
        for t in 0 ..< tableCount {
            dcCodes.append(try MergedCodes(dc[t]!, ledger: ledger))
            acCodes.append(try MergedCodes(ac[t]!, ledger: ledger))
        }
        var out = writer
        let zigZag = state.zigZag.tables
        forEachSequentialBlock(frame, state, restart: restart, restartMarker: { n in
            out.alignToByte()
            MarkerWriter.marker(Marker.rst0 + UInt8(n & 7), to: &out)
        }) { c, block, difference in
            let table = frame.components[c].huffmanTable
            out.makeRoom(BitPacker.blockBound)
            SequentialHuffman.encode(block, dcDifference: difference, dc: UnsafePointer(dcCodes[table].entries.baseAddress),
                                     ac: UnsafePointer(acCodes[table].entries.baseAddress), zigZag: zigZag, to: &out.bits)
        }
        out.alignToByte()
        writer = out
    }

    /// Walks the held blocks in interleaved MCU order (T.81 A.2.3) with each block's DC
    /// difference, resetting the predictions at each restart (T.81 F.1.1.5.1 and E.1.4).
    func forEachSequentialBlock(_ frame: EncoderFrame, _ state: EncoderState, restart: Int,
                                restartMarker: (Int) -> Void,
                                _ body: (Int, UnsafePointer<Int16>, Int32) -> Void) {
        var lastDC = [Int32](repeating: 0, count: frame.components.count)
        var mcu = 0
        for row in 0 ..< frame.mcuRows {
            for mcuX in 0 ..< frame.mcusPerRow {
                if restart > 0 && mcu > 0 && mcu % restart == 0 {
                    restartMarker(mcu / restart - 1)
                    for c in lastDC.indices { lastDC[c] = 0 }
                }
                for (c, component) in frame.components.enumerated() {
                    for by in 0 ..< component.v {
                        for bx in 0 ..< component.h {
                            let block = state.block(component: c, mcuRow: row, blockRow: by,
                                                    blockX: mcuX * component.h + bx)
                            let dc = Int32(block[0])
                            body(c, block, dc - lastDC[c])
                            lastDC[c] = dc
                        }
                    }
                }
                mcu += 1
            }
        }
    }
}

/// The frame's geometry (T.81 A.1.1, A.2): components with their sampling factors, the MCU
/// grid, each component's size in blocks, and the quantisation tables.
struct EncoderFrame {
    let width: Int
    let height: Int
    let format: PixelFormat
    let components: [EncoderComponent]
    let quantTables: [[UInt16]]
    let maxH: Int
    let maxV: Int
    let mcusPerRow: Int
    let mcuRows: Int
    /// Per component: blocks that hold image samples, across and down (T.81 A.1.1:
    /// ⌈X × Hi / Hmax / 8⌉); the rest of the MCU grid is padding blocks.
    let widthInBlocks: [Int]
    let heightInBlocks: [Int]
    /// Samples per row of the colour-converted rows: the MCU grid's width at full size.
    let colourWidth: Int

    init(width: Int, height: Int, format: PixelFormat, options: JPEGEncoderOptions) {
        self.width = width
        self.height = height
        self.format = format
        if format.isGray {
            components = [EncoderComponent(id: 1, h: 1, v: 1, quantTable: 0, huffmanTable: 0)]
            quantTables = Quantization.tables(quality: options.quality, forceBaseline: options.forceBaseline,
                                              gray: true)
        } else {
            let (h, v) = options.sampling.lumaFactors
            components = [EncoderComponent(id: 1, h: h, v: v, quantTable: 0, huffmanTable: 0),
                          EncoderComponent(id: 2, h: 1, v: 1, quantTable: 1, huffmanTable: 1),
                          EncoderComponent(id: 3, h: 1, v: 1, quantTable: 1, huffmanTable: 1)]
            quantTables = Quantization.tables(quality: options.quality, forceBaseline: options.forceBaseline,
                                              gray: false)
        }
        let maxH = components.map { $0.h }.max()!, maxV = components.map { $0.v }.max()!
        self.maxH = maxH
        self.maxV = maxV
        mcusPerRow = (width + 8 * maxH - 1) / (8 * maxH)
        mcuRows = (height + 8 * maxV - 1) / (8 * maxV)
        widthInBlocks = components.map { (width * $0.h + 8 * maxH - 1) / (8 * maxH) }
        heightInBlocks = components.map { (height * $0.v + 8 * maxV - 1) / (8 * maxV) }
        colourWidth = mcusPerRow * maxH * 8
    }
}
