@_spi(Pipeline) import PareCore

/// Decodes a lossy key frame (RFC 6386) one macroblock row at a time and hands out its pixel
/// rows as soon as the loop filter and the chroma upsampling no longer change them.
///
/// Each macroblock is predicted and reconstructed in a small workspace whose edges are the
/// unfiltered pixels of its neighbours (RFC 6386 §15: the loop filter's output is never a
/// predictor in a key frame), from its modes and coefficients as read (`readMacroblock`), then
/// copied into a cache of two macroblock rows (`reconstruct`); after the whole row, the loop filter runs over it (touching the three rows above it), and
/// the rows that are final are converted to RGB (`finishRow`). Memory: the caches (two
/// macroblock rows of luma, two of chroma), one row of edge pixels and contexts, one output
/// row, and a window of each partition (`PartitionWindow`): a few rows' worth, whatever the
/// height, and never the compressed frame whole. `decodePipelined` runs the two halves on
/// two threads.
struct LossyDecoder {
    let frame: VP8FrameHeader
    let width: Int, height: Int
    let mbWidth: Int, mbHeight: Int
    let yStride: Int, uvStride: Int
    /// Two macroblock rows: the previous one (rows 0–15) above the current one (16–31).
    let yCache: LedgerBuffer<UInt8>
    /// Two macroblock rows of each chroma plane (0–7 previous, 8–15 current).
    let uCache: LedgerBuffer<UInt8>, vCache: LedgerBuffer<UInt8>
    /// The unfiltered bottom row of the macroblocks above, for prediction.
    let topY: LedgerBuffer<UInt8>, topU: LedgerBuffer<UInt8>, topV: LedgerBuffer<UInt8>
    /// Per macroblock column: the four 4×4 modes along its bottom, and nine coefficient flags.
    let topModes: LedgerBuffer<UInt8>, topFlags: LedgerBuffer<UInt8>
    /// Per macroblock of the current row: the filter strength index and whether inner edges
    /// are filtered.
    let filterInfo: LedgerBuffer<FilterStrength>
    /// The workspace: 17 rows (the edge above, then the macroblock) of `workStride` bytes.
    let workY: LedgerBuffer<UInt8>, workU: LedgerBuffer<UInt8>, workV: LedgerBuffer<UInt8>
    /// One macroblock's record for `decode` (`MacroblockRecords`).
    let coefficients: LedgerBuffer<Int16>, kinds: LedgerBuffer<UInt8>
    let modeRecord: LedgerBuffer<UInt8>, strengthRecord: LedgerBuffer<FilterStrength>
    let positions: LedgerBuffer<Int>
    /// The coefficient probabilities, and the left neighbour's four modes and nine flags.
    let probabilities: LedgerBuffer<UInt8>
    let leftModes: LedgerBuffer<UInt8>, leftFlags: LedgerBuffer<UInt8>
    let output: LedgerBuffer<UInt8>
    /// Rows handed out at half size (`YUVToRGB.halfRow`), and its scratch row of luma means.
    let halfScale: Bool
    let halfLuma: LedgerBuffer<UInt8>
    /// The upsampled U and V of one output row.
    let chromaRow: LedgerBuffer<UInt16>
    let channels: Int

    static let workStride = 32
    /// Where the macroblock's top-left pixel is in the workspace (row 1, column 8).
    static let workOrigin = 32 + 8

    var nextOutputRow = 0
    /// When the data ran out: the first pixel row not handed out.
    var truncatedRow: Int?
    var truncatedOffset = 0

