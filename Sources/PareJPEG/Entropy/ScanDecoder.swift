@_spi(Codec) import PareCore

/// The block decoders of `ScanDecoder`.
enum EntropyPath: Sendable {
    case automatic, plain, fast
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
    /// Restart intervals, data that runs out, the warnings.
    var progress: ScanProgress
    /// 65 coefficients: a natural-order block plus the scratch slot; kept all zero between blocks.
    let coefficients: UnsafeMutablePointer<Int16>
    let workspace: UnsafeMutablePointer<Int32>
    let lanes: UnsafeMutablePointer<InverseDCT.Lanes>
    /// Where the blocks' records go when the transforms are deferred to another thread
    /// (`JPEGDecoder.decodePipelined`); nil in a decode that transforms each block at once.
    /// A reference, so that `reconstruct` stays non-mutating and the serial path pays one
    /// test a block for it. Unmanaged: the decode that sets it keeps the cursor alive until
    /// the scan is done (`withExtendedLifetime`), and a counted reference cost the recording
    /// thread a retain and a release a block, a fifth of its time at 1/8.
    var deferral: Unmanaged<DeferredBlocks.Cursor>?
    /// MCUs whose blocks were entropy decoded (not filled flat), for the decoder's `decodedMCUs`.
    var decodedMCUs = 0
    /// Whether every block of the last `decodeRow` came out flat.
    var lastRowWasFlat = false
    /// Which block decoder runs: `automatic` chooses per MCU (see `decodeRow`); a test forces
    /// one or the other to check that they agree.
    var path = EntropyPath.automatic
    /// With a forced `path`, a digest of every decoded block's coefficients.
    var coefficientDigest: UInt64 = 0xCBF2_9CE4_8422_2325
    /// The bytes the fast path wants in the window before an MCU: 512 a block, libjpeg-turbo's
    /// bound (63 codes of 16 bits with 16-bit values, every byte possibly stuffed).
    let fastPathBytes: Int

    static func fastPathBytes(blocksPerMCU: Int) -> Int { 512 * blocksPerMCU }

    /// True when an input window of `capacity` bytes can ever hold `fastPathBytes`: only then
    /// are the AC tables' fast-path parts worth building (`HuffmanDecodingTable(fastPath:)`).
    /// Under Embedded never: a small core's firmware keeps only the plain path (see `decodeRow`).
    static func canTakeFastPath(blocksPerMCU: Int, capacity: Int) -> Bool {
        #if hasFeature(Embedded)
        false
        #else
        fastPathBytes(blocksPerMCU: blocksPerMCU) <= capacity
        #endif
    }
    /// The buffers the units' pointers point into, kept alive as long as the scan.
    let scratch: ScanScratch
    let quantizerBuffers: [LedgerBuffer<Int32>]
    let huffmanTables: [HuffmanDecodingTable]

    init(reader: BitReader, units: [ScanUnit], scanNumber: Int, restartInterval: Int, scratch: ScanScratch,
         quantizerBuffers: [LedgerBuffer<Int32>], huffmanTables: [HuffmanDecodingTable]) {
        self.reader = reader
        self.units = units
        self.progress = ScanProgress(scanNumber: scanNumber, restartInterval: restartInterval)
        self.fastPathBytes = Self.fastPathBytes(blocksPerMCU: units.reduce(0) { $0 + $1.horizontal * $1.vertical })
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
        guard progress.insufficient else { return false }
        guard progress.restartInterval > 0 else { return true }
        guard let marker = reader.marker else { return false }
        return marker >= 0xC0 && !Marker.isRestart(marker)
    }

