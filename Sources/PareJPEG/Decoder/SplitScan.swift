@_spi(Codec) @_spi(Pipeline) import PareCore

/// Entropy decoding of one scan on two threads without restart markers: the second thread
/// starts in the middle of the data, at a byte where no MCU need begin, and the first finds
/// where the two decodes agree.
///
/// Huffman codes resynchronise: a decoder started at an arbitrary bit reads garbage for a
/// while, but once one of its codes ends where a true code ends, every later code is read
/// as the true decode reads it. For a sequential scan (T.81 F.2.2) the whole state of the
/// decode at the start of an MCU is where its next bit lies and the DC predictors
/// (F.2.1.3.1); the predictors only add a constant per component to every DC value after
/// that point, since each block's DC is its predictor plus a coded difference. So the
/// second thread decodes from a byte part of the way through the data to its end,
/// each MCU's blocks into records (`DeferredBlocks`, the form the pipelined decode hands
/// between threads) with predictors that start at zero, and notes every `snapshotInterval`
/// MCUs where it stood (`Snapshot`), publishing them about once an MCU row (`Progress`).
/// The first thread decodes from the start as `decode` does; once a snapshot is published
/// and the first has come near it, it compares its own position at each MCU start with the
/// snapshots. Where one matches, the two decodes have met: the MCUs from there come from
/// the records, each DC value moved by the difference of the two threads' predictors at the
/// meeting point, as fast as the second thread publishes them (the first waits for it when
/// it has caught up), and once the second is done, up to the last snapshot its records
/// reach, whose state (bit position and predictors, moved the same way) the first thread
/// takes over to decode the rest itself. Meeting while the second still decodes keeps the
/// first thread from decoding past the split point while it waits, and runs the replay (a
/// fraction of a decode's cost a row) beside the second's decode instead of after it.
///
/// Positions are compared as the input offset of the next byte to load and the bits held
/// (`BitReader`'s `stream.position` and `count`): equal pairs mean the same next bit,
/// since both threads parse the bytes after the split point alike (it never follows an
/// 0xFF, so it is never a stuffed zero or a marker's code). The same bit can be held two ways
/// (the refills load different amounts near an 0xFF or a window's end); then the match
/// comes at a later snapshot.
///
/// Damage: the second thread's warnings are its own (its log is strict, so the first one
/// stops it). A warning within its first `restartWithin` MCUs is taken for the garbage of
/// a start that has not met the true decode yet, and it starts afresh there; a later one
/// ends its records before that MCU. The first thread takes over at a snapshot at or before
/// the end of the records, so every MCU the records do not hold, and every warning, comes
/// from its own decode, as in `decode`. Where no snapshot matches, it decodes the whole scan.
enum SplitScan {
    /// MCUs between two snapshots (`JPEGDecoder.splitSnapshotInterval`): how much later than
    /// the true meeting point the first thread may find it, and how many MCUs it may decode
    /// again after the records end.
    static let snapshotInterval = 16
    /// A warning this early in the second thread's decode restarts it (see `SplitScan`).
    static let restartWithin = 64
    /// The second thread's input window: it reads straight on, so a smaller one than the
    /// first thread's only refills more often, and it still holds the fast path's look-ahead
    /// (`ScanDecoder.fastPathBytes`, at most 5 KiB) several times over.
    static let windowSize = 16 * 1024
    /// Predictors kept per snapshot: a frame has at most four components (T.81 B.2.2).
    static let predictorsPerSnapshot = 4

    /// Where the second thread's decode stood before one of its MCUs: the input offset of
    /// the next byte to load, the bits held and their count (`BitReader`); its predictors
    /// are kept beside the snapshots (`predictorsPerSnapshot` each).
    struct Snapshot {
        var position: Int
        var count: Int
        var buffer: UInt64
        /// Where the MCU's records start, in entries from the first.
        var record: Int