    init(frame: VP8FrameHeader, channels: Int, halfScale: Bool = false, ledger: MemoryLedger) throws(WebPError) {
        self.frame = frame
        self.halfScale = halfScale
        width = frame.width
        height = frame.height
        mbWidth = (width + 15) >> 4
        mbHeight = (height + 15) >> 4
        yStride = mbWidth * 16
        uvStride = mbWidth * 8
        self.channels = channels
        do {
            yCache = try ledger.allocate(UInt8.self, count: 32 * yStride, initialValue: 0)
            uCache = try ledger.allocate(UInt8.self, count: 16 * uvStride, initialValue: 0)
            vCache = try ledger.allocate(UInt8.self, count: 16 * uvStride, initialValue: 0)
            topY = try ledger.allocate(UInt8.self, count: yStride, initialValue: 127)
            topU = try ledger.allocate(UInt8.self, count: uvStride, initialValue: 127)
            topV = try ledger.allocate(UInt8.self, count: uvStride, initialValue: 127)
            topModes = try ledger.allocate(UInt8.self, count: mbWidth * 4, initialValue: 0)
            topFlags = try ledger.allocate(UInt8.self, count: mbWidth * 9, initialValue: 0)
            filterInfo = try ledger.allocate(FilterStrength.self, count: mbWidth, initialValue: FilterStrength())
            workY = try ledger.allocate(UInt8.self, count: Self.workStride * 17, initialValue: 0)
            workU = try ledger.allocate(UInt8.self, count: Self.workStride * 9, initialValue: 0)
            workV = try ledger.allocate(UInt8.self, count: Self.workStride * 9, initialValue: 0)
            coefficients = try ledger.allocate(Int16.self, count: 25 * 16, initialValue: 0)
            kinds = try ledger.allocate(UInt8.self, count: 25, initialValue: 0)
            modeRecord = try ledger.allocate(UInt8.self, count: MacroblockRecords.modeCount, initialValue: 0)
            strengthRecord = try ledger.allocate(FilterStrength.self, count: 1, initialValue: FilterStrength())
            let table = Tokens.positionTable
            positions = try ledger.allocate(Int.self, count: table.count, initialValue: 0)
            for (i, value) in table.enumerated() { positions[i] = value }
            probabilities = try ledger.allocate(UInt8.self, count: frame.coefficientProbabilities.count, initialValue: 0)
            for (i, value) in frame.coefficientProbabilities.enumerated() { probabilities[i] = value }
            leftModes = try ledger.allocate(UInt8.self, count: 4, initialValue: 0)
            leftFlags = try ledger.allocate(UInt8.self, count: 9, initialValue: 0)
            output = try ledger.allocate(UInt8.self, count: width * channels, initialValue: 255)
            halfLuma = try ledger.allocate(UInt8.self, count: halfScale ? (width + 1) / 2 : 0, initialValue: 0)
            chromaRow = try ledger.allocate(UInt16.self, count: 2 * width, initialValue: 0)
        } catch { throw .core(error) }
    }

    /// Decodes every macroblock row, handing finished rows to `sink`; `alpha` (when not nil)
    /// gives each output row's alpha values. Stops early, setting `truncatedRow`, when a
    /// partition runs out of data.
    mutating func decode<Source: ByteSource, Sink: RowSink>(
        source: Source, into sink: inout Sink, alpha: LedgerBuffer<UInt8>?, cancellation: CancellationCheck,
        ledger: MemoryLedger
    ) throws(WebPError) {
        var reader = try RowReader(frame: frame, source: source, ledger: ledger)
        // One macroblock's record, read and reconstructed in turn.
        let record = MacroblockRecords(coefficients: coefficients.baseAddress, kinds: kinds.baseAddress,
                                       modes: modeRecord.baseAddress, strengths: strengthRecord.baseAddress)
        for mbY in 0 ..< mbHeight {
            if cancellation.isCancelled { throw .core(.cancelled) }
            leftModes.fill(with: 0)
            leftFlags.fill(with: 0)
            reader.startRow(mbY)
            for mbX in 0 ..< mbWidth {
                try reader.topUp()
                readMacroblock(mbX, modes: &reader.modes, tokens: &reader.current, header: &reader.header, into: record)
                filterInfo[mbX] = record.strengths[0]
                reconstruct(mbX: mbX, mbY: mbY, record: record)
            }
            if let end = reader.endRow(frame: frame) {
                // Rows already handed out are final; the rest would need this row.
                truncatedRow = nextOutputRow
                truncatedOffset = end
                return
            }
            try finishRow(mbY, into: &sink, alpha: alpha)
        }
    }