    /// Decodes the MCUs `first ..< columns` of one MCU row into the units' buffers at their
    /// `rowStart`. A band decode starts mid-row, where a restart interval begins.
    ///
    /// Each MCU takes the fast path (`decodeBlockFast`) when the window holds enough bytes for
    /// its worst case and no marker has ended the data, else the plain one (`decodeBlock`),
    /// as libjpeg-turbo chooses between decode_mcu_fast and decode_mcu_slow. Both consume the
    /// same bits and give the same coefficients.
    // Once per MCU row, from three places in `JPEGDecoder`: where code size counts more than
    // a call per row, one copy.
    #if hasFeature(Embedded)
    @inline(never)
    #endif
    mutating func decodeRow(columns: Int, from first: Int, log: inout WarningLog) throws(JPEGError) {
        let decodedBefore = decodedMCUs
        defer { lastRowWasFlat = decodedMCUs == decodedBefore }
        for column in first ..< max(first, columns) {
            if try progress.startMCU(&reader, log: &log) {
                for i in 0 ..< units.count { units[i].predictor = 0 }
            }
            // The rest of an interval whose data ran out comes out flat (mid-gray), as in libjpeg.
            if progress.insufficient {
                fillMCU(column: column)
                continue
            }
            decodedMCUs &+= 1
            #if hasFeature(Embedded)
            // Small cores keep only the plain path: the fast one is about 3 KB of inlined code
            // and its tables 18 KB of RAM an AC table, more than such a board gives a decoder.
            // Both give the same coefficients (StageTests), so the output is the host's.
            try decodeMCUPlain(column: column, log: &log)
            #else
            // A forced fast path too needs the AC tables' fast-path parts (built only when the
            // window can hold `fastPathBytes`).
            var fast = path == .fast && fastPathBytes <= reader.stream.capacity
            if path == .automatic, reader.marker == nil { fast = try reader.stream.hasAhead(fastPathBytes) }
            guard fast else {
                try decodeMCUPlain(column: column, log: &log)
                continue
            }
            // The blocks in the order of T.81 A.2.3. The bit buffer and the input cursor stay
            // in `bits` from block to block and go back to `reader` after the MCU.
            var bits = FastBits(reader: &reader)
            for i in 0 ..< units.count {
                var unit = units[i]
                let size = unit.blockSize
                // The unit's rows and columns lie inside its plane (`JPEGDecoder`'s buffers).
                var row = unit.plane + (unit.rowStart &* unit.stride &+ column &* unit.horizontal &* size)
                for _ in 0 ..< unit.vertical {
                    var block = row
                    for _ in 0 ..< unit.horizontal {
                        try decodeBlockFast(&unit, into: block, bits: &bits, log: &log)
                        block += size
                    }
                    row += size &* unit.stride
                }
                units[i].predictor = unit.predictor
            }
            bits.store(to: &reader)
            #endif
        }
    }

    /// One MCU through the plain path: its blocks in the order of T.81 A.2.3, each decoded
    /// (`decodeBlock`) and reconstructed.
    @inline(never)
    mutating func decodeMCUPlain(column: Int, log: inout WarningLog) throws(JPEGError) {
        for i in 0 ..< units.count {
            for v in 0 ..< units[i].vertical {
                for h in 0 ..< units[i].horizontal {
                    var unit = units[i]
                    let size = unit.blockSize
                    let block = unit.plane + (unit.rowStart + v * size) * unit.stride
                        + (column * unit.horizontal + h) * size
                    let decoded = try decodeBlock(&unit, log: &log)
                    #if !hasFeature(Embedded)
                    // The digest compares the plain path with the fast one, which small cores
                    // do not have (see `decodeRow`).
                    if path != .automatic { fold(decoded, unit) }
                    #endif
                    reconstruct(decoded, unit, into: block)
                    units[i].predictor = unit.predictor
                }
            }
        }
    }

    /// An MCU of a restart interval whose data ran out: flat blocks, mid-gray (as libjpeg
    /// leaves their coefficients zero).
    mutating func fillMCU(column: Int) {
        if let deferral {
            for unit in units {
                for _ in 0 ..< unit.horizontal * unit.vertical {
                    deferral._withUnsafeGuaranteedRef { $0.recordFlat(blockSize: unit.blockSize) }
                }
            }
            return
        }
        Self.forEachBlock(ofMCU: column, units: units) { unit, block in
            InverseDCT.fill(128, size: unit.blockSize, output: block, stride: unit.stride)
        }
    }

    /// Visits the blocks of MCU `column` of the current MCU row in the order of T.81 A.2.3
    /// (component by component, each unit's blocks row by row), with where each one's samples
    /// go in its unit's plane (at the unit's `rowStart`).
    @inline(__always)
    static func forEachBlock(ofMCU column: Int, units: [ScanUnit],
                             _ body: (ScanUnit, UnsafeMutablePointer<UInt8>) -> Void) {
        for unit in units {
            let size = unit.blockSize
            // The unit's rows and columns lie inside its plane (`JPEGDecoder`'s buffers).
            var row = unit.plane + unit.rowStart * unit.stride + column * unit.horizontal * size
            for _ in 0 ..< unit.vertical {
                var block = row
                for _ in 0 ..< unit.horizontal {
                    body(unit, block)
                    block += size
                }
                row += size * unit.stride
            }
        }
    }