        /// Whether a decode at `position` holding `count` bits has read further than this
        /// one: later bytes, or the same bytes with fewer of them still held.
        @inline(__always)
        func isBefore(position: Int, count: Int) -> Bool {
            self.position < position || (self.position == position && self.count > count)
        }
    }

    /// Where the second thread started: written by it before it first publishes, read by
    /// the first after it has waited for a publication (and by the report after both end).
    final class SecondPart {
        /// The byte the second thread started at, and the input's end.
        var split = 0
        var end = 0
    }

    /// One publication of the second thread's (`DecodePipelineHandoff.publishRow`), the
    /// n-th entry for the n-th: written before it publishes and never again, so the first
    /// thread reads it after its n-th `awaitRow` while the second goes on.
    struct Progress {
        /// Snapshots taken, and MCUs whose records are complete.
        var snapshots: Int32
        var decoded: Int32
        /// The last publication: the second thread has stopped.
        var done: Bool
    }

    /// The second thread's work: starts `permille` thousandths of the way from the scan's
    /// start to the input's end, and decodes MCU after MCU into records and snapshots
    /// until the data ends, a warning ends it, the records' `entries` might not hold another
    /// MCU (`largestMCU` entries), `capacity` MCUs are decoded or `stop` says so.
    /// `scan` reads with a stream of its own and records through `cursor`. Every
    /// `publishEvery` snapshots once no warning can restart it, and once when it stops,
    /// it calls `publish` with the snapshots taken and the MCUs recorded.
    static func decodeSecondPart(_ scan: inout ScanDecoder, scanStart: Int, dataEnd: Int?, permille: Int,
                                 records: UnsafeMutablePointer<Int16>,
                                 entries: Int, largestMCU: Int, capacity: Int, interval: Int, publishEvery: Int,
                                 snapshots: UnsafeMutablePointer<Snapshot>,
                                 predictors: UnsafeMutablePointer<Int32>, cursor: DeferredBlocks.Cursor,
                                 into part: SecondPart, stop: () -> Bool,
                                 publish: (_ snapshots: Int, _ decoded: Int, _ done: Bool) -> Void) {
        var taken = 0, index = 0
        defer { publish(taken, min(index, capacity), true) }
        // The data is taken to run to `dataEnd` or the input's end (a photo's EOI is two bytes
        // before it): finding its true end would mean reading all of it first. Where more
        // follows that `dataEnd` does not exclude (an embedded preview, a gain map), the split
        // lies further on; beyond the data, the decodes never meet, and the first thread
        // decodes the whole scan.
        let end = scan.reader.stream.count
        let dataEnd = min(end, max(scanStart + 1, dataEnd ?? end))
        var split = scanStart + (dataEnd - scanStart) * permille / 1000
        // Not right after an 0xFF: the byte there would be a stuffed zero or a marker's code.
        scan.reader.stream.seek(to: split - 1)
        while split < end, (try? scan.reader.stream.nextByte()) == 0xFF { split += 1 }
        guard split > scanStart, split < end else { return }
        part.split = split
        part.end = end
        scan.reader = BitReader(stream: scan.reader.stream)
        scan.reader.stream.seek(to: split)
        var log = WarningLog(strict: true, limit: 0)
        cursor.next = records
        // A snapshot, then `interval` MCUs in one call, while the records have room.
        while index < capacity && cursor.next - records + interval * largestMCU <= entries {
            if stop() { break }
            // Near the end the marker is in: the first thread finishes from an earlier snapshot.
            guard scan.reader.marker == nil else { break }
            let snapshot = index / interval
            // SAFETY: index < capacity, so snapshot < capacity / interval + 1, their count.
            snapshots[snapshot] = Snapshot(position: scan.reader.stream.position, count: scan.reader.count,
                                           buffer: scan.reader.buffer, record: cursor.next - records)
            for (i, unit) in scan.units.enumerated() {
                predictors[snapshot * predictorsPerSnapshot + i] = unit.predictor
            }
            taken = snapshot + 1
            // Past the restart window the records before this snapshot are final.
            if index >= restartWithin && snapshot % publishEvery == 0 { publish(taken, index, false) }
            // The loop's condition leaves room for these MCUs' records. `decodeRow` walks them
            // as columns of a row, but with its blocks recorded it writes nothing to the planes.
            do {
                try scan.decodeRow(columns: interval, from: 0, log: &log)
            } catch {
                guard case .strict = error, index < restartWithin else { break }
                // Garbage before the meeting point: start afresh from here.
                index = 0
                cursor.next = records
                taken = 0
                scan.progress = ScanProgress(scanNumber: scan.progress.scanNumber, restartInterval: 0)
                for i in 0 ..< scan.units.count { scan.units[i].predictor = 0 }
                continue
            }
            index += interval
        }
    }
}

