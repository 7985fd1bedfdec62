import PareCore

/// Warnings collected during a decode, capped, or thrown at once in strict mode.
struct WarningLog {
    var warnings: [JPEGWarning] = []
    var dropped = 0
    let strict: Bool
    let limit: Int

    mutating func add(_ warning: JPEGWarning) throws(JPEGError) {
        if strict { throw .strict(warning) }
        if warnings.count < limit { warnings.append(warning) } else { dropped += 1 }
    }
}

/// One component as a scan decodes it: its tables (as raw pointers into buffers the decoder
/// keeps alive), its IDCT size and where its blocks go.
struct ScanUnit {
    var dc: HuffmanPointers
    var ac: HuffmanPointers
    /// Quantisers in natural order.
    var quantizers: UnsafePointer<Int32>
    /// Zig-zag index k (0…79, past 63 for runs that overshoot) → natural index of a
    /// coefficient the IDCT reads, or 64 (a scratch slot) for one the reduced IDCT does not use.
    var keep: UnsafePointer<Int32>
    var blockSize: Int
    /// Blocks per MCU (1×1 in a non-interleaved scan).
    var horizontal: Int
    var vertical: Int
    var plane: UnsafeMutablePointer<UInt8>
    var stride: Int
    /// The buffer row where the current MCU row's first sample row goes.
    var rowStart = 0
    /// PRED, the DC predictor (T.81 F.2.1.3.1).
    var predictor: Int32 = 0
}

/// Decodes the MCUs of one scan (T.81 F.2.2, Figures F.12–F.16 for the coefficients of a
/// block; A.2 for the order of blocks in an MCU) and writes each block, through the inverse
/// DCT, into its component's sample buffer. Handles restart intervals (T.81 F.2.2.5, E.2.4)
/// with libjpeg's resynchronisation policy, and data that ends early.
struct ScanDecoder {
    var reader: BitReader
    var units: [ScanUnit]
    let scanNumber: Int
    let restartInterval: Int
    var restartsToGo: Int
    var nextRestart = 0
    /// 65 coefficients: a natural-order block plus the scratch slot; kept all zero between blocks.
    let coefficients: UnsafeMutablePointer<Int16>
    let workspace: UnsafeMutablePointer<Int32>
    let lanes: UnsafeMutablePointer<InverseDCT.Lanes>
    /// Set once the data of the current restart interval has run out: its remaining MCUs
    /// come out flat (mid-gray), as in libjpeg.
    var insufficient = false
    var warnedTruncation = false
    var warnedBadCode = false
    /// MCUs whose blocks were entropy decoded (not filled flat), for the decoder's `decodedMCUs`.
    var decodedMCUs = 0
    /// Whether every block of the last `decodeRow` came out flat.
    var lastRowWasFlat = false
    /// The buffers the units' pointers point into, kept alive as long as the scan.
    let scratch: ScanScratch
    let quantizerBuffers: [LedgerBuffer<Int32>]
    let huffmanTables: [HuffmanDecodingTable]

    init(reader: BitReader, units: [ScanUnit], scanNumber: Int, restartInterval: Int, scratch: ScanScratch,
         quantizerBuffers: [LedgerBuffer<Int32>], huffmanTables: [HuffmanDecodingTable]) {
        self.reader = reader
        self.units = units
        self.scanNumber = scanNumber
        self.restartInterval = restartInterval
        self.restartsToGo = restartInterval
        self.scratch = scratch
        self.coefficients = scratch.coefficients.baseAddress
        self.workspace = scratch.workspace.baseAddress
        self.lanes = scratch.lanes.baseAddress
        self.quantizerBuffers = quantizerBuffers
        self.huffmanTables = huffmanTables
    }

    /// True once the data has run out for the rest of the scan: the marker that ended it is
    /// neither a restart marker the scan could resume at (T.81 E.2.4) nor one below 0xC0,
    /// past which `RestartSync` would search on, so every block still to come is flat (libjpeg
    /// leaves them zero, mid-gray after the IDCT). The decoder then stops calling `decodeRow`.
    var isSpent: Bool {
        guard insufficient else { return false }
        guard restartInterval > 0 else { return true }
        guard let marker = reader.marker else { return false }
        return marker >= 0xC0 && !Marker.isRestart(marker)
    }