    /// To be called after the last MCU: reports data that ran out inside it.
    mutating func finish(log: inout WarningLog) throws(JPEGError) {
        try progress.finish(reader, log: &log)
    }

    @inline(__always)
    mutating func symbol(_ table: HuffmanPointers, log: inout WarningLog) throws(JPEGError) -> Int {
        try progress.symbol(table, &reader, log: &log)
    }

    /// What the entropy decoding of one block leaves for `reconstruct`: the coefficients
    /// themselves are in `coefficients` (natural order), the DC value in the unit's predictor.
    struct DecodedBlock {
        /// Some coefficient the unit's IDCT reads, other than DC, is nonzero.
        var stored = false
        /// Some such coefficient lies below the block's first row.
        var belowFirstRow = false
    }

    /// The plain path: one block as T.81 F.2.2.1 and F.2.2.2 describe it. The DC difference
    /// (Figure F.12) is DECODE (Figure F.16) of a category T, then RECEIVE(T) bits made
    /// signed by EXTEND; it is added to the predictor. Then decode_AC_coefficients (Figure
    /// F.13): each DECODE gives RS = RRRR·16 + SSSS; SSSS = 0 is EOB, or ZRL (sixteen zero
    /// coefficients) when RRRR = 15; otherwise RRRR zero coefficients are passed and ZZ(K) is
    /// EXTEND(RECEIVE(SSSS)) (Figure F.14). ZZ(K) goes to its natural position (T.81 A.3.6,
    /// Figure A.6) through the unit's `keep` map, which sends the coefficients a reduced IDCT
    /// does not read to a scratch slot; a run past coefficient 63 lands on 63, as in libjpeg.
    /// At 1/8 scale only the DC value is used and the AC values are read to pass over them.
    ///
    /// The bit buffer is refilled, when it holds under 32 bits, before the DC code and before
    /// each AC code, as `decodeBlockFast` does, so that both read the input alike.
    @inline(never)
    mutating func decodeBlock(_ unit: inout ScanUnit, log: inout WarningLog) throws(JPEGError) -> DecodedBlock {
        try reader.ensure(32)
        let t = try symbol(unit.dc, log: &log)
        let difference = t == 0 ? 0 : reader.receiveExtend(t)
        unit.predictor = unit.predictor &+ Int32(truncatingIfNeeded: difference)
        var decoded = DecodedBlock()
        var k = 1
        while k < 64 {
            try reader.ensure(32)
            let rs = try symbol(unit.ac, log: &log)
            let rrrr = rs >> 4, ssss = rs & 15
            if ssss == 0 {
                if rrrr != 15 { break }
                k += 16
                continue
            }
            k += rrrr
            let value = reader.receiveExtend(ssss)
            if unit.blockSize != 1 {
                let index = Int(unit.keep[k] & ScanScratch.KeepEntry.indexMask)
                coefficients[index] = Int16(truncatingIfNeeded: value)
                decoded.stored = decoded.stored || index < 64
                decoded.belowFirstRow = decoded.belowFirstRow || (index >= 8 && index < 64)
            }
            k += 1
        }
        return decoded
    }

    /// The fast path's copy of the bit reader's state, kept in locals (registers) through an
    /// MCU: the bit buffer, its count and the input cursor as in `BitReader`, and the window
    /// index up to which the bytes are known free of 0xFF (`BitReader.plainLimit`).
    struct FastBits {
        var buffer: UInt64
        var count: Int
        var cursor: Int
        var limit: Int

        @inline(__always)
        init(reader: inout BitReader) {
            buffer = reader.buffer
            count = reader.count
            cursor = reader.stream.cursor
            limit = reader.plainLimit()
        }

        @inline(__always)
        func store(to reader: inout BitReader) {
            reader.buffer = buffer
            reader.count = count
            reader.stream.cursor = cursor
        }
    }