    /// `decode` on two threads, with exactly its rows and its truncation: the handoff's
    /// thread (the producer) reads each macroblock row's modes and coefficients into a ring
    /// of `handoff.slots` rows of records (the boolean decoding, which cannot be split), and
    /// the caller's thread (the consumer) predicts and reconstructs each row from them, runs
    /// the loop filter and hands out the rows that are final. The consumer asks
    /// `cancellation` before each row.
    ///
    /// Memory: the ring (a record of 25 × 16 coefficients, 25 kinds, 19 modes and a filter
    /// strength a macroblock), allocated before the producer starts; where the ledger has no
    /// room for it, `decode` runs instead.
    mutating func decodePipelined<Source: ByteSource, Sink: RowSink, Handoff: DecodePipelineHandoff>(
        source: Source, into sink: inout Sink, alpha: LedgerBuffer<UInt8>?, cancellation: CancellationCheck,
        handoff: Handoff, ledger: MemoryLedger
    ) throws(WebPError) {
        let slots = max(2, handoff.slots)
        let columns = mbWidth
        let ringCoefficients: LedgerBuffer<Int16>, ringKinds: LedgerBuffer<UInt8>, ringModes: LedgerBuffer<UInt8>
        let ringStrengths: LedgerBuffer<FilterStrength>, ringEnds: LedgerBuffer<Int>
        do {
            ringCoefficients = try ledger.allocate(Int16.self, count: slots * columns * MacroblockRecords.coefficientCount,
                                                   initialValue: 0)
            ringKinds = try ledger.allocate(UInt8.self, count: slots * columns * MacroblockRecords.kindCount, initialValue: 0)
            ringModes = try ledger.allocate(UInt8.self, count: slots * columns * MacroblockRecords.modeCount, initialValue: 0)
            ringStrengths = try ledger.allocate(FilterStrength.self, count: slots * columns, initialValue: FilterStrength())
            ringEnds = try ledger.allocate(Int.self, count: slots, initialValue: -1)
        } catch {
            guard case .limitExceeded = error else { throw .core(error) }
            return try decode(source: source, into: &sink, alpha: alpha, cancellation: cancellation, ledger: ledger)
        }
        // SAFETY: slot < slots, and each ring holds `slots` rows of `columns` records.
        func records(_ slot: Int) -> MacroblockRecords {
            MacroblockRecords(coefficients: ringCoefficients.baseAddress + slot * columns * MacroblockRecords.coefficientCount,
                              kinds: ringKinds.baseAddress + slot * columns * MacroblockRecords.kindCount,
                              modes: ringModes.baseAddress + slot * columns * MacroblockRecords.modeCount,
                              strengths: ringStrengths.baseAddress + slot * columns)
        }
        // The producer reads with its copy and the consumer writes with its own: the
        // buffers they touch are disjoint (the contexts against the workspace, the edges,
        // the caches and the output), and the ring passes between them under the handoff's
        // semaphores. A slot's records and end are written by the producer while it holds
        // the slot, before `publishRow`, and read by the consumer after the matching
        // `awaitRow`, before it gives the slot back.
        let producerSide = self
        var consumerSide = self
        var reader = try RowReader(frame: frame, source: source, ledger: ledger)
        var stopError: WebPError?, readError: WebPError?
        let rows = mbHeight
        handoff.run(producer: {
            for mbY in 0 ..< rows {
                handoff.acquireSlot()
                if handoff.stopRequested { break }
                let end: Int?
                do throws(WebPError) {
                    end = try producerSide.readRow(mbY, &reader, into: records(mbY % slots))
                } catch {
                    // A failed read: the end, marked apart from running out of data.
                    readError = error
                    ringEnds[mbY % slots] = Self.readFailed
                    handoff.publishRow()
                    break
                }
                ringEnds[mbY % slots] = end ?? -1
                handoff.publishRow()
                if end != nil { break }
            }
        }, consumer: {
            func stop(_ error: WebPError) {
                stopError = error
                handoff.requestStop()
                for _ in 0 ..< slots { handoff.releaseSlot() }
            }
            for mbY in 0 ..< rows {
                handoff.awaitRow()
                if ringEnds[mbY % slots] == Self.readFailed { break }
                if ringEnds[mbY % slots] >= 0 {
                    consumerSide.truncatedRow = consumerSide.nextOutputRow
                    consumerSide.truncatedOffset = ringEnds[mbY % slots]
                    break
                }
                if cancellation.isCancelled {
                    stop(.core(.cancelled))
                    break
                }
                consumerSide.reconstructRow(mbY, from: records(mbY % slots))
                handoff.releaseSlot()
                do throws(WebPError) {
                    try consumerSide.finishRow(mbY, into: &sink, alpha: alpha)
                } catch {
                    stop(error)
                    break
                }
            }
        })
        nextOutputRow = consumerSide.nextOutputRow
        truncatedRow = consumerSide.truncatedRow
        truncatedOffset = consumerSide.truncatedOffset
        if let stopError { throw stopError }
        if let readError { throw readError }
    }