    /// Decodes the MCUs `first ..< columns` of one MCU row into the units' buffers at their
    /// `rowStart`. A band decode starts mid-row, where a restart interval begins.
    mutating func decodeRow(columns: Int, from first: Int = 0, log: inout WarningLog) throws(JPEGError) {
        let decodedBefore = decodedMCUs
        defer { lastRowWasFlat = decodedMCUs == decodedBefore }
        for column in first ..< max(first, columns) {
            if restartInterval > 0 {
                if restartsToGo == 0 { try processRestart(log: &log) }
                restartsToGo -= 1
            }
            if !insufficient {
                if reader.isExhausted { try noteExhausted(log: &log) } else { decodedMCUs &+= 1 }
            }
            for i in 0 ..< units.count {
                var unit = units[i]
                let size = unit.blockSize
                var row = unit.plane + unit.rowStart * unit.stride + column * unit.horizontal * size
                for _ in 0 ..< unit.vertical {
                    var block = row
                    for _ in 0 ..< unit.horizontal {
                        if insufficient {
                            InverseDCT.fill(128, size: size, output: block, stride: unit.stride)
                        } else {
                            try decodeBlock(&unit, into: block, log: &log)
                        }
                        block += size
                    }
                    row += size * unit.stride
                }
                units[i].predictor = unit.predictor
            }
        }
    }

    /// To be called after the last MCU: reports data that ran out inside it.
    mutating func finish(log: inout WarningLog) throws(JPEGError) {
        if !insufficient && reader.isExhausted { try noteExhausted(log: &log) }
    }

    mutating func noteExhausted(log: inout WarningLog) throws(JPEGError) {
        insufficient = true
        if !warnedTruncation {
            warnedTruncation = true
            try log.add(.truncated(scan: scanNumber, offset: reader.markerOffset))
        }
    }

    @inline(__always)
    mutating func symbol(_ table: HuffmanPointers, log: inout WarningLog) throws(JPEGError) -> Int {
        if let value = reader.decode(table) { return value }
        if !warnedBadCode {
            warnedBadCode = true
            try log.add(.invalidHuffmanCode(scan: scanNumber, offset: reader.stream.position))
        }
        return 0
    }

