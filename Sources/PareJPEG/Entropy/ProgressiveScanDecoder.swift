import PareCore

/// Decodes one scan of a progressive frame into the `CoefficientStore` (T.81 G.1.2 and
/// G.2): DC first scans (G.1.2.1: DC differences, scaled by 2^Al), DC refinement (one bit per
/// block), AC first scans (G.1.2.2: run/size symbols and end-of-band runs EOBRUN spanning
/// blocks) and AC refinement (G.1.2.3: correction bits for coefficients already nonzero and
/// ±2^Al for newly nonzero ones). Blocks go in MCU order for interleaved DC scans and in
/// raster order over the component's own blocks otherwise (T.81 A.2). Restart intervals and
/// data that ends early are handled as in `ScanDecoder`; blocks a damaged interval cannot reach
/// keep what earlier scans gave them, as in libjpeg.
struct ProgressiveScanDecoder {
    struct Unit {
        let plane: CoefficientStore.Plane
        let dc: HuffmanPointers?
        let ac: HuffmanPointers?
        /// Blocks per MCU in an interleaved scan.
        let horizontal: Int
        /// Blocks per MCU in an interleaved scan; also the component's block rows per MCU
        /// row of the frame, which places a non-interleaved scan's blocks in MCU rows.
        let vertical: Int
        var predictor: Int32 = 0
    }

    var reader: BitReader
    var units: [Unit]
    let header: ScanHeader
    /// Restart intervals, data that runs out, the warnings.
    var progress: ScanProgress
    /// EOBRUN (T.81 G.1.2.2): blocks still to pass over with their band all zero.
    var endOfBandRun = 0
    /// The MCU row of the last MCU begun before the data ran out (libjpeg's
    /// `last_good_iMCU_row`, which `BlockSmoothing` needs).
    private(set) var lastGoodRow = 0
    let tables: [HuffmanDecodingTable]

    init(reader: BitReader, header: ScanHeader, number: Int, restartInterval: Int, units: [Unit],
         tables: [HuffmanDecodingTable]) {
        self.reader = reader
        self.header = header
        self.progress = ScanProgress(scanNumber: number, restartInterval: restartInterval)
        self.units = units
        self.tables = tables
    }

    /// Decodes every MCU of the scan, asking `cancellation` once per MCU row (block row for
    /// a one-component scan). `sharedLoop`: the one loop for both kinds of scan that the
    /// Embedded build runs (`runShared`); the host runs it when a test asks, against the same
    /// pixels (ProgressiveLoopTests).
    mutating func run(mcusPerLine: Int, mcuRows: Int, sharedLoop: Bool = false, cancellation: CancellationCheck,
                      log: inout WarningLog) throws(JPEGError) {
        #if hasFeature(Embedded)
        // Small cores: one loop for both kinds of scan, where code size counts.
        guard try runShared(mcusPerLine: mcusPerLine, mcuRows: mcuRows, cancellation: cancellation, log: &log) else { return }
        #else
        // On the host the one-component loop stays apart: its plane is held in a register
        // through the scan, and the shared loop costs half as many instructions again at 1/8.
        if sharedLoop {
            guard try runShared(mcusPerLine: mcusPerLine, mcuRows: mcuRows, cancellation: cancellation, log: &log) else { return }
        } else if units.count == 1 {
            let plane = units[0].plane, vertical = units[0].vertical
            for row in 0 ..< plane.codedHigh {
                if cancellation.isCancelled { throw .core(.cancelled) }
                let goodRow = row / vertical, first = row * plane.blocksWide
                for column in 0 ..< plane.codedWide {
                    guard try startMCU(log: &log) else { return }
                    if progress.insufficient { continue }
                    lastGoodRow = goodRow
                    try decodeBlock(0, plane, plane.values.baseAddress + (first + column) * plane.kept,
                                    index: first + column, log: &log)
                }
            }
        } else {
            for mcuRow in 0 ..< mcuRows {
                if cancellation.isCancelled { throw .core(.cancelled) }
                for mcu in 0 ..< mcusPerLine {
                    guard try startMCU(log: &log) else { return }
                    if progress.insufficient { continue }
                    lastGoodRow = mcuRow
                    for u in 0 ..< units.count {
                        let plane = units[u].plane
                        for y in 0 ..< units[u].vertical {
                            let row = mcuRow * units[u].vertical + y
                            for x in 0 ..< units[u].horizontal {
                                let index = row * plane.blocksWide + mcu * units[u].horizontal + x
                                try decodeBlock(u, plane, plane.values.baseAddress + index * plane.kept, index: index,
                                                log: &log)
                            }
                        }
                    }
                }
            }
        }
        #endif
        try progress.finish(reader, log: &log)
    }