    /// The fast path: the same result as `decodeBlock` with fewer steps per coefficient, then
    /// `reconstruct`. The bit buffer and the input cursor stay in locals (`FastBits`); the
    /// refill loads eight bytes without testing them where `BitReader.plainLimit` knows them
    /// free of 0xFF; the DC code comes from the DC table's lookahead; the AC table's
    /// `coefficients` part resolves a code and its value in one lookup when both fit in the
    /// lookahead, and two such codes are taken per refill; at 1/8 scale the `skips` part
    /// passes over groups of codes at once. Codes the tables do not resolve take the plain
    /// steps, through `reader`. Correct anywhere (the refill handles stuffing, markers and the
    /// window's end), fastest where `decodeRow` uses it. Transparent: the optimiser declined
    /// `@inline(__always)` here, and the call per block cost 5% of a 1/8 decode.
    @_transparent
    mutating func decodeBlockFast(_ unit: inout ScanUnit, into output: UnsafeMutablePointer<UInt8>,
                                  bits: inout FastBits, log: inout WarningLog) throws(JPEGError) {
        // The bit buffer and the input cursor live in locals through the block so that they
        // stay in registers (stores to `coefficients` could alias anything in memory).
        var buffer = bits.buffer, count = bits.count
        var cursor = bits.cursor, limit = bits.limit
        defer {
            bits.buffer = buffer
            bits.count = count
            bits.cursor = cursor
            bits.limit = limit
        }
        let base = reader.stream.base
        // Refilled before every code, not only when the bits run low: whether they have run
        // low changes from code to code as the codes' lengths do, a branch the predictor
        // cannot learn, where the refill's own test (eight bytes ahead known free of 0xFF,
        // `BitReader.plainLimit`) almost always passes. The load adds whole bytes below the
        // held bits and nothing when 56 or more are held, as `ByteStream.loadPlainBytes`; it
        // needs fewer than 64 held, true here since every code consumes at least one bit
        // after a refill (and `BitReader.refill` stops at 63). Near a 0xFF the bytes are read
        // one by one (`BitReader.refill`) once fewer than 32 bits are left. Every code then
        // finds at least 32 bits.
        @inline(__always) func refillIfLow() throws(JPEGError) {
            if cursor &+ 8 <= limit {
                // SAFETY: cursor + 8 ≤ limit ≤ fill ≤ capacity (`plainLimit`), tested here.
                let word = UInt64(bigEndian: UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self))
                buffer |= word &>> UInt64(truncatingIfNeeded: count)
                cursor &+= (63 &- count) &>> 3
                count |= 56
            } else if count < 32 {
                reader.buffer = buffer
                reader.count = count
                reader.stream.cursor = cursor
                limit = try reader.refillNearFF()
                buffer = reader.buffer
                count = reader.count
                cursor = reader.stream.cursor
            }
        }
        // The long codes go through `reader`: they take the locals with them.
        @inline(__always) func store() {
            reader.buffer = buffer
            reader.count = count
            reader.stream.cursor = cursor
        }
        // `symbol` reads only the buffer (and the cursor, for a warning's offset).
        @inline(__always) func load() {
            buffer = reader.buffer
            count = reader.count
        }
        // DC (T.81 F.2.2.1): a code of at most 16 bits and at most 15 extra bits. Refilled
        // only below 32 bits, as `BitReader.ensure` does: the previous block, or the reader,
        // may have left all 64 bits full, which `refillIfLow` must not be given.
        if count < 32 { try refillIfLow() }
        let dcCode = Int(unit.dc.lookahead[Int(truncatingIfNeeded: buffer &>> UInt64(64 - HuffmanDecodingTable.lookaheadBits))])
        let category: Int
        if dcCode != 0 {
            let length = dcCode &>> 8
            buffer = buffer &<< UInt64(length)
            count &-= length
            category = dcCode & 0xFF
        } else {
            store()
            category = try symbol(unit.dc, log: &log)
            load()
        }
        if category != 0 {
            let value = Int(truncatingIfNeeded: buffer &>> UInt64(64 &- category))
            buffer = buffer &<< UInt64(category)
            count &-= category
            unit.predictor = unit.predictor &+ Int32(truncatingIfNeeded: BitReader.extend(value, category))
        }
        let ac = unit.ac
        var k = 1
        var decoded = DecodedBlock()
        if unit.blockSize == 1 {
            // Only the bit count matters: a group of codes at once (`HuffmanDecodingTable
            // .Layout.skips`) when every one of them starts inside the block, else one code
            // length plus the size of its value.
            let skips = ac.skips
            @inline(__always) func skipGroup() -> Bool {
                let index = Int(truncatingIfNeeded: buffer &>> UInt64(64 - HuffmanDecodingTable.skipBits))
                let entry = Int(skips.load(fromByteOffset: 2 &* index, as: UInt16.self))
                guard k &+ (entry &>> 10) < 64 else { return false }
                let used = entry & 15
                buffer = buffer &<< UInt64(used)
                count &-= used
                k &+= (entry &>> 4) & 63
                return true
            }
            while k < 64 {
                try refillIfLow()
                // The refill left at least 32 bits: two groups of at most `skipBits` each.
                if skipGroup() {
                    if k < 64 { _ = skipGroup() }
                    continue
                }
                let lookahead = Int(truncatingIfNeeded: buffer &>> UInt64(64 - HuffmanDecodingTable.lookaheadBits))
                let code = Int(ac.lookahead[lookahead])
                let rs: Int
                if code != 0 {
                    rs = code & 0xFF
                    let used = (code &>> 8) &+ (rs & 15)
                    buffer = buffer &<< UInt64(used)
                    count &-= used
                } else {
                    store()
                    rs = try symbol(ac, log: &log)
                    reader.skip(rs & 15)
                    load()
                }
                if rs & 15 != 0 {
                    k &+= (rs &>> 4) &+ 1
                } else {
                    if rs &>> 4 != 15 { break }
                    k &+= 16
                }
            }
        } else {
            // Each coefficient's natural index and flags in one entry (`ScanScratch.KeepEntry`).
            let fast = ac.coefficients, codes = ac.lookahead
            let coefficients = self.coefficients, keep = unit.keep
            var flags: Int32 = 0
            @inline(__always) func peekEntry() -> Int {
                Int(fast[Int(truncatingIfNeeded: buffer &>> UInt64(64 - HuffmanDecodingTable.coefficientBits))])
            }
            // ZZ(K) to its natural position (through `keep`), then K + 1.
            @inline(__always) func put(run: Int, value: Int) {
                k &+= run
                let slot = keep[k]
                coefficients[Int(slot & ScanScratch.KeepEntry.indexMask)] = Int16(truncatingIfNeeded: value)
                flags |= slot
                k &+= 1
            }
            while k < 64 {
                try refillIfLow()
                let entry = peekEntry()
                if entry & 0x1000 != 0 {
                    // A code and its value within the lookahead: at most `coefficientBits` of
                    // the 32 or more bits the refill left, so a second lookup needs no refill.
                    // The second code is taken here only when it too is a coefficient or EOB
                    // (the common end of a block); anything else waits for the next turn.
                    let used = entry & 31
                    buffer = buffer &<< UInt64(used)
                    count &-= used
                    put(run: (entry &>> 8) & 15, value: entry &>> 16)
                    guard k < 64 else { break }
                    let second = peekEntry()
                    let secondUsed = second & 31
                    if second & 0x1000 != 0 {
                        buffer = buffer &<< UInt64(secondUsed)
                        count &-= secondUsed
                        put(run: (second &>> 8) & 15, value: second &>> 16)
                    } else if second & 0xF00 == 0 && secondUsed != 0 {
                        buffer = buffer &<< UInt64(secondUsed)
                        count &-= secondUsed
                        break
                    }
                    continue
                }
                let run: Int, value: Int
                if entry != 0 {
                    // EOB or ZRL within the lookahead.
                    let used = entry & 31
                    buffer = buffer &<< UInt64(used)
                    count &-= used
                    if (entry &>> 8) & 15 != 15 { break }
                    k &+= 16
                    continue
                } else {
                    let code = Int(codes[Int(truncatingIfNeeded: buffer &>> UInt64(64 - HuffmanDecodingTable.lookaheadBits))])
                    let size: Int
                    if code != 0 {
                        // A code within the lookahead whose value is not (so it is no EOB or
                        // ZRL): at most 9 + 15 of the 32 bits available.
                        let length = code &>> 8
                        buffer = buffer &<< UInt64(length)
                        count &-= length
                        run = (code &>> 4) & 15
                        size = code & 15
                    } else {
                        store()
                        let rs = try symbol(ac, log: &log)
                        load()
                        run = rs &>> 4
                        size = rs & 15
                        if size == 0 {
                            if run != 15 { break }
                            k &+= 16
                            continue
                        }
                    }
                    // RECEIVE and EXTEND (T.81 F.2.2.1), as `BitReader.receiveExtend`.
                    let bits = Int(truncatingIfNeeded: buffer &>> UInt64(64 &- size))
                    buffer = buffer &<< UInt64(size)
                    count &-= size
                    value = BitReader.extend(bits, size)
                }
                put(run: run, value: value)
            }
            decoded.stored = flags & ScanScratch.KeepEntry.stored != 0
            decoded.belowFirstRow = flags & ScanScratch.KeepEntry.belowFirstRow != 0
        }
        if path != .automatic {
            store()
            fold(decoded, unit)
        }
        reconstruct(decoded, unit, into: output)
    }

    /// The block's samples from its coefficients (T.81 A.3.3, through `InverseDCT` at the
    /// unit's size), or, when the scan defers its transforms (`deferral`), the block's record
    /// for `DeferredBlocks` to transform later; `coefficients` is left all zero again.
    @inline(__always)
    func reconstruct(_ decoded: DecodedBlock, _ unit: ScanUnit, into output: UnsafeMutablePointer<UInt8>) {
        let dc = Int16(truncatingIfNeeded: unit.predictor)
        if let deferral {
            deferral._withUnsafeGuaranteedRef {
                $0.record(dc: dc, decoded, coefficients: coefficients, blockSize: unit.blockSize)
            }
            return
        }
        Self.reconstruct(dc: dc, decoded, unit, coefficients: coefficients, lanes: lanes, workspace: workspace,
                         into: output)
        if decoded.stored && unit.blockSize != 1 { coefficients.update(repeating: 0, count: 64) }
    }

    /// A block's samples from its DC value and, when `decoded.stored`, the coefficients at
    /// `coefficients` (natural order; entry 0 is overwritten with `dc`): one flat level for a
    /// block with only a DC value, else the unit's inverse DCT. The serial decode and
    /// `DeferredBlocks.replay` both come here.
    @inline(__always)
    static func reconstruct(dc: Int16, _ decoded: DecodedBlock, _ unit: ScanUnit, coefficients: UnsafeMutablePointer<Int16>,
                            lanes: UnsafeMutablePointer<InverseDCT.Lanes>, workspace: UnsafeMutablePointer<Int32>,
                            into output: UnsafeMutablePointer<UInt8>) {
        let size = unit.blockSize
        if size == 1 {
            output.pointee = InverseDCT.dcSample(dc, unit.quantizers[0], size: 1)
            return
        }
        if !decoded.stored {
            InverseDCT.fill(InverseDCT.dcSample(dc, unit.quantizers[0], size: size), size: size, output: output, stride: unit.stride)
            return
        }
        coefficients[0] = dc
        InverseDCT.transform(size: size, coefficients, unit.quantizers, output: output, stride: unit.stride,
                             lanes: lanes, workspace: workspace, firstRowOnly: !decoded.belowFirstRow)
    }

    /// Folds a decoded block (DC, the coefficients the IDCT will read, the flags) and where
    /// the block's data ended into `coefficientDigest`, for the test that both paths agree.
    @inline(never)
    mutating func fold(_ decoded: DecodedBlock, _ unit: ScanUnit) {
        var h = coefficientDigest
        @inline(__always) func mix(_ v: Int) { h = (h ^ UInt64(bitPattern: Int64(v))) &* 0x100_0000_01B3 }
        // The next unread bit, as a bit offset in the input, while the data lasts: the byte
        // that holds it, and how many of that byte's bits were read (the bits held, less the
        // padding, end on a byte boundary).
        mix(reader.isExhausted ? -1 : reader.offset(bitsBack: 0) &* 8 &+ ((reader.padding &- reader.count) & 7))
        mix(Int(unit.predictor))
        mix(decoded.stored ? 1 : 0)
        mix(decoded.belowFirstRow ? 1 : 0)
        for i in 1 ..< 64 { mix(Int(coefficients[i])) }
        coefficientDigest = h
    }
}
