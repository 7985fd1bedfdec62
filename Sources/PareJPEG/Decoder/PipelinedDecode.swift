@_spi(Codec) @_spi(Pipeline) import PareCore

extension JPEGDecoder {
    /// Decodes a sequential JPEG whose one scan holds every component (the usual photograph)
    /// on two threads, with exactly `decode`'s rows, warnings and errors: the handoff's thread
    /// (the producer) entropy-decodes each MCU row into a ring of `handoff.slots` rows of block records
    /// (`DeferredBlocks`), and the caller's thread (the consumer) transforms them, upsamples,
    /// converts colour and feeds `sink`. Huffman decoding cannot be split without restart
    /// markers (each code starts where the one before ended), but everything after it can run
    /// beside it. Which half is longer depends on the scale and on the sink (a full-scale
    /// decode into a resampler loads the consumer most), so the producer also transforms the
    /// blocks of a row while all the other rows of the ring wait for the consumer
    /// (`handoff.consumerIsBehind`); the samples are the same whoever transforms them.
    ///
    /// The two follow the serial decode step for step. An error of the producer's ends the
    /// rows at the MCU row that failed, as in `decode`; the consumer asks `cancellation`
    /// before each MCU row it transforms (the producer never does: it may run on a thread
    /// the check cannot see from). Where `decode` stops early because the data is spent and
    /// only flat rows would follow (`streamRows`), the producer waits for the consumer's
    /// decision on that row before it decodes another, so that neither reads nor warns
    /// beyond where `decode` would.
    ///
    /// Memory: the records of `handoff.slots` MCU rows (66 Int16 a block, 2 at 1/8), a block
    /// of samples and a second `ScanScratch` on top of `decode`'s buffers, all allocated on the caller's thread
    /// before the producer starts (the producer allocates nothing); where the ledger's limit
    /// leaves no room for them, `decode` runs instead.
    ///
    /// A progressive JPEG is split after its scans instead (`reconstructPipelined`). Any other
    /// JPEG goes to `decode`.
    @_spi(Pipeline) public mutating func decodePipelined<Sink: RowSink, Handoff: DecodePipelineHandoff>(
        scale: JPEGScale, handoff: Handoff, into sink: inout Sink
    ) throws(JPEGError) {
        if frame.process == .progressive {
            return try reconstructPipelined(scale: scale, handoff: handoff, into: &sink)
        }
        guard firstScan.components.count == frame.components.count else {
            return try decode(scale: scale, into: &sink)
        }
        let plan = try ScalePlan(frame: frame, scale: scale, offset: firstScan.offset)
        // Where the transforms are next to nothing (1/8 scale), the two threads share the
        // entropy decoding instead.
        if canSplitScan(plan) { return try decodeSplit(plan: plan, scale: scale, handoff: handoff, into: &sink) }
        let slots = max(2, handoff.slots)
        // What the pipeline holds beyond `decode`'s buffers: the ring and a second scratch.
        // Where the ledger has no room for it, the image is decoded serially, as it would
        // have been without a second core.
        let recordsPerMCU = plan.components.reduce(0) {
            $0 + $1.horizontal * $1.vertical * DeferredBlocks.largestRecord(blockSize: $1.blockSize)
        }
        let (recordsPerRow, o1) = plan.mcusPerLine.multipliedReportingOverflow(by: recordsPerMCU)
        let (ringCount, o2) = recordsPerRow.multipliedReportingOverflow(by: slots)
        guard !o1, !o2 else { throw .core(.sizeOverflow) }
        let pipeline = try Self.unlessOverLimit { () throws(JPEGError) in
            let ring = try core { () throws(CoreError) in
                (records: try ledger.allocate(Int16.self, count: ringCount, initialValue: 0),
                 candidates: try ledger.allocate(Bool.self, count: slots, initialValue: false),
                 decoded: try ledger.allocate(Bool.self, count: slots, initialValue: false),
                 samples: try ledger.allocate(UInt8.self, count: 64, initialValue: 0))
            }
            return (ring: ring, replayScratch: try ScanScratch(ledger: ledger), stage: try makeRowStage(plan: plan))
        }
        guard let pipeline else { return try decode(scale: scale, into: &sink) }
        let ring = pipeline.ring, replayScratch = pipeline.replayScratch, scratch = pipeline.stage.scratch
        var buffers = pipeline.stage.buffers, output = pipeline.stage.output
        var log = startFrameDecode()
        defer { finishDecode(log) }
        try beginRows(plan, into: &sink)
        var scan = try makeScan(firstScan, number: 1, tables: tables, restartInterval: info.restartInterval,
                                plan: plan, buffers: buffers, scratch: scratch)
        let units = scan.units
        let cursor = DeferredBlocks.Cursor(ring.records.baseAddress)
        scan.deferral = Unmanaged.passUnretained(cursor)
        defer { withExtendedLifetime(cursor) {} }
        let cancellation = self.cancellation
        let rows = plan.mcuRows, columns = plan.mcusPerLine
        let records = ring.records.baseAddress, samples = ring.samples.baseAddress

        // Shared state. A slot's entries are written by the producer while it holds the slot,
        // before `publishRow`, and read by the consumer after the matching `awaitRow`, before
        // it gives the slot back; `failure` and `stopError` are read only once both threads
        // have returned; the stop request goes through the handoff.
        let mayStop = ring.candidates.baseAddress      // producer, per ring slot
        let decoded = ring.decoded.baseAddress         // producer, per ring slot: a row, or the end
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
                    if handoff.forcedShare ?? handoff.consumerIsBehind {
                        DeferredBlocks.transform(records + (mcuRow % slots) * recordsPerRow, mcusPerLine: columns,
                                                 units: units, scratch: scratch, samples: samples)
                    }
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
                DeferredBlocks.replay(records + (mcuRow % slots) * recordsPerRow, columns: 0 ..< columns, units: units,
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
        try finishScan(&scan, log: &log)
        repeatedRows = repeated
    }

    /// A progressive JPEG on two threads, with exactly `decode`'s rows, warnings and errors:
    /// the scans are read into the coefficient store on the caller's thread as `decode` reads
    /// them (each refines blocks all over the image, so none can be handed over before the
    /// last), then the handoff's thread (the producer) transforms MCU row after MCU row into a
    /// ring of `handoff.slots` sets of component rows while the caller's thread (the
    /// consumer) upsamples, converts colour and feeds `sink` from the set before.
    ///
    /// Each set holds one MCU row below a context row, as `decode`'s one set does; the
    /// producer copies the previous row's last sample row into the context row of the next,
    /// where `decode` moves it within its set after emitting. The set it copies from is the
    /// one before its own in the ring, which it cannot be refilling. The consumer asks
    /// `cancellation` before each MCU row and makes `decode`'s early stop on flat rows.
    ///
    /// Memory: `handoff.slots − 1` more sets of component rows beside `decode`'s buffers,
    /// allocated before the scans; where the ledger has no room for them, the rows are made
    /// on the caller's thread alone, as `decode` makes them.
    mutating func reconstructPipelined<Sink: RowSink, Handoff: DecodePipelineHandoff>(
        scale: JPEGScale, handoff: Handoff, into sink: inout Sink
    ) throws(JPEGError) {
        // `decode`'s own buffers, in its order, so that the same limits fail the same way.
        let plan = try ScalePlan(frame: frame, scale: scale, offset: firstScan.offset)
        let stage = try makeRowStage(plan: plan)
        var buffers = stage.buffers, output = stage.output
        let scratch = stage.scratch
        let store = try CoefficientStore(frame: frame, plan: plan, options: options, ledger: ledger)
        // The ring's other sets; without room for them the one set serves, as in `decode`.
        let slots = max(2, handoff.slots)
        let sets = try Self.unlessOverLimit { () throws(JPEGError) in
            var sets = [buffers]
            for _ in 1 ..< slots { sets.append(try Self.makeBuffers(plan: plan, streaming: true, ledger: ledger)) }
            return sets
        } ?? [buffers]
        var log = startFrameDecode()
        defer { finishDecode(log) }
        try beginRows(plan, into: &sink)
        try decodeScans(into: store, log: &log)
        guard sets.count == slots else {
            repeatedRows = try reconstruct(store, plan: plan, buffers: &buffers, scratch: scratch, output: &output,
                                           into: &sink)
            return
        }

        let smoothing = BlockSmoothing(store: store)
        let cancellation = self.cancellation
        let rows = plan.mcuRows
        // Shared state: set mcuRow % slots is written by the producer while it holds that
        // slot, before `publishRow`, and read by the consumer after the matching `awaitRow`,
        // before it gives the slot back; `stopError` and `repeated` are read only once both
        // threads have returned; the stop request goes through the handoff.
        var stopError: JPEGError?                      // consumer
        var repeated = 0                               // consumer
        handoff.run(producer: {
            for mcuRow in 0 ..< rows {
                handoff.acquireSlot()
                if handoff.stopRequested { break }
                let set = sets[mcuRow % slots]
                Self.transform(mcuRow: mcuRow, of: store, plan: plan, into: set, scratch: scratch, smoothing: smoothing)
                if mcuRow > 0 {
                    let before = sets[(mcuRow - 1) % slots]
                    for c in 0 ..< set.count {
                        // SAFETY: both sets hold rowsPerMCURow + 1 rows of `stride` bytes.
                        set[c].storage.baseAddress.update(
                            from: before[c].storage.baseAddress + plan.components[c].rowsPerMCURow * before[c].stride,
                            count: set[c].stride)
                    }
                }
                handoff.publishRow()
            }
        }, consumer: {
            for mcuRow in 0 ..< rows {
                handoff.awaitRow()
                if cancellation.isCancelled {
                    stopError = .core(.cancelled)
                    handoff.requestStop()
                    for _ in 0 ..< slots { handoff.releaseSlot() }
                    break
                }
                var set = sets[mcuRow % slots]
                do throws(JPEGError) {
                    if try output.emitMCURow(mcuRow, &set, into: &sink) && mcuRow >= store.rowsReached + 3 {
                        repeated = try output.repeatLastRow(set, into: &sink)
                        handoff.requestStop()
                        for _ in 0 ..< slots { handoff.releaseSlot() }
                        break
                    }
                } catch {
                    // The sink refused a row: stop as a cancellation does.
                    stopError = error
                    handoff.requestStop()
                    for _ in 0 ..< slots { handoff.releaseSlot() }
                    break
                }
                handoff.releaseSlot()
            }
        })
        if let stopError { throw stopError }
        repeatedRows = repeated
    }
}