    /// One block: the DC difference and the AC run/size pairs (T.81 F.2.2.1, F.2.2.2).
    /// Coefficients the unit's reduced IDCT does not use are read and dropped; at size 1 the AC
    /// values are skipped without being extended or stored.
    @inline(__always)
    mutating func decodeBlock(_ unit: inout ScanUnit, into output: UnsafeMutablePointer<UInt8>,
                              log: inout WarningLog) throws(JPEGError) {
        try reader.ensure(32)
        let category = try symbol(unit.dc, log: &log)
        let difference = category == 0 ? 0 : reader.receiveExtend(category)
        unit.predictor = unit.predictor &+ Int32(truncatingIfNeeded: difference)
        let dc = Int16(truncatingIfNeeded: unit.predictor)
        // The bit buffer lives in locals through the AC loop so that it stays in registers.
        let ac = unit.ac, fast = ac.coefficients
        let storing = unit.blockSize != 1
        let coefficients = self.coefficients, keep = unit.keep
        var stored = false, belowFirstRow = false
        var k = 1
        var buffer = reader.buffer, count = reader.count
        while k < 64 {
            if count < 32 && !(reader.marker == nil && reader.stream.loadPlainBytes(into: &buffer, count: &count)) {
                reader.buffer = buffer
                reader.count = count
                try reader.refill()
                buffer = reader.buffer
                count = reader.count
            }
            let lookahead = Int(truncatingIfNeeded: buffer &>> UInt64(64 - HuffmanDecodingTable.lookaheadBits))
            if !storing {
                // Only the bit count matters: several codes at once while they stay inside
                // the block, else one code length plus the size of its value.
                let skip = Int(ac.skips[Int(truncatingIfNeeded: buffer &>> UInt64(64 - HuffmanDecodingTable.skipBits))])
                let skipped = skip & 31
                if skipped != 0 {
                    let positions = skip &>> 8
                    if skip & 0x20 != 0 {
                        if k + positions < 64 {
                            buffer = buffer &<< UInt64(skipped)
                            count &-= skipped
                            break
                        }
                    } else if k + positions <= 64 {
                        buffer = buffer &<< UInt64(skipped)
                        count &-= skipped
                        k += positions
                        continue
                    }
                }
                let code = Int(ac.base[lookahead])
                if code != 0 {
                    let rs = code & 0xFF, size = rs & 15
                    let used = (code &>> 8) + size
                    buffer = buffer &<< UInt64(used)
                    count &-= used
                    if size != 0 {
                        k += (rs >> 4) + 1
                    } else {
                        if rs >> 4 != 15 { break }
                        k += 16
                    }
                    continue
                }
            }
            let entry = Int(fast[lookahead])
            let run: Int, value: Int, isCoefficient: Bool
            if entry != 0 {
                let used = entry & 31
                buffer = buffer &<< UInt64(used)
                count &-= used
                run = (entry &>> 8) & 15
                isCoefficient = entry & 0x1000 != 0
                value = entry &>> 16
            } else {
                reader.buffer = buffer
                reader.count = count
                let rs = try symbol(ac, log: &log)
                let size = rs & 15
                run = rs >> 4
                isCoefficient = size != 0
                value = isCoefficient && storing ? reader.receiveExtend(size) : 0
                if isCoefficient && !storing { reader.skip(size) }
                buffer = reader.buffer
                count = reader.count
            }
            if isCoefficient {
                k += run
                if storing {
                    let index = Int(keep[k])
                    coefficients[index] = Int16(truncatingIfNeeded: value)
                    stored = stored || index < 64
                    belowFirstRow = belowFirstRow || (index >= 8 && index < 64)
                }
                k += 1
            } else {
                if run != 15 { break }
                k += 16
            }
        }
        reader.buffer = buffer
        reader.count = count
        if !storing {
            output.pointee = InverseDCT.dcSample(dc, unit.quantizers[0], size: 1)
            return
        }
        let size = unit.blockSize
        if !stored {
            InverseDCT.fill(InverseDCT.dcSample(dc, unit.quantizers[0], size: size), size: size, output: output, stride: unit.stride)
            return
        }
        coefficients[0] = dc
        switch size {
        case 8:
            InverseDCT.transform8(coefficients, unit.quantizers, output: output, stride: unit.stride,
                                  workspace: lanes, firstRowOnly: !belowFirstRow)
        case 4:
            InverseDCT.transform4(coefficients, unit.quantizers, output: output, stride: unit.stride,
                                  workspace: workspace)
        default:
            InverseDCT.transform2(coefficients, unit.quantizers, output: output, stride: unit.stride,
                                  workspace: workspace)
        }
        coefficients.update(repeating: 0, count: 64)
    }

    /// End of a restart interval (T.81 E.2.4): see `RestartSync`; the DC predictors reset.
    mutating func processRestart(log: inout WarningLog) throws(JPEGError) {
        // Data that ran out inside the interval's last MCU is reported like any other.
        if !insufficient && reader.isExhausted { try noteExhausted(log: &log) }
        let wasExhausted = insufficient
        try RestartSync.expect(nextRestart, reader: &reader, log: &log)
        nextRestart = (nextRestart + 1) & 7
        restartsToGo = restartInterval
        for i in 0 ..< units.count { units[i].predictor = 0 }
        insufficient = reader.marker != nil && wasExhausted
    }
}

