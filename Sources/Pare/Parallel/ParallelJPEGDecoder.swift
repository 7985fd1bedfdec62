import Dispatch
import PareCore
@_spi(Bands) @_spi(Pipeline) import PareJPEG

/// Decodes a sequential JPEG with restart markers on several cores and streams its rows, in
/// order, into one sink; one without them, at 1/2 or full scale, on two
/// (`JPEGDecoder.decodePipelined`: entropy decoding on one, the rest on the caller's), and
/// at 1/8 on two as well, with the entropy decoding itself split in the middle of the scan
/// (`SplitScan`), where the image has at least `minimumSplitPixels`; any other JPEG is
/// decoded serially by `JPEGDecoder`.
///
/// T.81 E.1.4 / F.2.2.5 make each restart interval independent: it starts byte-aligned after
/// an RSTm marker with the DC predictors at zero. `JPEGDecoder.restartIndex()` finds those
/// starts in one pass over the bytes (and refuses any scan whose RST sequence is not
/// perfect); the MCU rows are then cut into bands, and `JPEGDecoder.decodeBand` decodes each
/// band from the interval above it, bit-exact with the serial decode. libjpeg's API, which
/// reads the scan strictly front to back, has no counterpart.
///
/// Orchestration, for `workers` cores: `workers − 1` helper threads start as soon as the
/// headers show restart intervals, and the first one decodes band 0, which starts where the
/// scan starts, while the caller's thread indexes the scan. From then on the caller's
/// thread is a worker too: it streams every finished band, in order, into the sink, and
/// when the next band is not finished yet it decodes the next unclaimed band itself rather
/// than wait. So no more threads run than there are cores, and none sleeps while there is
/// work: on the 2-core virtual machine this was measured on, a new thread began running
/// 0.5–1.4 ms after `pthread_create`, a tenth of a 12 MP decode at 1/8, and a third thread
/// would only take turns with the other two.
///
/// Bands are claimed in order, each into one of `slots` band buffers; band k may be claimed
/// only once band k − slots has been streamed, so at most `slots` bands are buffered, each
/// at most `maxBandBytes` of output (or two MCU rows, if more). `slots` is `workers + 1`, or
/// as many as fit in `maxBandBytes` together when bands are small (a decode at 1/8): a
/// worker that runs ahead of the caller's thread, which streams the bands in order, then
/// goes on decoding instead of sleeping until a buffer is streamed: with only three, the
/// helper slept whenever the caller's thread was preempted (see Benchmarks/notes/history.md).
/// Bands are equal, sized for that bound and so that each worker gets eight, but not smaller
/// than two MCU rows, since a band whose chroma is upsampled vertically also decodes the MCU
/// row above it. Eight: with four, the thread that finished first waited longer for the
/// other at the end (12 MP at 1/8: median 20.2 ms against 19.1 ms with eight; sixteen gave
/// 18.4 ms, within the noise, for twice the extra rows). When every band has a buffer of
/// its own, the bands shrink once fewer than `2 · workers` full ones are left (each takes a
/// `2 · workers`-th of the rows left, at least two MCU rows), so that the threads finish
/// closer together.
/// With fewer buffers they stay equal: shrinking bands measured slower there, since a large
/// band still being decoded holds its buffer and the other thread runs out of buffers.
///
/// Memory accounting: `MemoryLedger` is single-threaded, so the caller's ledger sees only the
/// caller's thread (the index, the band buffers, its own band decoder, the serial fallback);
/// each helper counts its decoder in a ledger of its own, limited to an equal share of what
/// the caller's ledger has left. At the end the helpers' peaks are recorded in the caller's
/// ledger (`recordPeak(additional:)`) on top of what it holds with the band buffers still
/// allocated, as if every peak had come at once: an upper bound on the real simultaneous peak.
///
/// Cancellation: the caller's thread asks `cancellation` before each band it streams, and its
/// decoder asks once per MCU row of the bands it decodes itself; the helpers stop after the
/// band they are decoding. Then every buffer is released and `.core(.cancelled)` thrown.
///
/// Repairs: a band that throws or records any warning is not used. The workers stop, and the
/// serial decoder decodes the whole image again, passing on only the rows the sink has not
/// had yet, so that a damaged file gets exactly the serial decode's rows, warnings and errors.
public enum ParallelJPEGDecoder {
    /// What a decode reports besides its rows.
    public struct Outcome {
        /// The serial decoder's warnings (header repairs, plus the scan's when it ran).
        public var warnings: [JPEGWarning]
        /// Further warnings, counted but not kept (past `JPEGOptions.maxWarnings`).
        public var droppedWarnings: Int
        /// Bands decoded in parallel; 0 when the image went through the serial decoder only.
        public var bands: Int
        /// True when bands were begun but a damaged one sent the image to the serial decoder.
        public var fellBack: Bool
    }

