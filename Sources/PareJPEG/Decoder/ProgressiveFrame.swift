@_spi(Codec) import PareCore

/// The progressive process (T.81 Annex G, SOF2): every scan refines the coefficients held in
/// a `CoefficientStore`, and only when the scans are done are the blocks transformed and
/// streamed out, one MCU row at a time, through the same IDCT, upsampling and colour stages
/// as a sequential frame.
///
/// Reading stops as early as the store allows: a scan whose band and bit planes hold no kept
/// coefficient is passed over by looking for the next marker, without entropy decoding, and
/// once every kept coefficient has reached bit position 0 the rest of the file is not read.
extension JPEGDecoder {
    /// Runs every scan from the first one to EOI (or the end of the data) into `store`.
    mutating func decodeScans(into store: CoefficientStore, log: inout WarningLog) throws(JPEGError) {
        var walk = startScanWalk()
        while true {
            let header = walk.header
            try store.latchQuantizers(header, frame: frame, tables: walk.tables)
            walk.noteCoded()
            store.noteScan(header)
            if store.needs(header) {
                let rowsReached = try runProgressiveScan(walk, store: store, locating: false, log: &log)
                store.record(header)
                store.rowsReached = max(store.rowsReached, rowsReached)
            } else {
                skippedScans += 1
                reader.discardBits()
                let dataStart = reader.stream.position
                if reader.marker == nil {
                    if let (code, offset) = try reader.stream.skipEntropyData() {
                        reader.marker = code
                        reader.markerOffset = offset
                    } else if store.smoothingDepends(on: header) {
                        // The data ends inside this scan, and where it ends decides which
                        // MCU rows `BlockSmoothing` treats as having no AC data: decode it
                        // for that alone (it stores nothing the chosen scale keeps).
                        reader.stream.seek(to: dataStart)
                        try runProgressiveScan(walk, store: store, locating: true, log: &log)
                    }
                }
            }
            if store.isFinal {
                store.stoppedEarly = true
                break
            }
            guard try advance(&walk, log: &log) else { break }
        }
        try walk.reportUncoded(frame: frame, offset: reader.stream.position, log: &log)
        for plane in store.planes { plane.settleFirstScans() }
    }

    /// Decodes one scan from the reader's position into `store` (see `makeProgressiveScan` for
    /// `locating`) and sets the store's `lastGoodRow` from the last MCU row its data reached;
    /// returns how many MCU rows from the top it reached.
    @inline(never) // called from two places; its scan decoder is never live in `decodeScans`
    @discardableResult
    mutating func runProgressiveScan(_ walk: ScanWalk, store: CoefficientStore, locating: Bool,
                                     log: inout WarningLog) throws(JPEGError) -> Int {
        var scan = try makeProgressiveScan(walk, store: store, locating: locating)
        // MCUs per line and MCU rows of an interleaved scan (T.81 A.2.3). Worked out from
        // `frame` alone: a getter on the decoder would be handed a copy of the whole decoder.
        let frame = self.frame
        let single = frame.components.count == 1
        let hMax = single ? 1 : frame.maxHorizontal, vMax = single ? 1 : frame.maxVertical
        let rows = (frame.height + 8 * vMax - 1) / (8 * vMax)
        try scan.run(mcusPerLine: (frame.width + 8 * hMax - 1) / (8 * hMax), mcuRows: rows,
                     sharedLoop: sharedProgressiveLoop, cancellation: cancellation, log: &log)
        swap(&reader, &scan.reader)
        let last = scan.lastGoodRow
        store.lastGoodRow = last < rows - 1 ? last : nil
        return last < rows - 1 ? last + 1 : rows
    }

    /// Prepares a progressive scan: the Huffman tables its kind of scan reads (none for DC
    /// refinement), and the nonzero maps that refinement of an AC band will need (not when
    /// `locating`: the scan is decoded only to see how far its data reaches).
    @inline(__always) // its one caller, which keeps the scan decoder it makes
    func makeProgressiveScan(_ walk: ScanWalk, store: CoefficientStore,
                             locating: Bool = false) throws(JPEGError) -> ProgressiveScanDecoder {
        let header = walk.header
        // Progressive scans decode symbol by symbol: no fast-path parts.
        var huffman = HuffmanTableCache(fastPath: false)
        func table(_ tableClass: Int, _ id: Int) throws(JPEGError) -> HuffmanPointers {
            try huffman.pointers(tableClass, id, skips: false, tables: walk.tables, ledger: ledger, offset: header.offset)
        }
        let isDC = header.band.spectralStart == 0
        let single = frame.components.count == 1
        var units: [ProgressiveScanDecoder.Unit] = []
        for component in header.components {
            let plane = store.planes[component.index]
            let info = frame.components[component.index]
            var dc: HuffmanPointers?, ac: HuffmanPointers?
            if isDC {
                if header.band.approximationHigh == 0 { dc = try table(0, component.dcTable) }
            } else {
                ac = try table(1, component.acTable)
                if !locating && (header.band.approximationHigh > 0 || (header.band.approximationLow > 0 && !store.preview)) {
                    try plane.ensureNonzeroMap(ledger: ledger)
                }
            }
            units.append(ProgressiveScanDecoder.Unit(plane: plane, dc: dc, ac: ac,
                                                     horizontal: single ? 1 : info.horizontal,
                                                     vertical: single ? 1 : info.vertical))
        }
        return ProgressiveScanDecoder(reader: reader, header: header, number: walk.number,
                                      restartInterval: walk.restartInterval, units: units, tables: huffman.built)
    }