    /// The loop for both kinds of scan. A scan of one component is an MCU a block over the
    /// component's own blocks (T.81 A.2.2); its MCU row then is a block row, of which the
    /// frame's MCU row holds `vertical`. False when the data ended first (`run` then returns
    /// without finishing the scan, as its own loops do).
    private mutating func runShared(mcusPerLine: Int, mcuRows: Int, cancellation: CancellationCheck,
                                    log: inout WarningLog) throws(JPEGError) -> Bool {
        let single = units.count == 1
        let rows = single ? units[0].plane.codedHigh : mcuRows
        let columns = single ? units[0].plane.codedWide : mcusPerLine
        for mcuRow in 0 ..< rows {
            if cancellation.isCancelled { throw .core(.cancelled) }
            for mcu in 0 ..< columns {
                guard try startMCU(log: &log) else { return false }
                if progress.insufficient { continue }
                lastGoodRow = single ? mcuRow / units[0].vertical : mcuRow
                for u in 0 ..< units.count {
                    let plane = units[u].plane
                    let horizontal = single ? 1 : units[u].horizontal, vertical = single ? 1 : units[u].vertical
                    for y in 0 ..< vertical {
                        let row = mcuRow * vertical + y
                        for x in 0 ..< horizontal {
                            let index = row * plane.blocksWide + mcu * horizontal + x
                            try decodeBlock(u, plane, plane.values.baseAddress + index * plane.kept, index: index,
                                            log: &log)
                        }
                    }
                }
            }
        }
        return true
    }

    /// Restart handling and end-of-data checks before an MCU. False once nothing more of the
    /// scan can be decoded (the data ended and no restart marker can follow).
    mutating func startMCU(log: inout WarningLog) throws(JPEGError) -> Bool {
        if try progress.startMCU(&reader, log: &log) {
            for i in 0 ..< units.count { units[i].predictor = 0 }
            endOfBandRun = 0
        }
        // With no restart marker ahead, every later MCU would be skipped too.
        return !progress.insufficient || (progress.restartInterval > 0 && reader.marker.map(Marker.isRestart) == true)
    }

    @inline(__always)
    mutating func symbol(_ table: HuffmanPointers, log: inout WarningLog) throws(JPEGError) -> Int {
        if reader.count < 32 { try reader.refill() }
        return try progress.symbol(table, &reader, log: &log)
    }

    /// `n` (0…16) bits as an unsigned number.
    @inline(__always)
    mutating func bits(_ n: Int) throws(JPEGError) -> Int {
        guard n > 0 else { return 0 }
        if reader.count < n { try reader.refill() }
        let value = reader.peek(n)
        reader.skip(n)
        return value
    }

    @inline(__always)
    mutating func decodeBlock(_ u: Int, _ plane: CoefficientStore.Plane, _ block: UnsafeMutablePointer<Int16>,
                              index: Int, log: inout WarningLog) throws(JPEGError) {
        let al = header.band.approximationLow
        if header.band.spectralStart == 0 {
            if header.band.approximationHigh == 0 {
                // T.81 G.1.2.1: the DC difference as in F.2.2.1, scaled by 2^Al.
                let category = try symbol(units[u].dc!, log: &log)
                if reader.count < category { try reader.refill() }
                let difference = category == 0 ? 0 : reader.receiveExtend(category)
                units[u].predictor = units[u].predictor &+ Int32(truncatingIfNeeded: difference)
                block[0] = Int16(truncatingIfNeeded: units[u].predictor &<< Int32(al))
            } else if try bits(1) != 0 {
                block[0] |= Int16(truncatingIfNeeded: 1 << al)
            }
            return
        }
        let nonzero = plane.nonzero.map { $0.baseAddress + index }
        if header.band.approximationHigh == 0 {
            try decodeFirstAC(block, plane: plane, nonzero: nonzero, log: &log)
        } else {
            try refineAC(block, plane: plane, nonzero: nonzero, log: &log)
        }
    }