/// What the last split decode did (`JPEGDecoder.lastSplit`): for the tests, and for the
/// figures of how far the two decodes run before they meet.
@_spi(Pipeline) public struct SplitScanReport: Sendable, Equatable {
    /// Where the second thread started, and the input's end (offsets).
    public var split: Int
    public var end: Int
    /// Bits from the split to the MCU start where the first thread met the second (stuffed
    /// bytes counted), or nil when it never did.
    public var meetingBits: Int?
    /// The MCU where they met, and how many MCUs from there came from the second thread's
    /// records, of `mcus`.
    public var meetingMCU: Int?
    public var mcusTaken: Int
    public var mcus: Int
}

extension JPEGDecoder {
    /// Whether `decodeSplit` can decode the image at `plan`: one interleaved sequential scan
    /// without restart intervals (with them, `decodeBand` splits it without guessing), every
    /// block transformed at 2×2 or less (records of a few values: 1/8 scale, and 1/4 without
    /// subsampling), and the automatic entropy path.
    @_spi(Pipeline) public func splitsScan(at scale: JPEGScale) -> Bool {
        guard let plan = try? ScalePlan(frame: frame, scale: scale, offset: firstScan.offset) else { return false }
        return canSplitScan(plan)
    }

    func canSplitScan(_ plan: ScalePlan) -> Bool {
        info.restartInterval == 0 && entropyPath == .automatic
            && (frame.process == .baseline || frame.process == .extendedSequential)
            && firstScan.components.count == frame.components.count
            && frame.components.count <= SplitScan.predictorsPerSnapshot
            && plan.components.allSatisfy { $0.blockSize <= 2 }
    }