    /// Transforms the stored blocks MCU row by MCU row (dequantisation fused into the IDCT,
    /// as for sequential frames) and emits the output rows. Returns how many rows were sent
    /// as copies: when the data ended early, the MCU rows no scan reached are flat, and from
    /// three MCU rows below the last one reached (out of reach of the smoothing kernels and
    /// the upsampler's context) every output row is the same, so the last one is repeated
    /// instead of transforming and converting the rest; a header can claim far more rows
    /// than a short file holds.
    func reconstruct<Sink: RowSink>(_ store: CoefficientStore, plan: ScalePlan, buffers: inout [ComponentBuffer],
                                    scratch: ScanScratch, output: inout OutputStage,
                                    into sink: inout Sink) throws(JPEGError) -> Int {
        let smoothing = BlockSmoothing(store: store)
        for mcuRow in 0 ..< plan.mcuRows {
            try checkCancellation()
            Self.transform(mcuRow: mcuRow, of: store, plan: plan, into: buffers, scratch: scratch, smoothing: smoothing)
            if try output.emitMCURow(mcuRow, &buffers, into: &sink) && mcuRow >= store.rowsReached + 3 {
                return try output.repeatLastRow(buffers, into: &sink)
            }
            output.keepContextRows(buffers)
        }
        return 0
    }

    /// The blocks of one MCU row, every component, through the IDCT into the rows of
    /// `buffers` below their context row. Reads the store and writes only `buffers` and
    /// `scratch`, so that another thread may run it while the caller's emits an earlier row
    /// (`decodePipelined`).
    static func transform(mcuRow: Int, of store: CoefficientStore, plan: ScalePlan, into buffers: [ComponentBuffer],
                          scratch: ScanScratch, smoothing: BlockSmoothing?) {
        let coefficients = scratch.coefficients.baseAddress
        for c in 0 ..< buffers.count {
            let plane = store.planes[c], p = plan.components[c], size = plane.size
            let quantizers = UnsafePointer(plane.quantizers.baseAddress)
            for y in 0 ..< p.vertical {
                let blockRow = mcuRow * p.vertical + y
                let rowBase = buffers[c].storage.baseAddress + (1 + y * size) * p.stride
                var block = plane.values.baseAddress + blockRow * plane.blocksWide * plane.kept
                for x in 0 ..< plane.blocksWide {
                    let out = rowBase + x * size
                    defer { block += plane.kept }
                    if size == 1 && smoothing == nil {
                        out.pointee = InverseDCT.dcSample(block[0], quantizers[0], size: 1)
                        continue
                    }
                    if plane.kept == 64 && smoothing == nil {
                        // Every coefficient kept: the slots are the natural indices 0…63
                        // in order, so the stored block is the transform's input as it
                        // stands, with nothing to gather or clear.
                        // SAFETY: the block holds plane.kept = 64 values.
                        var firstRow: Int16 = 0, below: Int16 = 0
                        for natural in 1 ..< 8 { firstRow |= block[natural] }
                        for natural in 8 ..< 64 { below |= block[natural] }
                        if firstRow | below == 0 {
                            InverseDCT.fill(InverseDCT.dcSample(block[0], quantizers[0], size: size), size: size,
                                            output: out, stride: p.stride)
                        } else {
                            InverseDCT.transform(size: size, UnsafePointer(block), quantizers, output: out,
                                                 stride: p.stride, lanes: scratch.lanes.baseAddress,
                                                 workspace: scratch.workspace.baseAddress, firstRowOnly: below == 0)
                        }
                        continue
                    }
                    for slot in 0 ..< plane.kept { coefficients[plane.positions[slot]] = block[slot] }
                    if let smoothing {
                        smoothing.apply(component: c, plane: plane,
                                        at: .init(mcuRow: mcuRow, rowInMCU: y, column: x),
                                        mcuRows: plan.mcuRows, rowsPerMCU: p.vertical,
                                        coefficients: coefficients)
                    }
                    var anyAC = false, belowFirstRow = false
                    for natural in plane.positions where natural != 0 && coefficients[natural] != 0 {
                        anyAC = true
                        if natural >= 8 { belowFirstRow = true }
                    }
                    if !anyAC {
                        InverseDCT.fill(InverseDCT.dcSample(coefficients[0], quantizers[0], size: size), size: size,
                                        output: out, stride: p.stride)
                    } else {
                        InverseDCT.transform(size: size, coefficients, quantizers, output: out, stride: p.stride,
                                             lanes: scratch.lanes.baseAddress, workspace: scratch.workspace.baseAddress,
                                             firstRowOnly: !belowFirstRow)
                    }
                    for natural in plane.positions { coefficients[natural] = 0 }
                }
            }
        }
    }
}