    /// A ring slot's end mark for a read that failed (the others are −1 for none, or the
    /// file offset where the data ran out).
    static let readFailed = -2

    /// The parsing state carried from one macroblock to the next: the first partition (the
    /// modes), the token partitions (§9.5), the partition the current row reads, and the
    /// macroblock header read last.
    struct RowReader<Source: ByteSource> {
        var modes: BooleanDecoder
        var modesWindow: PartitionWindow<Source>
        var tokens: [BooleanDecoder] = []
        var tokenWindows: [PartitionWindow<Source>] = []
        /// The token partition of the current row (rows take the partitions in turn, §9.5),
        /// out of `tokens` while the row is read.
        var current: BooleanDecoder
        var part = 0
        var header = MacroblockHeader()

        /// The frame's partitions, each through a window on `source` (`PartitionWindow`),
        /// the first one's taken over from the frame header, which read its start.
        init(frame: VP8FrameHeader, source: Source, ledger: MemoryLedger) throws(WebPError) {
            modes = frame.modes
            modesWindow = PartitionWindow(source: source, buffer: frame.modesBuffer, payloadOffset: frame.fileOffset,
                                          nextRead: frame.modesNextRead, end: frame.modesEnd)
            for partition in frame.partitions {
                let (window, decoder) = try PartitionWindow.open(source: source, payloadOffset: frame.fileOffset,
                                                                 start: partition.start, end: partition.end, ledger: ledger)
                tokenWindows.append(window)
                tokens.append(decoder)
            }
            current = tokens[0]
        }

        /// Before each macroblock: enough of both partitions it reads in their windows.
        @inline(__always)
        mutating func topUp() throws(WebPError) {
            try modesWindow.topUp(&modes)
            // The array is written to (made unique, its generic element type looked up at run
            // time) only when its window may need reading on, not before every macroblock.
            if current.end - current.position < PartitionWindow<Source>.reserve {
                try tokenWindows[part].topUp(&current)
            }
        }

        mutating func startRow(_ mbY: Int) {
            part = mbY & (tokens.count - 1)
            current = tokens[part]
        }

        /// Puts the row's partition back; returns the file offset where a partition ran out
        /// of data, or nil.
        mutating func endRow(frame: VP8FrameHeader) -> Int? {
            tokens[part] = current
            guard current.exhausted || modes.exhausted else { return nil }
            return frame.fileOffset + (current.exhausted ? current.offset : modes.offset)
        }
    }

    /// Macroblocks as read, for their reconstruction: each one's 25 blocks of 16
    /// coefficients and their kinds (`Residuals`), its modes and its filter strength, laid
    /// out one after another from the pointers.
    struct MacroblockRecords {
        static let coefficientCount = 25 * 16
        static let kindCount = 25
        /// `is4x4`, the luma mode, the chroma mode, then the sixteen 4×4 modes.
        static let modeCount = 19
        let coefficients: UnsafeMutablePointer<Int16>
        let kinds: UnsafeMutablePointer<UInt8>
        let modes: UnsafeMutablePointer<UInt8>
        let strengths: UnsafeMutablePointer<FilterStrength>

        /// The record of the macroblock `index` places along.
        func at(_ index: Int) -> MacroblockRecords {
            MacroblockRecords(coefficients: coefficients + index * Self.coefficientCount, kinds: kinds + index * Self.kindCount,
                              modes: modes + index * Self.modeCount, strengths: strengths + index)
        }

        var is4x4: Bool { modes[0] != 0 }
        var lumaMode: UInt8 { modes[1] }
        var chromaMode: UInt8 { modes[2] }
        func subblockMode(_ block: Int) -> UInt8 { modes[3 + block] }
    }

    /// Reads macroblock row `mbY` into `records`, one record a macroblock. Returns the file
    /// offset where a partition ran out of data, or nil.
    func readRow<Source: ByteSource>(_ mbY: Int, _ reader: inout RowReader<Source>,
                                     into records: MacroblockRecords) throws(WebPError) -> Int? {
        leftModes.fill(with: 0)
        leftFlags.fill(with: 0)
        reader.startRow(mbY)
        for mbX in 0 ..< mbWidth {
            try reader.topUp()
            readMacroblock(mbX, modes: &reader.modes, tokens: &reader.current, header: &reader.header,
                           into: records.at(mbX))
        }
        return reader.endRow(frame: frame)
    }

