import PareCore

/// One scan of a progressive script (T.81 G.1.1): its components (indices into the frame),
/// spectral selection Ss…Se and successive approximation Ah, Al.
struct ProgressiveScan: Equatable {
    var components: [Int]
    var ss: Int
    var se: Int
    var ah: Int
    var al: Int

    /// libjpeg's default script (`jpeg_simple_progression`, what `cjpeg -progressive`
    /// writes): DC first at 1/2 precision, luma's first AC coefficients early, chroma in
    /// few scans, then the refinements, luma's last bit last since it is the largest.
    static func defaultScript(componentCount: Int) -> [ProgressiveScan] {
        if componentCount == 3 {
            let all = [0, 1, 2]
            return [
                ProgressiveScan(components: all, ss: 0, se: 0, ah: 0, al: 1),
                ProgressiveScan(components: [0], ss: 1, se: 5, ah: 0, al: 2),
                ProgressiveScan(components: [2], ss: 1, se: 63, ah: 0, al: 1),
                ProgressiveScan(components: [1], ss: 1, se: 63, ah: 0, al: 1),
                ProgressiveScan(components: [0], ss: 6, se: 63, ah: 0, al: 2),
                ProgressiveScan(components: [0], ss: 1, se: 63, ah: 2, al: 1),
                ProgressiveScan(components: all, ss: 0, se: 0, ah: 1, al: 0),
                ProgressiveScan(components: [2], ss: 1, se: 63, ah: 1, al: 0),
                ProgressiveScan(components: [1], ss: 1, se: 63, ah: 1, al: 0),
                ProgressiveScan(components: [0], ss: 1, se: 63, ah: 1, al: 0),
            ]
        }
        let all = Array(0 ..< componentCount)
        var script = [ProgressiveScan(components: all, ss: 0, se: 0, ah: 0, al: 1)]
        for (ss, se, ah, al) in [(1, 5, 0, 2), (6, 63, 0, 2), (1, 63, 2, 1)] {
            script += all.map { ProgressiveScan(components: [$0], ss: ss, se: se, ah: ah, al: al) }
        }
        script.append(ProgressiveScan(components: all, ss: 0, se: 0, ah: 1, al: 0))
        script += all.map { ProgressiveScan(components: [$0], ss: 1, se: 63, ah: 1, al: 0) }
        return script
    }
}

/// Progressive Huffman coding of one scan (T.81 G.1.2): DC first scans code the difference
/// of the point-transformed DC (G.1.2.1), DC refinements one bit per block; AC first scans
/// code run/size symbols with end-of-band runs EOBn (G.1.2.2, Table G.1), AC refinements
/// code newly non-zero coefficients and append a correction bit for each already non-zero
/// one (G.1.2.3). The same walk counts symbols for the optimal tables (T.81 K.2), so that
/// count and code can never disagree.
struct ProgressiveHuffman<Sink: ByteSink> {
    /// Counting (the statistics pass) or writing.
    let gathering: Bool
    var out: BitWriter<Sink>
    var counts: [SymbolCounts]
    var dcCodes: [HuffmanCodes?]
    var acCodes: [HuffmanCodes?]
    let scan: ProgressiveScan
    /// The AC table of an AC scan's single component.
    let acTable: Int
    var lastDC: [Int32]
    /// Blocks ending in zeros not yet coded (EOBRUN), and the correction bits that belong
    /// to them (BE) followed by those of the current block (BR, from `pendingStart`).
    var eobRun = 0
    var pendingCorrections: [UInt8]
    var pendingCount = 0
    var blockCorrectionsStart = 0
    var blockCorrections = 0

    /// At most this many correction bits wait for their EOB run (as libjpeg: 1000, less
    /// room for one more block).
    static var maxCorrectionBits: Int { 1000 }

    init(gathering: Bool, out: BitWriter<Sink>, scan: ProgressiveScan, acTable: Int, tableCount: Int) {
        self.gathering = gathering
        self.out = out
        self.scan = scan
        self.acTable = acTable
        counts = [SymbolCounts](repeating: SymbolCounts(), count: tableCount)
        dcCodes = [HuffmanCodes?](repeating: nil, count: tableCount)
        acCodes = dcCodes
        lastDC = [Int32](repeating: 0, count: 4)
        pendingCorrections = [UInt8](repeating: 0, count: Self.maxCorrectionBits)
    }

    @inline(__always)
    mutating func symbol(_ value: Int, table: Int, dc: Bool) {
        if gathering {
            counts[table].add(value)
        } else if let codes = dc ? dcCodes[table] : acCodes[table] {
            let entry = codes.entries[value]
            out.write(entry >> 8, length: Int(entry & 0xFF))
        }
    }

    @inline(__always)
    mutating func bits(_ value: UInt32, _ count: Int) {
        if !gathering && count > 0 { out.write(value & ((1 << UInt32(count)) - 1), length: count) }
    }