    /// Cores this process may run on now.
    public static var activeCores: Int { UsableCores.count }

    /// The smallest image whose entropy decoding at 1/8 is split between two threads: below
    /// it, starting the second thread costs about what it would save.
    public static let minimumSplitPixels = 1 << 20

    /// The largest band buffer, in output bytes, unless two MCU rows are larger.
    public static let defaultMaxBandBytes = 2 * 1024 * 1024

    /// Decodes `source` at `scale` into `sink` (begin, then every row once, top to bottom),
    /// on `workers` threads (the caller's among them) when the image has a usable restart
    /// index, else serially. Stops with `.core(.cancelled)` when `cancellation` says so.
    public static func decode<Source: ByteSource & SendableMetatype, Sink: RowSink>(
        source: Source, scale: JPEGScale, options: JPEGOptions = JPEGOptions(), ledger: MemoryLedger,
        workers: Int = activeCores, maxBandBytes: Int = defaultMaxBandBytes,
        cancellation: CancellationCheck = CancellationCheck(), dataEnd: Int? = nil, into sink: inout Sink
    ) throws(JPEGError) -> Outcome {
        var decoder = try JPEGDecoder(source: source, ledger: ledger, options: options)
        decoder.cancellation = cancellation
        decoder.dataEnd = dataEnd
        let headerWarnings = decoder.warnings.count, headerDropped = decoder.droppedWarnings
        func serial(into sink: inout Sink) throws(JPEGError) -> Outcome {
            // Without restart markers, two threads still share the work at 1/2 and full scale,
            // where the transforms and the output stage weigh as much as the entropy decoding;
            // at 1/4 they are too light to pay for the handoffs (Benchmarks/notes/history.md).
            // At 1/8 the two threads split the entropy decoding itself (`SplitScan`), where the
            // image is large enough to pay for starting a thread.
            let splits = scale == .eighth && decoder.info.width * decoder.info.height >= minimumSplitPixels
                && decoder.splitsScan(at: scale)
            if workers > 1 && (scale == .full || scale == .half || splits) {
                try decoder.decodePipelined(scale: scale, handoff: DecodePipelineThreads(slots: 8), into: &sink)
            } else {
                try decoder.decode(scale: scale, into: &sink)
            }
            return Outcome(warnings: decoder.warnings, droppedWarnings: decoder.droppedWarnings, bands: 0, fellBack: false)
        }
        guard workers > 1, let layout = try decoder.restartLayout() else { return try serial(into: &sink) }

        let (width, height) = decoder.outputSize(at: scale)
        let rowBytes = width * decoder.outputFormat.bytesPerPixel
        let rowsPerMCURow = max(1, (height + layout.mcuRows - 1) / layout.mcuRows)
        let byMemory = max(1, maxBandBytes / max(1, rowBytes * rowsPerMCURow))
        let bySharing = (layout.mcuRows + 8 * workers - 1) / (8 * workers)
        let mcuRowsPerBand = max(2, min(byMemory, bySharing))
        /// The bands, their output rows and the band buffers' count and size; with
        /// `shrinking`, bands shrink once fewer than `2 · workers` full ones are left.
        func cut(shrinking: Bool) throws(JPEGError) -> (bands: [Range<Int>], rows: [Range<Int>], slots: Int, bytes: Int) {
            var bands: [Range<Int>] = []
            var rowRanges: [Range<Int>] = []
            var start = 0
            while start < layout.mcuRows {
                let left = layout.mcuRows - start
                let size = shrinking ? max(2, min(mcuRowsPerBand, (left + 2 * workers - 1) / (2 * workers))) : mcuRowsPerBand
                let band = start ..< min(start + size, layout.mcuRows)
                bands.append(band)
                rowRanges.append(try decoder.outputRows(ofBand: band, scale: scale))
                start = band.upperBound
            }
            let largest = rowRanges.map(\.count).max() ?? 0
            let (bandBytes, overflow) = largest.multipliedReportingOverflow(by: rowBytes)
            guard !overflow else { throw .core(.sizeOverflow) }
            // Buffers for every band that fits in one `maxBandBytes`, and at least one more than
            // there are workers: memory stays under max(workers + 1 bands, maxBandBytes).
            let slots = min(bands.count, max(workers + 1, maxBandBytes / max(1, bandBytes)))
            return (bands, rowRanges, slots, bandBytes)
        }
        // Shrinking bands only when each has a buffer: else a large band still being decoded
        // holds its buffer while the other threads run out of buffers for the small ones.
        var plan = try cut(shrinking: true)
        if plan.slots < plan.bands.count { plan = try cut(shrinking: false) }
        let (bands, rowRanges, slots, bandBytes) = plan
        guard bands.count > 1 else { return try serial(into: &sink) }

        var pool: [LedgerBuffer<UInt8>] = []
        do {
            for _ in 0 ..< slots { pool.append(try ledger.allocate(UInt8.self, count: bandBytes, initialValue: 0)) }
        } catch {
            // The ledger's limit leaves no room for the bands: the serial decode needs less.
            pool.removeAll()
            return try serial(into: &sink)
        }

        let helperLimit = ledger.limit.map { max(0, $0 - ledger.currentBytes) / workers }
        let job = BandJob(source: source, options: options, scale: scale, bands: bands,
                          rowRanges: rowRanges, rowBytes: rowBytes, buffers: pool.map(\.baseAddress),
                          helpers: workers - 1, helperLimit: helperLimit, headerWarnings: headerWarnings,
                          headerDropped: headerDropped)
        var helpers: [WorkerThread] = []
        for helper in 0 ..< workers - 1 {
            if let thread = WorkerThread({ job.run(helper: helper) }) { helpers.append(thread) }
        }
        guard !helpers.isEmpty else {
            pool.removeAll()
            return try serial(into: &sink)
        }
        /// Stops the helpers after the bands they are decoding and waits for them.
        func finishHelpers() {
            job.stop()
            for thread in helpers { thread.join() }
            helpers.removeAll()
        }

        let index: RestartIndex?
        do {
            index = try decoder.restartIndex()
        } catch {
            job.release(index: nil)
            finishHelpers()
            throw error
        }
        job.release(index: index)
        guard let index else {
            finishHelpers()
            pool.removeAll()
            return try serial(into: &sink)
        }
        do {
            try sink.begin(RowStreamHeader(width: width, height: height, format: decoder.outputFormat))
        } catch {
            finishHelpers()
            throw .core(error)
        }

        var delivered = 0
        var failed = false
        var cancelled = false
        var refused: CoreError?
        var next = 0
        delivery: while next < bands.count {
            if cancellation.isCancelled {
                cancelled = true
                break
            }
            let finished = job.ready[next].wait(timeout: .now()) == .success
            if !finished, let k = job.claimIfSlotFree() {
                var bandSink = job.bandBuffer(k)
                let succeeded: Bool
                do {
                    try decoder.decodeBand(scale: scale, mcuRows: bands[k], index: index, into: &bandSink)
                    succeeded = decoder.warnings.count == headerWarnings && decoder.droppedWarnings == headerDropped
                        && bandSink.received == rowRanges[k].count
                } catch .core(.cancelled) {
                    succeeded = false
                    cancelled = true
                } catch {
                    succeeded = false
                }
                job.complete(k, succeeded: succeeded)
                if cancelled { break }
                continue
            }
            if !finished { job.ready[next].wait() }
            guard job.succeeded(next) else {
                failed = true
                break
            }
            let base = job.buffers[next % slots]
            for (i, y) in rowRanges[next].enumerated() {
                do {
                    try sink.consume(UnsafeBufferPointer(start: base + i * rowBytes, count: rowBytes),
                                     at: RowPlacement(y: y, width: width))
                } catch {
                    // The sink refused a row: the helpers stop as for a cancellation.
                    refused = error
                    break delivery
                }
            }
            delivered = rowRanges[next].upperBound
            job.slots.signal()
            next += 1
        }
        finishHelpers()
        ledger.recordPeak(additional: job.helperPeaks.reduce(0, +))
        pool.removeAll()
        if cancelled { throw .core(.cancelled) }
        if let refused { throw .core(refused) }
        guard failed else {
            return Outcome(warnings: decoder.warnings, droppedWarnings: decoder.droppedWarnings, bands: bands.count,
                           fellBack: false)
        }
        var resuming = ResumingSink(inner: sink, from: delivered)
        defer { sink = resuming.inner }
        try decoder.decode(scale: scale, into: &resuming)
        return Outcome(warnings: decoder.warnings, droppedWarnings: decoder.droppedWarnings, bands: bands.count,
                       fellBack: true)
    }
}