    /// Decodes the scan on the handoff's thread and the caller's at once (`SplitScan`), with
    /// exactly `decode`'s rows, warnings and errors: the caller's thread makes every row,
    /// from its own decode and from the records of the second thread's.
    ///
    /// Memory on top of `decode`'s: records and snapshots for 1.25 times the MCUs the second
    /// thread should need, within `options.maxSplitScanBytes` (the second thread's share
    /// shrinks to what that holds), and a second scratch, stream window and set of tables,
    /// all allocated on the caller's thread; where the ledger's limit leaves no room for
    /// them, `decode` runs instead.
    mutating func decodeSplit<Sink: RowSink, Handoff: DecodePipelineHandoff>(
        plan: ScalePlan, scale: JPEGScale, handoff: Handoff, into sink: inout Sink
    ) throws(JPEGError) {
        let columns = plan.mcusPerLine, rows = plan.mcuRows
        let total = columns * rows
        let largestMCU = plan.components.reduce(0) {
            $0 + $1.horizontal * $1.vertical * DeferredBlocks.largestRecord(blockSize: $1.blockSize)
        }
        let interval = max(1, splitSnapshotInterval)
        // What an MCU's records and its share of a snapshot take, with three coefficients
        // besides DC in each 2×2 block (as in a photo's chroma at 1/8), and how many MCUs the
        // budget holds with a fifth to spare; the second thread's share is at most that.
        let typicalMCU = plan.components.reduce(0) {
            $0 + $1.horizontal * $1.vertical
                * ($1.blockSize == 1 ? DeferredBlocks.dcRecordSize : DeferredBlocks.cornerHeaderSize + 6)
        }
        let snapshotBytes = MemoryLayout<SplitScan.Snapshot>.stride + 4 * SplitScan.predictorsPerSnapshot
            + MemoryLayout<SplitScan.Progress>.stride
        let mcuBytes = 2 * typicalMCU + snapshotBytes / interval + 1
        let affordable = max(0, options.maxSplitScanBytes - 2 * interval * largestMCU - snapshotBytes) / mcuBytes
        let wanted = total * (100 - min(95, max(5, splitPercent))) / 100
        let share = min(wanted, affordable * 4 / 5)
        guard share >= interval else { return try decode(scale: scale, into: &sink) }
        let permille = 1000 - share * 1000 / total
        let capacity = min(total, share * 5 / 4 + interval)
        let snapshotCount = capacity / interval + 1
        let entries = capacity * typicalMCU + interval * largestMCU
        let split = try Self.unlessOverLimit { () throws(JPEGError) in
            let stage = try makeRowStage(plan: plan)
            let scratches = (second: try ScanScratch(ledger: ledger), replay: try ScanScratch(ledger: ledger))
            let shared = try core { () throws(CoreError) in
                (records: try ledger.allocate(Int16.self, count: entries, initialValue: 0),
                 snapshots: try ledger.allocate(SplitScan.Snapshot.self, count: snapshotCount,
                                                initialValue: SplitScan.Snapshot(position: 0, count: 0, buffer: 0, record: 0)),
                 predictors: try ledger.allocate(Int32.self, count: snapshotCount * SplitScan.predictorsPerSnapshot,
                                                 initialValue: 0),
                 // At most one publication a snapshot, and the last.
                 progress: try ledger.allocate(SplitScan.Progress.self, count: snapshotCount + 1,
                                               initialValue: SplitScan.Progress(snapshots: 0, decoded: 0, done: false)),
                 secondStream: try ByteStream(sharingSourceOf: reader.stream, ledger: ledger,
                                              windowSize: min(reader.stream.capacity, SplitScan.windowSize)))
            }
            return (stage: stage, scratches: scratches, shared: shared)
        }
        guard let split else { return try decode(scale: scale, into: &sink) }
        var buffers = split.stage.buffers, output = split.stage.output
        let scratch = split.stage.scratch, secondScratch = split.scratches.second, replayScratch = split.scratches.replay
        let records = split.shared.records, snapshotBuffer = split.shared.snapshots
        let predictorBuffer = split.shared.predictors, progressBuffer = split.shared.progress
        let secondStream = split.shared.secondStream
        var log = startFrameDecode()
        defer { finishDecode(log) }
        try beginRows(plan, into: &sink)
        var scan = try makeScan(firstScan, number: 1, tables: tables, restartInterval: 0, plan: plan, buffers: buffers,
                                scratch: scratch)
        var second = try makeScan(firstScan, number: 1, tables: tables, restartInterval: 0, plan: plan,
                                  buffers: buffers, scratch: secondScratch)
        second.reader = BitReader(stream: secondStream)
        let cursor = DeferredBlocks.Cursor(records.baseAddress)
        second.deferral = Unmanaged.passUnretained(cursor)
        defer { withExtendedLifetime(cursor) {} }
        let part = SplitScan.SecondPart()
        let scanStart = self.scanStart, dataEnd = self.dataEnd
        let cancellation = self.cancellation
        let recordBase = records.baseAddress, snapshots = snapshotBuffer.baseAddress
        let predictors = predictorBuffer.baseAddress, progress = progressBuffer.baseAddress
        // About an MCU row a publication: a wait that must wake the other thread costs tens
        // of microseconds, an MCU row's decode a few hundred.
        let publishEvery = max(1, columns / interval)

        // Shared state: `part`, the records, the snapshots and the progress entries are
        // written by the producer before it publishes them and read by the consumer after it
        // has waited for that; `stopError` and the consumer's results only once both threads
        // have returned.
        var stopError: JPEGError?
        var repeated = 0
        var report = SplitScanReport(split: 0, end: 0, meetingBits: nil, meetingMCU: nil, mcusTaken: 0, mcus: total)
        handoff.run(producer: {
            var published = 0
            SplitScan.decodeSecondPart(&second, scanStart: scanStart, dataEnd: dataEnd, permille: permille,
                                       records: recordBase,
                                       entries: entries, largestMCU: largestMCU, capacity: capacity, interval: interval,
                                       publishEvery: publishEvery, snapshots: snapshots,
                                       predictors: predictors, cursor: cursor, into: part,
                                       stop: { handoff.stopRequested }) { taken, decoded, done in
                // published ≤ snapshotCount: at most one publication a snapshot, and the last.
                progress[published] = SplitScan.Progress(snapshots: Int32(taken), decoded: Int32(decoded), done: done)
                published += 1
                handoff.publishRow()
            }
        }, consumer: {
            // What the producer has published so far, and how many publications were taken.
            var known = SplitScan.Progress(snapshots: 0, decoded: 0, done: false)
            var awaited = 0
            /// Takes the publications that wait; with `blocking`, first waits for one.
            func update(blocking: Bool) {
                var wait = blocking
                while !known.done && (wait || handoff.rowIsWaiting) {
                    handoff.awaitRow()
                    known = progress[awaited]
                    awaited += 1
                    wait = false
                }
            }
            var met = false
            // The snapshot to compare with next.
            var next = 0
            var row = 0, column = 0
            var flatRows = 0
            var rowBytes = 0
            do throws(JPEGError) {
                rowLoop: while row < rows {
                    if cancellation.isCancelled { throw .core(.cancelled) }
                    if !met { update(blocking: false) }
                    let published = Int(known.snapshots)
                    let rowStart = scan.reader.stream.position
                    // A row that starts mid-way had its first MCUs from the records: not flat.
                    let decodedBefore = scan.decodedMCUs - (column > 0 ? 1 : 0)
                    // Whole rows until this one may reach the next snapshot, then MCU by MCU.
                    if !met && next < published && rowStart + 2 * rowBytes >= snapshots[next].position {
                        while column < columns {
                            let position = scan.reader.stream.position, count = scan.reader.count
                            while next < published && snapshots[next].isBefore(position: position, count: count) {
                                next += 1
                            }
                            if next < published && scan.reader.marker == nil
                                && snapshots[next].position == position && snapshots[next].count == count {
                                // The decodes have met: the records from here on.
                                let meeting = row * columns + column
                                let taken = try Self.takeSecondPart(&scan, at: meeting, snapshot: next, interval: interval,
                                                                    known: known, total: total, records: recordBase,
                                                                    snapshots: snapshots,
                                                                    predictors: predictors, columns: columns,
                                                                    row: &row, column: &column, buffers: &buffers,
                                                                    output: &output, replayScratch: replayScratch,
                                                                    into: &sink, cancellation: cancellation) {
                                    update(blocking: true)
                                    return known
                                }
                                report.meetingBits = (position - part.split) * 8 - count
                                report.mcusTaken = taken
                                report.meetingMCU = meeting
                                met = true
                                flatRows = 0
                                continue rowLoop
                            }
                            if next >= published { break }
                            try scan.decodeRow(columns: column + 1, from: column, log: &log)
                            column += 1
                        }
                    }
                    if column < columns { try scan.decodeRow(columns: columns, from: column, log: &log) }
                    column = 0
                    rowBytes = scan.reader.stream.position - rowStart
                    let emitted = try output.emitMCURow(row, &buffers, into: &sink)
                    // As `streamRows`: two flat MCU rows once the data is spent end the decode.
                    flatRows = scan.decodedMCUs == decodedBefore ? flatRows + 1 : 0
                    if flatRows >= 2 && scan.isSpent && emitted {
                        repeated = try output.repeatLastRow(buffers, into: &sink)
                        break
                    }
                    output.keepContextRows(buffers)
                    row += 1
                }
            } catch {
                stopError = error
            }
            // Publications left waiting are not needed: the producer stops at its next batch.
            handoff.requestStop()
        })
        report.split = part.split
        report.end = part.end
        lastSplit = report
        if let stopError { throw stopError }
        try finishScan(&scan, log: &log)
        repeatedRows = repeated
    }