    mutating func correctionBits(from start: Int, count: Int) {
        guard !gathering else { return }
        for i in start ..< start + count { out.write(UInt32(pendingCorrections[i]), length: 1) }
    }

    /// EOBn for the blocks waiting (Table G.1: n = ⌊log2 EOBRUN⌋, then n low bits), then
    /// their correction bits.
    mutating func flushEOBRun() {
        guard eobRun > 0 else { return }
        let n = Int.bitWidth - 1 - eobRun.leadingZeroBitCount
        symbol(n << 4, table: acTable, dc: false)
        bits(UInt32(eobRun), n)
        eobRun = 0
        correctionBits(from: 0, count: pendingCount)
        pendingCount = 0
    }

    /// Before each restart marker: the pending EOB run, byte alignment, RSTn; then the
    /// predictions (DC) or the EOB run (AC) start again (T.81 G.1.2).
    mutating func restart(_ number: Int) {
        flushEOBRun()
        if !gathering {
            out.alignToByte()
            MarkerWriter.marker(Marker.rst0 + UInt8(number & 7), to: &out)
        }
        if scan.ss == 0 {
            for i in lastDC.indices { lastDC[i] = 0 }
        } else {
            eobRun = 0
            pendingCount = 0
        }
    }

    /// The current block's correction bits, after the symbol they follow; the EOB run's
    /// were written with it, so the buffer starts again at 0.
    mutating func flushBlockCorrections() {
        correctionBits(from: blockCorrectionsStart, count: blockCorrections)
        blockCorrectionsStart = 0
        blockCorrections = 0
    }

    mutating func finishScan() {
        flushEOBRun()
        if !gathering { out.alignToByte() }
    }

    /// G.1.2.1: the DC of component `c` (table `table`) after the point transform.
    mutating func dcFirst(_ block: UnsafePointer<Int16>, component c: Int, table: Int) {
        let value = Int32(block[0]) >> Int32(scan.al)
        let difference = value - lastDC[c]
        lastDC[c] = value
        let size = magnitudeCategory(difference)
        symbol(size, table: table, dc: true)
        bits(additionalBits(difference, size: size), size)
    }

    /// G.1.2.1: the next bit of the DC.
    mutating func dcRefine(_ block: UnsafePointer<Int16>) {
        bits(UInt32(bitPattern: Int32(block[0]) >> Int32(scan.al)) & 1, 1)
    }

    /// Coefficients Ss…Se of `block` in zig-zag order after the point transform (magnitudes
    /// shifted right by Al, so that negative values round toward zero like positive ones):
    /// each non-zero one goes to `body` with its zig-zag position, value, magnitude and the
    /// run of zeros before it, which `body` may shorten or end; returns the run after Se.
    @inline(__always)
    static func forEachNonzero(_ block: UnsafePointer<Int16>, in scan: ProgressiveScan,
                               _ body: (_ k: Int, _ coefficient: Int32, _ magnitude: Int32, _ run: inout Int) -> Void) -> Int {
        var run = 0
        for k in scan.ss ... scan.se {
            let coefficient = Int32(block[ZigZag.naturalOrder[k]])
            let magnitude = (coefficient < 0 ? -coefficient : coefficient) >> Int32(scan.al)
            if magnitude == 0 {
                run += 1
                continue
            }
            body(k, coefficient, magnitude, &run)
        }
        return run
    }

    /// G.1.2.2: the coefficients Ss…Se after the point transform, as run/size symbols and
    /// end-of-band runs.
    mutating func acFirst(_ block: UnsafePointer<Int16>) {
        let run = Self.forEachNonzero(block, in: scan) { _, coefficient, magnitude, run in
            flushEOBRun()
            while run > 15 {
                symbol(0xF0, table: acTable, dc: false)
                run -= 16
            }
            let size = magnitudeCategory(magnitude)
            symbol(run << 4 | size, table: acTable, dc: false)
            bits(UInt32(bitPattern: coefficient < 0 ? ~magnitude : magnitude), size)
            run = 0
        }
        if run > 0 {
            eobRun += 1
            if eobRun == 0x7FFF { flushEOBRun() }
        }
    }