/// The state the caller's thread and the helpers share for one parallel decode.
///
/// Unchecked-Sendable because its mutable parts are handed over by the semaphores: band k's
/// buffer and result are written only by the thread that claimed k (claims are made under
/// `lock`) before it signals `ready[k]`, and read by the caller only after that wait;
/// a buffer is reused for band k + slots only after the caller signalled `slots` for band k.
/// `index` is written once, before `indexReady` is signalled, and only read after that wait.
/// `helperPeaks[h]` is written by helper h and read after the threads are joined. The source
/// is only read, through `read(into:at:)` (a memory array or `pread`), and the index's buffer
/// is read-only while the job runs and outlives it.
// Sound: the `lock`, `ready`, `slots` and `indexReady` semaphores and the joins order every write before its reads.
final class BandJob<Source: ByteSource & SendableMetatype>: @unchecked Sendable {
    let source: Source
    let options: JPEGOptions
    let scale: JPEGScale
    let bands: [Range<Int>]
    let rowRanges: [Range<Int>]
    let rowBytes: Int
    let buffers: [UnsafeMutablePointer<UInt8>]
    let helperLimit: Int?
    let headerWarnings: Int
    let headerDropped: Int
    let ready: [DispatchSemaphore]
    let slots: DispatchSemaphore
    private var index: RestartIndex?
    /// Signalled once the index is known (or known to be missing), and left signalled.
    private let indexReady = DispatchSemaphore(value: 0)
    /// Guards `nextBand` and `stopped`.
    private let lock = DispatchSemaphore(value: 1)
    private var nextBand = 0
    private var stopped = false
    private var results: UnsafeMutableBufferPointer<Bool>
    let helperPeaks: UnsafeMutableBufferPointer<Int>