    /// The first thread's side of the meeting (see `SplitScan`): the MCUs from `mcu` (at
    /// `row`, `column`) come from the second thread's records, starting at snapshot
    /// `snapshot`, as the second publishes them (`known` so far; `wait` waits for the next
    /// publication and returns what is then known), up to the last snapshot the records
    /// reach once it is done, whose state `scan` then takes over; the rows they complete go
    /// to `sink`. Leaves `row` and `column` at the first MCU still to decode, and returns how
    /// many MCUs it took.
    static func takeSecondPart<Sink: RowSink>(
        _ scan: inout ScanDecoder, at mcu: Int, snapshot: Int, interval: Int, known: SplitScan.Progress, total: Int,
        records: UnsafeMutablePointer<Int16>, snapshots: UnsafeMutablePointer<SplitScan.Snapshot>,
        predictors: UnsafeMutablePointer<Int32>, columns: Int, row: inout Int, column: inout Int,
        buffers: inout [ComponentBuffer], output: inout OutputStage, replayScratch: ScanScratch, into sink: inout Sink,
        cancellation: CancellationCheck, wait: () -> SplitScan.Progress
    ) throws(JPEGError) -> Int {
        // The second thread's MCUs from `first` on are the image's from `mcu` on: past
        // `limit` they would lie beyond its last MCU.
        let first = snapshot * interval
        let limit = first + total - mcu
        // The true predictors less the second thread's, at the meeting point.
        var offsets: [Int32] = []
        for (i, unit) in scan.units.enumerated() {
            offsets.append(unit.predictor &- predictors[snapshot * SplitScan.predictorsPerSnapshot + i])
        }
        let dcOffsets = offsets.map { Int16(truncatingIfNeeded: $0) }
        var known = known
        // The snapshot the replay has reached.
        var at = snapshot
        while true {
            // The last snapshot whose MCUs before it are all recorded and in the image.
            let last = max(at, min(min(Int(known.decoded), limit) / interval, Int(known.snapshots) - 1))
            if last > at {
                // The records of MCUs at · interval ..< last · interval, all complete.
                let taken = (last - at) * interval
                var record = records + snapshots[at].record
                DeferredBlocks.addToDC(record, mcus: taken, units: scan.units, offsets: dcOffsets)
                var done = 0
                while done < taken {
                    let count = min(columns - column, taken - done)
                    record = DeferredBlocks.replay(record, columns: column ..< column + count, units: scan.units,
                                                   scratch: replayScratch)
                    done += count
                    column += count
                    if column == columns {
                        _ = try output.emitMCURow(row, &buffers, into: &sink)
                        output.keepContextRows(buffers)
                        row += 1
                        column = 0
                        if cancellation.isCancelled { throw .core(.cancelled) }
                    }
                }
                at = last
            }
            // Done, or no later snapshot can lie inside the image.
            if known.done || at >= limit / interval { break }
            known = wait()
        }
        // Where the second thread stood at snapshot `at`, with the true predictors.
        let resume = snapshots[at]
        scan.reader.stream.seek(to: resume.position)
        scan.reader.buffer = resume.buffer
        scan.reader.count = resume.count
        scan.reader.padding = 0
        scan.reader.marker = nil
        scan.reader.plainFrom = 0
        scan.reader.plainTo = 0
        for i in 0 ..< scan.units.count {
            scan.units[i].predictor = predictors[at * SplitScan.predictorsPerSnapshot + i] &+ offsets[i]
        }
        let taken = (at - snapshot) * interval
        scan.decodedMCUs &+= taken
        return taken
    }
}
