import PareCore

/// The encoder's buffers and counters between rows: the colour-converted rows of the row
/// group being filled (Vmax rows), each component's downsampled rows of the current MCU row
/// (8 × Vi), and the quantised blocks — of this MCU row only with the standard tables, of
/// every MCU row when the tables are optimized or the output progressive.
final class EncoderState {
    let colour: LedgerBuffer<UInt8>
    let planes: [LedgerBuffer<UInt8>]
    let planeWidths: [Int]
    let blocks: [LedgerBuffer<Int16>]
    let blocksPerRow: [Int]
    let eightBitRow: LedgerBuffer<UInt8>?
    let workspace: LedgerBuffer<Int16>
    let divisors: [Divisors]
    let zigZag: ZigZagScan
    let standardCodes: (dc: [MergedCodes], ac: [MergedCodes])?
    let holdsAllCoefficients: Bool
    let componentV: [Int]

    var rowsGiven = 0
    /// Rows in the row group being filled, and whole groups in the MCU row being filled.
    var groupRows = 0
    var groupsInRow = 0
    var mcuRowsDone = 0
    var mcuCounter = 0
    var lastDC: [Int32]

    init(frame: EncoderFrame, options: JPEGEncoderOptions, ledger: MemoryLedger) throws(CoreError) {
        holdsAllCoefficients = options.optimizeHuffmanTables || options.progressive
        let n = frame.components.count
        colour = try ledger.allocate(UInt8.self, count: try Self.product(n * frame.maxV, frame.colourWidth),
                                     initialValue: 0)
        var planes: [LedgerBuffer<UInt8>] = [], planeWidths: [Int] = []
        var blocks: [LedgerBuffer<Int16>] = [], blocksPerRow: [Int] = []
        for c in frame.components {
            let across = frame.mcusPerRow * c.h
            planeWidths.append(across * 8)
            planes.append(try ledger.allocate(UInt8.self, count: across * 8 * c.v * 8, initialValue: 0))
            blocksPerRow.append(across)
            let rows = holdsAllCoefficients ? try Self.product(c.v, frame.mcuRows) : c.v
            blocks.append(try ledger.allocate(Int16.self, count: try Self.product(try Self.product(across, rows), 64),
                                              initialValue: 0))
        }
        self.planes = planes
        componentV = frame.components.map { $0.v }
        self.planeWidths = planeWidths
        self.blocks = blocks
        self.blocksPerRow = blocksPerRow
        eightBitRow = frame.format.bytesPerSample == 2
            ? try ledger.allocate(UInt8.self, count: frame.width * frame.format.channels, initialValue: 0) : nil
        workspace = try ledger.allocate(Int16.self, count: 64, initialValue: 0)
        var divisors: [Divisors] = []
        for table in frame.quantTables { divisors.append(try Divisors(table, ledger: ledger)) }
        self.divisors = divisors
        zigZag = try ZigZagScan(ledger: ledger)
        if holdsAllCoefficients {
            standardCodes = nil
        } else {
            var dc: [MergedCodes] = [], ac: [MergedCodes] = []
            for id in 0 ..< (n == 1 ? 1 : 2) {
                dc.append(try MergedCodes(HuffmanTable.standard(tableClass: 0, id: id)!, ledger: ledger))
                ac.append(try MergedCodes(HuffmanTable.standard(tableClass: 1, id: id)!, ledger: ledger))
            }
            standardCodes = (dc, ac)
        }
        lastDC = [Int32](repeating: 0, count: n)
    }

    static func product(_ a: Int, _ b: Int) throws(CoreError) -> Int {
        let (p, overflow) = a.multipliedReportingOverflow(by: b)
        if overflow { throw .sizeOverflow }
        return p
    }

    /// Colour row `row` of the group, for component `c`.
    @inline(__always)
    func colourRow(_ c: Int, _ row: Int, frame: EncoderFrame) -> UnsafeMutablePointer<UInt8> {
        colour.baseAddress + (c * frame.maxV + row) * frame.colourWidth
    }

    /// A block of quantised coefficients in natural order.
    @inline(__always)
    func block(component c: Int, mcuRow: Int, blockRow: Int, blockX: Int) -> UnsafeMutablePointer<Int16> {
        blocks[c].baseAddress + (blockRowIndex(c, mcuRow: mcuRow, blockRow: blockRow) * blocksPerRow[c] + blockX) * 64
    }

    /// The block row, in the block store, of row `blockRow` of MCU row `mcuRow`.
    @inline(__always)
    func blockRowIndex(_ c: Int, mcuRow: Int, blockRow: Int) -> Int {
        holdsAllCoefficients ? mcuRow * componentV[c] + blockRow : blockRow
    }