    init(source: Source, options: JPEGOptions, scale: JPEGScale, bands: [Range<Int>], rowRanges: [Range<Int>],
         rowBytes: Int, buffers: [UnsafeMutablePointer<UInt8>], helpers: Int, helperLimit: Int?,
         headerWarnings: Int, headerDropped: Int) {
        self.source = source
        self.options = options
        self.scale = scale
        self.bands = bands
        self.rowRanges = rowRanges
        self.rowBytes = rowBytes
        self.buffers = buffers
        self.helperLimit = helperLimit
        self.headerWarnings = headerWarnings
        self.headerDropped = headerDropped
        ready = bands.map { _ in DispatchSemaphore(value: 0) }
        slots = .pool(of: buffers.count)
        results = .allocate(capacity: bands.count)
        results.initialize(repeating: false)
        helperPeaks = .allocate(capacity: max(1, helpers))
        helperPeaks.initialize(repeating: 0)
    }

    deinit {
        results.deallocate()
        helperPeaks.deallocate()
    }

    func succeeded(_ band: Int) -> Bool { results[band] }

    /// Publishes the index (nil: the scan has none, and no band below the top can be decoded).
    func release(index: RestartIndex?) {
        self.index = index
        indexReady.signal()
    }

    private func waitForIndex() -> RestartIndex? {
        indexReady.wait()
        indexReady.signal()
        return index
    }