    /// Reconstructs macroblock row `mbY` into the cache from `records`, and takes their
    /// filter strengths for the loop filter.
    func reconstructRow(_ mbY: Int, from records: MacroblockRecords) {
        for mbX in 0 ..< mbWidth {
            filterInfo[mbX] = records.strengths[mbX]
            reconstruct(mbX: mbX, mbY: mbY, record: records.at(mbX))
        }
    }

    /// Reads macroblock `mbX`'s header (from the first partition, `modes`) and coefficients
    /// (from the row's token partition, `tokens`) into `record`, updating the contexts above
    /// and to the left. Apart from the windows on the source (`RowReader`), so that it is
    /// compiled once, not left generic over the source where another module calls the decode.
    func readMacroblock(_ mbX: Int, modes: inout BooleanDecoder, tokens: inout BooleanDecoder,
                        header state: inout MacroblockHeader, into record: MacroblockRecords) {
        // The row's header state is kept between macroblocks; this macroblock's, once read:
        state.read(&modes, frame: frame, top: topModes.baseAddress + mbX * 4, left: leftModes.baseAddress)
        let header = state
        let residuals = Residuals(coefficients: record.coefficients, kinds: record.kinds, positions: positions.baseAddress)
        var any = false
        let topFlag = topFlags.baseAddress + mbX * 9
        if !header.skip {
            any = residuals.read(&tokens, probabilities: probabilities.baseAddress, is4x4: header.is4x4,
                                 q: frame.quantizers[header.segment], top: topFlag, left: leftFlags.baseAddress)
        } else {
            residuals.skip(is4x4: header.is4x4, top: topFlag, left: leftFlags.baseAddress)
        }
        var strength = frame.filterStrengths[header.segment * 2 + (header.is4x4 ? 1 : 0)]
        strength.inner = strength.inner || any
        record.strengths[0] = strength
        record.modes[0] = header.is4x4 ? 1 : 0
        record.modes[1] = header.lumaMode
        record.modes[2] = header.chromaMode
        if header.is4x4 {
            for block in 0 ..< 16 { record.modes[3 + block] = header.subblockModes[block] }
        }
    }

    /// Filters the current macroblock row in the cache, hands out the rows that are now
    /// final, and moves it up for the next.
    mutating func finishRow<Sink: RowSink>(_ mbY: Int, into sink: inout Sink,
                                           alpha: LedgerBuffer<UInt8>?) throws(WebPError) {
        if frame.filterType > 0 { filterRow(mbY) }
        let last = mbY == mbHeight - 1
        let end = last ? height : min(height, 16 * mbY + 8)
        if halfScale {
            try emitHalfRows(upTo: end, currentRow: mbY, into: &sink)
        } else {
            try emitRows(upTo: end, currentRow: mbY, into: &sink, alpha: alpha)
        }
        if !last { shiftCaches() }
    }

    /// Moves the current macroblock row's pixels into the "previous" half of the caches.
    func shiftCaches() {
        (yCache.baseAddress).update(from: yCache.baseAddress + 16 * yStride, count: 16 * yStride)
        (uCache.baseAddress).update(from: uCache.baseAddress + 8 * uvStride, count: 8 * uvStride)
        (vCache.baseAddress).update(from: vCache.baseAddress + 8 * uvStride, count: 8 * uvStride)
    }