    /// Colour conversion of one input row into the row group (T.81 A.1 leaves it to JFIF),
    /// widened to the MCU grid by repeating its last sample.
    func addRow(_ pixels: UnsafePointer<UInt8>, frame: EncoderFrame) {
        var source = pixels
        let channels = frame.format.channels
        if let eightBitRow {
            // A 16-bit sample v becomes round(v × 255 / 65535), as cjpeg reads maxval 65535.
            // SAFETY: the row has width × channels 16-bit samples; eightBitRow as many bytes.
            for i in 0 ..< frame.width * channels {
                let v = Int(pixels[2 * i]) << 8 | Int(pixels[2 * i + 1])
                eightBitRow.baseAddress[i] = UInt8((v * 255 + 32767) / 65535)
            }
            source = UnsafePointer(eightBitRow.baseAddress)
        }
        let r = groupRows
        if frame.components.count == 1 {
            let y = colourRow(0, r, frame: frame)
            // SAFETY: width pixels of `channels` bytes in, width samples out (colourWidth ≥ width).
            for x in 0 ..< frame.width { y[x] = source[x * channels] }
        } else {
            ForwardColor.convertRow(source, channels: channels, count: frame.width, y: colourRow(0, r, frame: frame),
                                    cb: colourRow(1, r, frame: frame), cr: colourRow(2, r, frame: frame))
        }
        for c in 0 ..< frame.components.count {
            Downsampling.expandRightEdge(colourRow(c, r, frame: frame), width: frame.width, paddedWidth: frame.colourWidth)
        }
        groupRows += 1
        rowsGiven += 1
    }

    /// Downsamples the row group into each component's rows; at the bottom of the image a
    /// short group is first completed by repeating its last row.
    func downsampleGroup(frame: EncoderFrame) {
        guard groupRows > 0 else { return }
        for c in 0 ..< frame.components.count {
            for r in groupRows ..< frame.maxV {
                colourRow(c, r, frame: frame).update(from: colourRow(c, groupRows - 1, frame: frame), count: frame.colourWidth)
            }
        }
        for (c, component) in frame.components.enumerated() {
            let hf = frame.maxH / component.h, vf = frame.maxV / component.v
            let width = planeWidths[c]
            for j in 0 ..< component.v {
                let out = planes[c].baseAddress + (groupsInRow * component.v + j) * width
                let top = UnsafePointer(colourRow(c, j * vf, frame: frame))
                switch (hf, vf) {
                case (1, 1): out.update(from: top, count: width)
                case (2, 1): Downsampling.h2v1Lanes(top, out, outputCount: width)
                default: Downsampling.h2v2Lanes(top, UnsafePointer(colourRow(c, j * vf + 1, frame: frame)), out, outputCount: width)
                }
            }
        }
        groupRows = 0
        groupsInRow += 1
    }

    /// Completes the MCU row (repeating the last downsampled row down to 8 × Vi rows), then
    /// transforms and quantises its blocks. Blocks of the MCU grid outside the component's
    /// samples are padding, as libjpeg makes them: all AC zero and the DC of the block to the
    /// left (right edge) or of the MCU's last block in the row above (bottom edge), so that
    /// they cost almost nothing to code.
    func finishMCURow(frame: EncoderFrame) {
        for (c, component) in frame.components.enumerated() {
            let width = planeWidths[c]
            let filled = groupsInRow * component.v
            for row in filled ..< 8 * component.v {
                (planes[c].baseAddress + row * width).update(from: planes[c].baseAddress + (filled - 1) * width, count: width)
            }
        }
        let m = mcuRowsDone
        for (c, component) in frame.components.enumerated() {
            let width = planeWidths[c]
            let divisor = divisors[component.quantTable]
            for by in 0 ..< component.v {
                let blockY = m * component.v + by
                let rowBase = blocks[c].baseAddress + blockRowIndex(c, mcuRow: m, blockRow: by) * blocksPerRow[c] * 64
                for blockX in 0 ..< blocksPerRow[c] {
                    let out = rowBase + blockX * 64
                    if blockY < frame.heightInBlocks[c] && blockX < frame.widthInBlocks[c] {
                        divisor.transformAndQuantize(planes[c].baseAddress + by * 8 * width + blockX * 8, stride: width,
                                                     workspace: workspace.baseAddress, into: out)
                    } else {
                        let dc = blockY < frame.heightInBlocks[c]
                            ? (out - 64)[0]
                            : (rowBase - blocksPerRow[c] * 64 + (blockX / component.h * component.h + component.h - 1) * 64)[0]
                        out.update(repeating: 0, count: 64)
                        out[0] = dc
                    }
                }
            }
        }
        groupsInRow = 0
        mcuRowsDone += 1
    }
}
