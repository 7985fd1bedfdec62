@_spi(Codec) import PareCore

/// What `JPEGDecoder.decodePipelined` needs from its caller: a second thread, and two
/// counting semaphores between it and the caller's. PareJPEG makes no threads of its own (it
/// builds for bare-metal cores); Pare's `ParallelJPEGDecoder` supplies these.
@_spi(Pipeline) public protocol DecodePipelineHandoff {
    /// Runs `producer` on another thread while `consumer` runs on this one, and returns once
    /// both have returned.
    func run(producer: () -> Void, consumer: () -> Void)
    /// MCU rows of records the ring holds (at least 2).
    var slots: Int { get }
    /// The ring's slots, all free at the start: the producer takes one before each MCU row,
    /// the consumer gives it back once the row's blocks are transformed.
    func acquireSlot()
    func releaseSlot()
    /// The producer's rows: one `publishRow` per decoded MCU row and one when it stops early,
    /// each waited for by one `awaitRow`.
    func publishRow()
    func awaitRow()
    /// The consumer's word to the producer, which asks for it between rows: decode no
    /// further. Safe to call and read from both threads at any time.
    func requestStop()
    var stopRequested: Bool { get }
}

extension JPEGDecoder {
    /// Decodes a sequential JPEG whose one scan holds every component (the usual photograph)
    /// on two threads, with exactly `decode`'s rows, warnings and errors: the handoff's thread
    /// (the producer) entropy-decodes each MCU row into a ring of `handoff.slots` rows of block records
    /// (`DeferredBlocks`), and the caller's thread (the consumer) transforms them, upsamples,
    /// converts colour and feeds `sink`. Huffman decoding cannot be split without restart
    /// markers (each code starts where the one before ended), but everything after it can run
    /// beside it; on photographs at 1/2 scale the two halves take about as long.
    ///
    /// The two follow the serial decode step for step. An error of the producer's ends the
    /// rows at the MCU row that failed, as in `decode`; the consumer asks `cancellation`
    /// before each MCU row it transforms (the producer never does: it may run on a thread
    /// the check cannot see from). Where `decode` stops early because the data is spent and
    /// only flat rows would follow (`streamRows`), the producer waits for the consumer's
    /// decision on that row before it decodes another, so that neither reads nor warns
    /// beyond where `decode` would.
    ///
    /// Memory: the records of `handoff.slots` MCU rows (66 Int16 a block, 2 at 1/8) and a
    /// second `ScanScratch` on top of `decode`'s buffers, all allocated on the caller's thread
    /// before the producer starts (the producer allocates nothing); where the ledger's limit
    /// leaves no room for them, `decode` runs instead. Any other JPEG goes to `decode` too.
    @_spi(Pipeline) public mutating func decodePipelined<Sink: RowSink, Handoff: DecodePipelineHandoff>(
        scale: JPEGScale, handoff: Handoff, into sink: inout Sink
    ) throws(JPEGError) {
        guard frame.process != .progressive, firstScan.components.count == frame.components.count else {
            return try decode(scale: scale, into: &sink)
        }
        let plan = try ScalePlan(frame: frame, scale: scale, offset: firstScan.offset)
        let slots = max(2, handoff.slots)
        // What the pipeline holds beyond `decode`'s buffers: the ring and a second scratch.
        // Where the ledger has no room for it, the image is decoded serially, as it would
        // have been without a second core.
        let recordsPerMCU = plan.components.reduce(0) {
            $0 + $1.horizontal * $1.vertical * DeferredBlocks.recordSize(blockSize: $1.blockSize)
        }
        let (recordsPerRow, o1) = plan.mcusPerLine.multipliedReportingOverflow(by: recordsPerMCU)
        let (ringCount, o2) = recordsPerRow.multipliedReportingOverflow(by: slots)
        guard !o1, !o2 else { throw .core(.sizeOverflow) }
        var buffers: [ComponentBuffer]
        let scratch: ScanScratch, replayScratch: ScanScratch
        var output: OutputStage
        let ring: LedgerBuffer<Int16>, candidates: LedgerBuffer<Bool>, decodedFlags: LedgerBuffer<Bool>
        do throws(JPEGError) {
            (ring, candidates, decodedFlags) = try core { () throws(CoreError) in
                (try ledger.allocate(Int16.self, count: ringCount, initialValue: 0),
                 try ledger.allocate(Bool.self, count: slots, initialValue: false),
                 try ledger.allocate(Bool.self, count: slots, initialValue: false))
            }
            replayScratch = try ScanScratch(ledger: ledger)
            buffers = try Self.makeBuffers(plan: plan, streaming: true, ledger: ledger)
            scratch = try ScanScratch(ledger: ledger)
            output = try OutputStage(plan: plan, colorSpace: info.colorSpace, format: outputFormat, ledger: ledger)
        } catch {
            guard case .core(.limitExceeded) = error else { throw error }
            return try decode(scale: scale, into: &sink)
        }
        var log = startFrameDecode()
        defer { finishDecode(log) }
        let header = RowStreamHeader(width: plan.outputWidth, height: plan.outputHeight, format: outputFormat)
        try core { () throws(CoreError) in try sink.begin(header) }
        rewind(to: scanStart)
        var scan = try makeScan(firstScan, number: 1, tables: tables, restartInterval: info.restartInterval,
                                plan: plan, buffers: buffers, scratch: scratch)
        let units = scan.units
        let cursor = DeferredBlocks.Cursor(ring.baseAddress)
        scan.deferral = cursor
        let cancellation = self.cancellation
        let rows = plan.mcuRows, columns = plan.mcusPerLine
        let records = ring.baseAddress

        // Shared state. A slot's entries are written by the producer while it holds the slot,
        // before `publishRow`, and read by the consumer after the matching `awaitRow`, before
        // it gives the slot back; `failure` and `stopError` are read only once both threads
        // have returned; the stop request goes through the handoff.
        let mayStop = candidates.baseAddress           // producer, per ring slot
        let decoded = decodedFlags.baseAddress         // producer, per ring slot: a row, or the end
        var failure: JPEGError?                        // producer
        var stopError: JPEGError?                      // consumer
        var repeated = 0                               // consumer

        handoff.run(producer: {
            var flatRows = 0
            for mcuRow in 0 ..< rows {
                handoff.acquireSlot()
                if handoff.stopRequested { break }
                // SAFETY: slot mcuRow % slots < slots of the ring holds recordsPerRow entries,
                // a record for each block of an MCU row.
                cursor.next = records + (mcuRow % slots) * recordsPerRow
                do throws(JPEGError) {
                    try scan.decodeRow(columns: columns, from: 0, log: &log)
                } catch {
                    failure = error
                    // The end, in the slot this row would have used (the producer holds it).
                    decoded[mcuRow % slots] = false
                    handoff.publishRow()
                    break
                }
                // As `streamRows`: once the data is spent and two MCU rows came out flat, the
                // consumer repeats a row for the rest, if this row emitted any.
                flatRows = scan.lastRowWasFlat ? flatRows + 1 : 0
                let candidate = flatRows >= 2 && scan.isSpent
                mayStop[mcuRow % slots] = candidate
                decoded[mcuRow % slots] = true
                handoff.publishRow()
                if candidate {
                    // Every slot free (this row's too) means the consumer has made its decision
                    // on this row.
                    for _ in 0 ..< slots { handoff.acquireSlot() }
                    for _ in 0 ..< slots { handoff.releaseSlot() }
                    if handoff.stopRequested { break }
                }
            }
        }, consumer: {
            for mcuRow in 0 ..< rows {
                handoff.awaitRow()
                if !decoded[mcuRow % slots] { break }
                if cancellation.isCancelled {
                    stopError = .core(.cancelled)
                    handoff.requestStop()
                    for _ in 0 ..< slots { handoff.releaseSlot() }
                    break
                }
                DeferredBlocks.replay(records + (mcuRow % slots) * recordsPerRow, mcusPerLine: columns, units: units,
                                      scratch: replayScratch)
                let candidate = mayStop[mcuRow % slots]
                if !candidate { handoff.releaseSlot() }
                do throws(JPEGError) {
                    let emitted = try output.emitMCURow(mcuRow, &buffers, into: &sink)
                    if candidate {
                        if emitted {
                            repeated = try output.repeatLastRow(buffers, into: &sink)
                            handoff.requestStop()
                        }
                        handoff.releaseSlot()
                        if emitted { break }
                    }
                } catch {
                    // The sink refused a row: stop as a cancellation does.
                    stopError = error
                    handoff.requestStop()
                    for _ in 0 ..< slots { handoff.releaseSlot() }
                    break
                }
                output.keepContextRows(buffers)
            }
        })
        if let stopError { throw stopError }
        if let failure { throw failure }
        // After the last row, or after the rows `decode` would have stopped at.
        try scan.finish(log: &log)
        repeatedRows = repeated
        decodedMCUs = scan.decodedMCUs
        coefficientDigest = scan.coefficientDigest
        swap(&reader, &scan.reader)
    }
}
