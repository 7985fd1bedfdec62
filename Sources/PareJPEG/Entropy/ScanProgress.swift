import PareCore

/// Where a scan decoder stands in its entropy-coded data, shared by the sequential and the
/// progressive scan decoders: the restart countdown and the resynchronisation at each RSTm
/// (T.81 E.2.4, F.2.2.5, with libjpeg's policy: `RestartSync`), the state of data that ran
/// out (the rest of the restart interval decodes as if its coefficients were zero, as in
/// libjpeg) and the warnings each of these gives once per scan.
struct ScanProgress {
    let scanNumber: Int
    /// Ri, 0 when restarts are off.
    let restartInterval: Int
    /// MCUs left in the current restart interval.
    var restartsToGo: Int
    /// m of the RSTm expected next (T.81 E.1.4: 0…7, modulo 8).
    var nextRestart = 0
    /// The data of the current restart interval has run out.
    var insufficient = false
    var warnedTruncation = false
    var warnedBadCode = false

    init(scanNumber: Int, restartInterval: Int) {
        self.scanNumber = scanNumber
        self.restartInterval = restartInterval
        self.restartsToGo = restartInterval
    }

    /// Before each MCU: ends a restart interval when one is due and notes data that has run
    /// out. True when a new interval begins, where the caller resets what T.81 resets there
    /// (the DC predictors, F.2.1.3.1; EOBRUN, G.1.2.2).
    @inline(__always)
    mutating func startMCU(_ reader: inout BitReader, log: inout WarningLog) throws(JPEGError) -> Bool {
        var restarted = false
        if restartInterval > 0 {
            if restartsToGo == 0 {
                try restart(&reader, log: &log)
                restarted = true
            }
            restartsToGo -= 1
        }
        if !insufficient && reader.isExhausted { try noteExhausted(reader, log: &log) }
        return restarted
    }

    /// The end of a restart interval (T.81 E.2.4): see `RestartSync`. Data that ran out
    /// inside the interval's last MCU is reported like any other. The next interval has data
    /// unless the marker found is not the expected RSTm and the data had already run out.
    @inline(never) // once per restart interval: one copy, not one in every block loop
    mutating func restart(_ reader: inout BitReader, log: inout WarningLog) throws(JPEGError) {
        if !insufficient && reader.isExhausted { try noteExhausted(reader, log: &log) }
        let wasExhausted = insufficient
        try RestartSync.expect(nextRestart, reader: &reader, log: &log)
        nextRestart = (nextRestart + 1) & 7
        restartsToGo = restartInterval
        insufficient = reader.marker != nil && wasExhausted
    }

    /// After the scan's last MCU: reports data that ran out inside it.
    mutating func finish(_ reader: BitReader, log: inout WarningLog) throws(JPEGError) {
        if !insufficient && reader.isExhausted { try noteExhausted(reader, log: &log) }
    }

    @inline(never) // once per scan at most
    mutating func noteExhausted(_ reader: BitReader, log: inout WarningLog) throws(JPEGError) {
        insufficient = true
        if !warnedTruncation {
            warnedTruncation = true
            try log.add(.truncated(scan: scanNumber, offset: reader.markerOffset))
        }
    }

    /// DECODE (T.81 F.2.2.3) with the bit buffer already filled; a pattern that is no code
    /// is read as symbol 0 and reported once per scan.
    @inline(__always)
    mutating func symbol(_ table: HuffmanPointers, _ reader: inout BitReader,
                         log: inout WarningLog) throws(JPEGError) -> Int {
        if let value = reader.decode(table) { return value }
        try badCode(reader, log: &log)
        return 0
    }

    /// Reports a bad code once per scan; `bitsBack`: how far back it starts (see
    /// `BitReader.offset(bitsBack:)`).
    mutating func badCode(_ reader: BitReader, log: inout WarningLog,
                          bitsBack: Int = BitReader.badCodeBits) throws(JPEGError) {
        if !warnedBadCode {
            warnedBadCode = true
            try log.add(.invalidHuffmanCode(scan: scanNumber, offset: reader.offset(bitsBack: bitsBack)))
        }
    }
}

/// The Huffman tables of one scan in decoding form, each built once however many components
/// name it, and kept alive as long as the scan whose units point into them.
struct HuffmanTableCache {
    private(set) var built: [HuffmanDecodingTable] = []
    private var keys: [Int] = []
    /// Whether AC tables get the fast path's parts (`HuffmanDecodingTable(fastPath:)`).
    let fastPath: Bool

    init(fastPath: Bool) {
        self.fastPath = fastPath
    }

    /// The table of class `tableClass` (0 DC, 1 AC) at destination `id`: the one the file
    /// defined, else the T.81 K.3 table a Motion-JPEG frame leaves out. `skips`: a component
    /// decoded at 1/8 scale uses the table, which then needs its `skips` part.
    // Once per component of a scan's set-up: one copy, not one at each call.
    @inline(never)
    mutating func pointers(_ tableClass: Int, _ id: Int, skips: Bool, tables: TableSet, ledger: MemoryLedger,
                           offset: Int) throws(JPEGError) -> HuffmanPointers {
        let key = tableClass * 4 + id
        if let index = keys.firstIndex(of: key) {
            if skips { built[index].buildSkips() }
            return built[index].pointers
        }
        let defined = tableClass == 0 ? tables.dc[id] : tables.ac[id]
        guard let spec = defined ?? HuffmanTable.standard(tableClass: tableClass, id: id) else {
            throw .missingTable(kind: tableClass == 0 ? "DC Huffman" : "AC Huffman", id: id, offset: offset)
        }
        let decoding = try HuffmanDecodingTable(spec, isDC: tableClass == 0, fastPath: fastPath, ledger: ledger,
                                                offset: offset)
        if skips { decoding.buildSkips() }
        keys.append(key)
        built.append(decoding)
        return decoding.pointers
    }
}