    // SAFETY (reconstruct, filterRow, emitRows): mbX < mbWidth and mbY < mbHeight, so each
    // macroblock's 16 (8) columns lie inside the caches' yStride (uvStride); the workspace is
    // 17 (9) rows of 32 with the block at column 8, leaving the left column and the 4 pixels
    // above-right; emitted rows and chroma rows lie in the two cached macroblock rows.
    /// Predicts and reconstructs one macroblock from its record in the workspace, copies it
    /// to the cache and keeps its bottom row for the macroblock below.
    func reconstruct(mbX: Int, mbY: Int, record: MacroblockRecords) {
        let s = Self.workStride
        let y = workY.baseAddress + Self.workOrigin
        let u = workU.baseAddress + Self.workOrigin
        let v = workV.baseAddress + Self.workOrigin
        // The left edge: the previous macroblock's last column, or 129 at the frame's left.
        if mbX > 0 {
            for r in -1 ..< 16 { y[r * s - 1] = y[r * s + 15] }
            for r in -1 ..< 8 {
                u[r * s - 1] = u[r * s + 7]
                v[r * s - 1] = v[r * s + 7]
            }
        } else {
            for r in 0 ..< 16 { y[r * s - 1] = 129 }
            for r in 0 ..< 8 {
                u[r * s - 1] = 129
                v[r * s - 1] = 129
            }
            let corner: UInt8 = mbY > 0 ? 129 : 127
            y[-s - 1] = corner
            u[-s - 1] = corner
            v[-s - 1] = corner
        }
        // The edge above: the unfiltered bottom row of the macroblock above (127 above the frame).
        Self.copy16(from: topY.baseAddress + mbX * 16, to: y - s)
        Self.copy8(from: topU.baseAddress + mbX * 8, to: u - s)
        Self.copy8(from: topV.baseAddress + mbX * 8, to: v - s)
        if record.is4x4 {
            // Above-right of the macroblock (§12.3): the next macroblock's bottom row, or the last
            // pixel above repeated at the right edge; the 4×4 blocks of the right column below
            // the first row reuse these same four pixels.
            let right = y - s + 16
            if mbY == 0 {
                right.update(repeating: 127, count: 4)
            } else if mbX == mbWidth - 1 {
                right.update(repeating: topY[mbX * 16 + 15], count: 4)
            } else {
                right.update(from: topY.baseAddress + (mbX + 1) * 16, count: 4)
            }
            for r in stride(from: 3, through: 11, by: 4) { (y + r * s + 16).update(from: right, count: 4) }
            for block in 0 ..< 16 {
                let dst = y + (block >> 2) * 4 * s + (block & 3) * 4
                IntraPrediction.predictSubblock(dst, stride: s, mode: record.subblockMode(block))
                addResidual(block, dst, record)
            }
        } else {
            let mode = Self.edgeMode(record.lumaMode, mbX: mbX, mbY: mbY)
            IntraPrediction.predictBlock(y, stride: s, size: 16, mode: mode)
            for block in 0 ..< 16 { addResidual(block, y + (block >> 2) * 4 * s + (block & 3) * 4, record) }
        }
        let chromaMode = Self.edgeMode(record.chromaMode, mbX: mbX, mbY: mbY)
        IntraPrediction.predictBlock(u, stride: s, size: 8, mode: chromaMode)
        IntraPrediction.predictBlock(v, stride: s, size: 8, mode: chromaMode)
        for block in 0 ..< 4 {
            let offset = (block >> 1) * 4 * s + (block & 1) * 4
            addResidual(16 + block, u + offset, record)
            addResidual(20 + block, v + offset, record)
        }
        // Into the cache's current half, and the bottom rows kept for the row below.
        let yOut = yCache.baseAddress + 16 * yStride + mbX * 16
        for r in 0 ..< 16 { Self.copy16(from: y + r * s, to: yOut + r * yStride) }
        let uOut = uCache.baseAddress + 8 * uvStride + mbX * 8
        let vOut = vCache.baseAddress + 8 * uvStride + mbX * 8
        for r in 0 ..< 8 {
            Self.copy8(from: u + r * s, to: uOut + r * uvStride)
            Self.copy8(from: v + r * s, to: vOut + r * uvStride)
        }
        Self.copy16(from: y + 15 * s, to: topY.baseAddress + mbX * 16)
        Self.copy8(from: u + 7 * s, to: topU.baseAddress + mbX * 8)
        Self.copy8(from: v + 7 * s, to: topV.baseAddress + mbX * 8)
    }

    /// A macroblock row's 16 luma or 8 chroma bytes moved as one vector, not a call to
    /// `memmove` each.
    @inline(__always)
    static func copy16(from source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(target).storeBytes(of: UnsafeRawPointer(source).loadUnaligned(as: SIMD16<UInt8>.self),
                                                   as: SIMD16<UInt8>.self)
    }

    @inline(__always)
    static func copy8(from source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(target).storeBytes(of: UnsafeRawPointer(source).loadUnaligned(as: UInt64.self),
                                                   as: UInt64.self)
    }

    @inline(__always)
    func addResidual(_ block: Int, _ dst: UnsafeMutablePointer<UInt8>, _ record: MacroblockRecords) {
        switch record.kinds[block] {
        case 0: return
        case 1: InverseTransform.addDC(record.coefficients + block * 16, to: dst, stride: Self.workStride)
        default: InverseTransform.add(record.coefficients + block * 16, to: dst, stride: Self.workStride)
        }
    }