    /// T.81 G.1.2.2: one block of an AC first scan.
    mutating func decodeFirstAC(_ block: UnsafeMutablePointer<Int16>, plane: CoefficientStore.Plane,
                                nonzero: UnsafeMutablePointer<UInt64>?, log: inout WarningLog) throws(JPEGError) {
        if endOfBandRun > 0 {
            endOfBandRun -= 1
            return
        }
        let ac = units[0].ac!, slots = plane.slots.baseAddress
        let se = header.band.spectralEnd, al = Int32(header.band.approximationLow)
        var k = header.band.spectralStart
        while k <= se {
            let rs = try symbol(ac, log: &log)
            let run = rs >> 4, size = rs & 15
            if size != 0 {
                k += run
                if reader.count < size { try reader.refill() }
                let value = Int16(truncatingIfNeeded: Int32(truncatingIfNeeded: reader.receiveExtend(size)) &<< al)
                let slot = Int(slots[k])
                if slot >= 0 {
                    block[slot] = value
                } else if let nonzero, value != 0 {
                    nonzero.pointee |= 1 &<< UInt64(min(k, 63))
                }
                k += 1
            } else if run == 15 {
                k += 16
            } else {
                endOfBandRun = (1 << run) + (try bits(run)) - 1
                break
            }
        }
    }

    /// T.81 G.1.2.3: one block of an AC refinement scan. Coefficients already nonzero get a
    /// correction bit each as the band is walked; a run counts only zero coefficients, and
    /// ends at the one that becomes ±2^Al.
    mutating func refineAC(_ block: UnsafeMutablePointer<Int16>, plane: CoefficientStore.Plane,
                           nonzero: UnsafeMutablePointer<UInt64>?, log: inout WarningLog) throws(JPEGError) {
        let ac = units[0].ac!, slots = plane.slots.baseAddress
        let se = header.band.spectralEnd
        let p1 = Int16(truncatingIfNeeded: 1 << header.band.approximationLow)
        let m1 = Int16(truncatingIfNeeded: -1 << header.band.approximationLow)
        @inline(__always) func isNonzero(_ k: Int) -> Bool {
            let slot = Int(slots[k])
            if slot >= 0 { return block[slot] != 0 }
            guard let nonzero else { return false }
            return nonzero.pointee & (1 &<< UInt64(min(k, 63))) != 0
        }
        // A correction bit: 1 means the magnitude grows by 2^Al (unless that bit is already set).
        @inline(__always) func correct(_ k: Int) {
            let slot = Int(slots[k])
            guard slot >= 0 else { return }
            let coefficient = block[slot]
            if coefficient & p1 == 0 { block[slot] = coefficient &+ (coefficient >= 0 ? p1 : m1) }
        }
        var k = header.band.spectralStart
        if endOfBandRun == 0 {
            while k <= se {
                let rs = try symbol(ac, log: &log)
                var run = rs >> 4
                let size = rs & 15
                var newValue: Int16 = 0
                if size != 0 {
                    // Size must be 1 here; libjpeg warns and reads it as 1.
                    if size != 1 { try progress.badCode(reader, log: &log, bitsBack: 0) }
                    newValue = try bits(1) != 0 ? p1 : m1
                } else if run != 15 {
                    endOfBandRun = (1 << run) + (try bits(run))
                    break
                }
                repeat {
                    if isNonzero(k) {
                        if try bits(1) != 0 { correct(k) }
                    } else {
                        run -= 1
                        if run < 0 { break }
                    }
                    k += 1
                } while k <= se
                if newValue != 0 {
                    let slot = Int(slots[k])
                    if slot >= 0 {
                        block[slot] = newValue
                    } else if let nonzero {
                        nonzero.pointee |= 1 &<< UInt64(min(k, 63))
                    }
                }
                k += 1
            }
        }
        if endOfBandRun > 0 {
            while k <= se {
                if isNonzero(k), try bits(1) != 0 { correct(k) }
                k += 1
            }
            endOfBandRun -= 1
        }
    }
}