    /// G.1.2.3: a coefficient that becomes non-zero in this bit plane is coded as a run and
    /// a sign; one already non-zero sends its bit as a correction bit, buffered until the
    /// next symbol or the EOB run it falls in.
    mutating func acRefine(_ block: UnsafePointer<Int16>) {
        // The last coefficient that becomes non-zero in this plane: ZRLs are written only before it.
        var lastNew = 0
        _ = Self.forEachNonzero(block, in: scan) { k, _, magnitude, _ in
            if magnitude == 1 { lastNew = k }
        }
        blockCorrectionsStart = pendingCount
        blockCorrections = 0
        let run = Self.forEachNonzero(block, in: scan) { k, coefficient, magnitude, run in
            while run > 15 && k <= lastNew {
                flushEOBRun()
                symbol(0xF0, table: acTable, dc: false)
                run -= 16
                flushBlockCorrections()
            }
            if magnitude > 1 {
                pendingCorrections[blockCorrectionsStart + blockCorrections] = UInt8(magnitude & 1)
                blockCorrections += 1
                return
            }
            flushEOBRun()
            symbol(run << 4 | 1, table: acTable, dc: false)
            bits(coefficient < 0 ? 0 : 1, 1)
            flushBlockCorrections()
            run = 0
        }
        if run > 0 || blockCorrections > 0 {
            eobRun += 1
            pendingCount = blockCorrectionsStart + blockCorrections
            if eobRun == 0x7FFF || pendingCount > Self.maxCorrectionBits - 64 + 1 { flushEOBRun() }
        }
    }
}

extension JPEGEncoder {
    /// Every scan of the default script, each with its own optimal tables (a statistics
    /// pass, then the coding pass), as libjpeg writes progressive files.
    mutating func writeProgressiveScans(_ frame: EncoderFrame, _ state: EncoderState) throws(CoreError) {
        let tableCount = frame.components.count == 1 ? 1 : 2
        var lastRestart = 0
        for scan in ProgressiveScan.defaultScript(componentCount: frame.components.count) {
            let components = scan.components.map { frame.components[$0] }
            let acTable = components[0].huffmanTable
            let interleaved = scan.components.count > 1
            let mcusPerRow = interleaved ? frame.mcusPerRow : frame.widthInBlocks[scan.components[0]]
            let restart = restartInterval(mcusPerRow: mcusPerRow)

            var gather = ProgressiveHuffman(gathering: true, out: writer, scan: scan, acTable: acTable,
                                            tableCount: tableCount)
            progressivePass(&gather, frame, state, restart: restart)
            var dc = [HuffmanTable?](repeating: nil, count: tableCount), ac = dc
            var coder = ProgressiveHuffman(gathering: false, out: writer, scan: scan, acTable: acTable,
                                           tableCount: tableCount)
            for c in components {
                let t = c.huffmanTable
                if scan.ss == 0 {
                    guard scan.ah == 0, dc[t] == nil else { continue }
                    let table = HuffmanTable.optimal(for: gather.counts[t])
                    dc[t] = table
                    coder.dcCodes[t] = try HuffmanCodes(table, ledger: ledger)
                } else if ac[t] == nil {
                    let table = HuffmanTable.optimal(for: gather.counts[t])
                    ac[t] = table
                    coder.acCodes[t] = try HuffmanCodes(table, ledger: ledger)
                }
            }
            writeScanHeader(components, dc: dc, ac: ac, restart: restart, lastRestart: &lastRestart,
                            ss: scan.ss, se: scan.se, ah: scan.ah, al: scan.al)
            coder.out = writer
            progressivePass(&coder, frame, state, restart: restart)
            writer = coder.out
        }
    }

    /// One pass over a scan's blocks: interleaved scans (DC) in MCU order over the whole MCU
    /// grid, single-component scans over the component's own blocks only (T.81 A.2.2).
    func progressivePass(_ coder: inout ProgressiveHuffman<Sink>, _ frame: EncoderFrame, _ state: EncoderState,
                         restart: Int) {
        let scan = coder.scan
        var mcu = 0
        func step(_ coder: inout ProgressiveHuffman<Sink>) {
            if restart > 0 && mcu > 0 && mcu % restart == 0 { coder.restart(mcu / restart - 1) }
            mcu += 1
        }
        if scan.components.count > 1 {
            for row in 0 ..< frame.mcuRows {
                for mcuX in 0 ..< frame.mcusPerRow {
                    step(&coder)
                    for c in scan.components {
                        let component = frame.components[c]
                        for by in 0 ..< component.v {
                            for bx in 0 ..< component.h {
                                let block = state.block(component: c, mcuRow: row, blockRow: by,
                                                        blockX: mcuX * component.h + bx)
                                if scan.ah == 0 {
                                    coder.dcFirst(block, component: c, table: component.huffmanTable)
                                } else {
                                    coder.dcRefine(block)
                                }
                            }
                        }
                    }
                }
            }
        } else {
            let c = scan.components[0], component = frame.components[c]
            for blockY in 0 ..< frame.heightInBlocks[c] {
                for blockX in 0 ..< frame.widthInBlocks[c] {
                    step(&coder)
                    let block = state.block(component: c, mcuRow: blockY / component.v, blockRow: blockY % component.v,
                                            blockX: blockX)
                    switch (scan.ss == 0, scan.ah == 0) {
                    case (true, true): coder.dcFirst(block, component: c, table: component.huffmanTable)
                    case (true, false): coder.dcRefine(block)
                    case (false, true): coder.acFirst(block)
                    case (false, false): coder.acRefine(block)
                    }
                }
            }
        }
        coder.finishScan()
    }
}