    /// Keeps every thread from claiming more bands, and wakes the helpers that wait for a
    /// buffer so that they see it.
    func stop() {
        lock.wait()
        stopped = true
        lock.signal()
        slots.signal()
    }

    /// The next band to decode, in order; nil when none is left or the job was stopped.
    private func claim() -> Int? {
        lock.wait()
        defer { lock.signal() }
        guard !stopped, nextBand < bands.count else { return nil }
        nextBand += 1
        return nextBand - 1
    }

    /// For the caller's thread, which must not block here: the next band, if a buffer is free
    /// and a band is left.
    func claimIfSlotFree() -> Int? {
        guard slots.wait(timeout: .now()) == .success else { return nil }
        if let band = claim() { return band }
        slots.signal()
        return nil
    }

    /// A sink for band k's rows, in its buffer.
    func bandBuffer(_ band: Int) -> BandBuffer {
        BandBuffer(start: buffers[band % buffers.count], firstRow: rowRanges[band].lowerBound,
                   rows: rowRanges[band].count, rowBytes: rowBytes)
    }

    func complete(_ band: Int, succeeded: Bool) {
        results[band] = succeeded
        ready[band].signal()
    }

    /// One helper: its own ledger and decoder, then bands as they come, until none is left or
    /// the job is stopped. Only bands below the top wait for the index.
    func run(helper: Int) {
        let ledger = MemoryLedger(limit: helperLimit)
        defer { helperPeaks[helper] = ledger.peakBytes }
        // A decoder that cannot be made fails every band it claims, which sends the image to
        // the serial decoder and its error.
        var decoder = try? JPEGDecoder(source: source, ledger: ledger, options: options)
        while true {
            slots.wait()
            guard let k = claim() else {
                slots.signal()
                return
            }
            let index = k == 0 ? nil : waitForIndex()
            var sink = bandBuffer(k)
            var succeeded = false
            if k == 0 || index != nil {
                do {
                    try decoder?.decodeBand(scale: scale, mcuRows: bands[k], index: index, into: &sink)
                    succeeded = decoder?.warnings.count == headerWarnings && decoder?.droppedWarnings == headerDropped
                        && sink.received == rowRanges[k].count
                } catch {
                    succeeded = false
                }
            }
            complete(k, succeeded: succeeded)
        }
    }
}

/// A band's rows, written into a buffer of the band's size by absolute y.
struct BandBuffer: RowSink {
    let start: UnsafeMutablePointer<UInt8>
    let firstRow: Int
    let rows: Int
    let rowBytes: Int
    private(set) var received = 0

    init(start: UnsafeMutablePointer<UInt8>, firstRow: Int, rows: Int, rowBytes: Int) {
        self.start = start
        self.firstRow = firstRow
        self.rows = rows
        self.rowBytes = rowBytes
    }

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        let i = placement.y - firstRow
        guard i >= 0, i < rows, let base = row.baseAddress else { return }
        (start + i * rowBytes).update(from: base, count: min(row.count, rowBytes))
        received += 1
    }
}

/// Passes on the rows from `from` down, after a parallel decode already delivered those above
/// (and the stream's `begin`).
struct ResumingSink<Inner: RowSink>: RowSink {
    var inner: Inner
    let from: Int

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        if placement.y >= from { try inner.consume(row, at: placement) }
    }
}