    /// §12.2: DC prediction at the frame's top or left edge averages only the edge that exists.
    static func edgeMode(_ mode: UInt8, mbX: Int, mbY: Int) -> UInt8 {
        guard mode == MacroblockMode.dc else { return mode }
        if mbX == 0 { return mbY == 0 ? MacroblockMode.dcNoTopLeft : MacroblockMode.dcNoLeft }
        return mbY == 0 ? MacroblockMode.dcNoTop : MacroblockMode.dc
    }

    /// §15: the loop filter over the current macroblock row, macroblock by macroblock.
    func filterRow(_ mbY: Int) {
        for mbX in 0 ..< mbWidth {
            let strength = filterInfo[mbX]
            guard strength.limit > 0 else { continue }
            LoopFilter.filterMacroblock(
                y: yCache.baseAddress + 16 * yStride + mbX * 16, yStride: yStride,
                u: uCache.baseAddress + 8 * uvStride + mbX * 8, v: vCache.baseAddress + 8 * uvStride + mbX * 8,
                uvStride: uvStride, strength: strength, simple: frame.filterType == 1, left: mbX > 0, top: mbY > 0)
        }
    }

    /// Converts and hands out the rows from `nextOutputRow` to `end` (exclusive). The caches
    /// hold macroblock rows `currentRow − 1` and `currentRow`.
    mutating func emitRows<Sink: RowSink>(upTo end: Int, currentRow: Int, into sink: inout Sink,
                                          alpha: LedgerBuffer<UInt8>?) throws(WebPError) {
        let chromaLast = (height + 1) / 2 - 1
        let yBase = 16 * (currentRow - 1), uvBase = 8 * (currentRow - 1)
        while nextOutputRow < end {
            let r = nextOutputRow
            let near = r >> 1
            let far = r & 1 == 0 ? max(near - 1, 0) : min(near + 1, chromaLast)
            let yRow = yCache.baseAddress + (r - yBase) * yStride
            let nearOffset = (near - uvBase) * uvStride, farOffset = (far - uvBase) * uvStride
            YUVToRGB.upsampleRow(y: yRow, nearU: uCache.baseAddress + nearOffset, nearV: vCache.baseAddress + nearOffset,
                                 farU: uCache.baseAddress + farOffset, farV: vCache.baseAddress + farOffset,
                                 width: width, out: output.baseAddress, channels: channels,
                                 scratch: chromaRow.baseAddress)
            if channels == 4, let alpha {
                let a = alpha.baseAddress + r * width
                for x in 0 ..< width { output[x * 4 + 3] = a[x] }
            }
            do { try sink.consume(UnsafeBufferPointer(output.buffer), at: RowPlacement(y: r, width: width)) } catch {
                throw .core(error)
            }
            nextOutputRow += 1
        }
    }
    /// Hands out the half-size rows (counted in `nextOutputRow`) whose two luma rows are
    /// among the first `end`, which are final: row r from luma rows 2r and 2r + 1 and chroma
    /// row r, which the loop filter has also left alone by then (it reaches three rows above
    /// the macroblock row it filters). The caches hold macroblock rows `currentRow − 1` and
    /// `currentRow`.
    mutating func emitHalfRows<Sink: RowSink>(upTo end: Int, currentRow: Int, into sink: inout Sink) throws(WebPError) {
        let halfWidth = (width + 1) / 2
        let yBase = 16 * (currentRow - 1), uvBase = 8 * (currentRow - 1)
        while 2 * nextOutputRow < end {
            let r = nextOutputRow
            let top = yCache.baseAddress + (2 * r - yBase) * yStride
            let bottom = yCache.baseAddress + (min(2 * r + 1, height - 1) - yBase) * yStride
            let chroma = (r - uvBase) * uvStride
            YUVToRGB.halfRow(top: top, bottom: bottom, u: uCache.baseAddress + chroma, v: vCache.baseAddress + chroma,
                             width: width, luma: halfLuma.baseAddress, out: output.baseAddress, channels: channels,
                             scratch: chromaRow.baseAddress)
            do {
                try sink.consume(UnsafeBufferPointer(rebasing: output.buffer[0 ..< halfWidth * channels]),
                                 at: RowPlacement(y: r, width: halfWidth))
            } catch {
                throw .core(error)
            }
            nextOutputRow += 1
        }
    }
}