/// The marker at the end of a restart interval (T.81 E.2.4), shared by the sequential and
/// progressive scan decoders.
enum RestartSync {
    /// Drops the padding bits and expects RSTn with n = `next` (the modulo-8 sequence). A
    /// wrong marker is handled as libjpeg's jpeg_resync_to_restart does: a restart one or two
    /// ahead, or any other marker, is left for later (the interval decodes as flat blocks);
    /// one or two behind means stray data, so scan on to the next marker; anything else is
    /// taken as the expected one.
    static func expect(_ next: Int, reader: inout BitReader, log: inout WarningLog) throws(JPEGError) {
        reader.discardBits()
        let expected = Marker.rst0 + UInt8(next)
        var found: UInt8, offset: Int
        if let marker = reader.marker {
            found = marker
            offset = reader.markerOffset
        } else {
            (found, offset) = try nextMarker(&reader, log: &log)
        }
        if found == expected {
            reader.marker = nil
            return
        }
        try log.add(.restartResync(expected: expected, found: found, offset: offset))
        while true {
            let ahead1 = Marker.rst0 + UInt8((next + 1) & 7), ahead2 = Marker.rst0 + UInt8((next + 2) & 7)
            let behind1 = Marker.rst0 + UInt8((next + 7) & 7), behind2 = Marker.rst0 + UInt8((next + 6) & 7)
            if found < 0xC0 || found == behind1 || found == behind2 {
                (found, offset) = try nextMarker(&reader, log: &log)
            } else if !Marker.isRestart(found) || found == ahead1 || found == ahead2 {
                reader.marker = found
                reader.markerOffset = offset
                return
            } else {
                reader.marker = nil
                return
            }
        }
    }

    /// The next marker in the stream (after the bit reader's position), EOI at the end.
    static func nextMarker(_ reader: inout BitReader, log: inout WarningLog) throws(JPEGError) -> (UInt8, Int) {
        guard let marker = try MarkerReader.next(&reader.stream) else {
            return (Marker.eoi, reader.stream.position)
        }
        if marker.discarded > 0 {
            try log.add(.extraneousBytes(count: marker.discarded, marker: marker.code, offset: marker.offset))
        }
        return (marker.code, marker.offset)
    }
}

/// Working memory of the block decoder, allocated once per decode.
final class ScanScratch {
    /// One block of coefficients in natural order, plus a scratch slot at 64.
    let coefficients: LedgerBuffer<Int16>
    /// The IDCT's intermediate 8×8 values: scalar for the reduced transforms, lanes for the full one.
    let workspace: LedgerBuffer<Int32>
    let lanes: LedgerBuffer<InverseDCT.Lanes>
    /// For each IDCT size 8, 4, 2 (rows 0, 1, 2): zig-zag index → natural index if the
    /// reduced transform reads that coefficient, else 64. Indices 64…79 stand for runs past the block's end, which libjpeg
    /// lands on coefficient 63.
    let keep: LedgerBuffer<Int32>

    init(ledger: MemoryLedger) throws(JPEGError) {
        coefficients = try core { () throws(CoreError) in try ledger.allocate(Int16.self, count: 65, initialValue: 0) }
        workspace = try core { () throws(CoreError) in try ledger.allocate(Int32.self, count: 64, initialValue: 0) }
        lanes = try core { () throws(CoreError) in
            try ledger.allocate(InverseDCT.Lanes.self, count: 8, initialValue: InverseDCT.Lanes(repeating: 0))
        }
        keep = try core { () throws(CoreError) in try ledger.allocate(Int32.self, count: 3 * 80, initialValue: 64) }
        let order = ZigZag.naturalOrder
        // Frequencies each transform reads, per axis (see InverseDCT.transform4/transform2).
        let used: [[Bool]] = [[true, true, true, true, true, true, true, true],
                              [true, true, true, true, false, true, true, true],
                              [true, true, false, true, false, true, false, true]]
        for row in 0 ..< 3 {
            for k in 0 ..< 80 {
                let natural = k < 64 ? order[k] : 63
                if used[row][natural & 7] && used[row][natural >> 3] { keep[row * 80 + k] = Int32(natural) }
            }
        }
    }

    func keepMap(blockSize: Int) -> UnsafePointer<Int32> {
        let row = blockSize == 8 ? 0 : (blockSize == 4 ? 1 : 2)
        return UnsafePointer(keep.baseAddress + row * 80)
    }
}
