#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import PareCore
import PareJPEG

/// Decodes a sequential JPEG with restart markers on several cores and streams its rows, in
/// order, into one sink; any other JPEG is decoded serially by `JPEGDecoder`.
///
/// T.81 E.1.4 / F.2.2.5 make each restart interval independent: it starts byte-aligned after
/// an RSTm marker with the DC predictors at zero. `JPEGDecoder.restartIndex()` finds those
/// starts in one byte-wise pass (and refuses any scan whose RST sequence is not perfect); the
/// MCU rows are then cut into bands, and `JPEGDecoder.decodeBand` decodes each band from the
/// interval above it, bit-exact with the serial decode. libjpeg's API, which reads the scan
/// strictly front to back, has no counterpart.
///
/// Orchestration: `workers` threads claim bands in order; band k is decoded into one of
/// `workers + 1` band buffers while the caller's thread streams the bands before it into the
/// sink and hands their buffers back. A worker may claim band k only once band
/// k − (workers + 1) has been streamed, so at most `workers + 1` bands are buffered, each at
/// most `maxBandBytes` of output (or two MCU rows, if more). Bands are sized for that bound and so
/// that each worker gets several, but not smaller, since a band whose chroma is upsampled
/// vertically also decodes the MCU row above it.
///
/// Memory accounting: `MemoryLedger` is single-threaded, so the caller's ledger sees only the
/// caller's thread (the index, the band buffers, the serial fallback); each worker counts its
/// decoder in a ledger of its own, limited to an equal share of what the caller's ledger has
/// left. At the end the workers' peaks are added to the caller's ledger while the band
/// buffers are still held, as if every peak had come at once: an upper bound on the real
/// simultaneous peak.
///
/// Repairs: a band that throws or records any warning is not used. The workers stop, and the
/// serial decoder decodes the whole image again, passing on only the rows the sink has not
/// had yet, so that a damaged file gets exactly the serial decode's rows, warnings and errors.
public enum ParallelJPEGDecoder {
    /// What a decode reports besides its rows.
    public struct Outcome {
        /// The serial decoder's warnings (header repairs, plus the scan's when it ran).
        public var warnings: [JPEGWarning]
        public var droppedWarnings: Int
        /// Bands decoded in parallel; 0 when the image went through the serial decoder only.
        public var bands: Int
        /// True when bands were begun but a damaged one sent the image to the serial decoder.
        public var fellBack: Bool
    }

    /// Cores this process may run on now.
    public static var activeCores: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// The largest band buffer, in output bytes, unless two MCU rows are larger.
    public static let defaultMaxBandBytes = 2 * 1024 * 1024

    /// Decodes `source` at `scale` into `sink` (begin, then every row once, top to bottom),
    /// on `workers` threads when the image has a usable restart index, else serially.
    public static func decode<Source: ByteSource & SendableMetatype, Sink: RowSink>(
        source: Source, scale: JPEGScale, options: JPEGOptions = JPEGOptions(), ledger: MemoryLedger,
        workers: Int = activeCores, maxBandBytes: Int = defaultMaxBandBytes, into sink: inout Sink
    ) throws(JPEGError) -> Outcome {
        var decoder = try JPEGDecoder(source: source, ledger: ledger, options: options)
        let headerWarnings = decoder.warnings.count, headerDropped = decoder.droppedWarnings
        func serial(into sink: inout Sink) throws(JPEGError) -> Outcome {
            try decoder.decode(scale: scale, into: &sink)
            return Outcome(warnings: decoder.warnings, droppedWarnings: decoder.droppedWarnings, bands: 0, fellBack: false)
        }
        guard workers > 1, let index = try decoder.restartIndex() else { return try serial(into: &sink) }

        let (width, height) = decoder.outputSize(at: scale)
        let rowBytes = width * decoder.outputFormat.bytesPerPixel
        let rowsPerMCURow = max(1, (height + index.mcuRows - 1) / index.mcuRows)
        let byMemory = max(1, maxBandBytes / max(1, rowBytes * rowsPerMCURow))
        let bySharing = (index.mcuRows + 4 * workers - 1) / (4 * workers)
        let mcuRowsPerBand = max(2, min(byMemory, bySharing))
        var bands: [Range<Int>] = []
        var rowRanges: [Range<Int>] = []
        var start = 0
        while start < index.mcuRows {
            let band = start ..< min(start + mcuRowsPerBand, index.mcuRows)
            bands.append(band)
            rowRanges.append(try decoder.outputRows(ofBand: band, scale: scale))
            start = band.upperBound
        }
        guard bands.count > 1 else { return try serial(into: &sink) }

        let largest = rowRanges.map(\.count).max() ?? 0
        let (bandBytes, overflow) = largest.multipliedReportingOverflow(by: rowBytes)
        guard !overflow else { throw .core(.sizeOverflow) }
        let slots = min(workers + 1, bands.count)
        var pool: [LedgerBuffer<UInt8>] = []
        do {
            for _ in 0 ..< slots { pool.append(try ledger.allocate(UInt8.self, count: bandBytes, initialValue: 0)) }
        } catch {
            // The ledger's limit leaves no room for the bands: the serial decode needs less.
            pool.removeAll()
            return try serial(into: &sink)
        }
        do {
            try sink.begin(RowStreamHeader(width: width, height: height, format: decoder.outputFormat))
        } catch {
            throw .core(error)
        }

        let workerLimit = ledger.limit.map { max(0, $0 - ledger.currentBytes) / workers }
        let job = BandJob(source: source, options: options, scale: scale, index: index, bands: bands,
                          rowRanges: rowRanges, rowBytes: rowBytes, buffers: pool.map(\.baseAddress),
                          workers: workers, workerLimit: workerLimit, headerWarnings: headerWarnings,
                          headerDropped: headerDropped)
        let group = DispatchGroup()
        // A queue of its own per worker: such queues get a thread at once (libdispatch's
        // overcommitting pool), where the global queues, which Swift concurrency shares on
        // Linux, may hold a blocking worker back until a thread frees up.
        for worker in 0 ..< workers {
            DispatchQueue(label: "pare.jpeg-band.\(worker)").async(group: group) { job.run(worker: worker) }
        }
        var delivered = 0
        var failed = false
        for k in 0 ..< bands.count {
            job.ready[k].wait()
            guard job.succeeded(k) else {
                failed = true
                break
            }
            let base = job.buffers[k % slots]
            for (i, y) in rowRanges[k].enumerated() {
                sink.consume(UnsafeBufferPointer(start: base + i * rowBytes, count: rowBytes), at: RowPlacement(y: y, width: width))
            }
            delivered = rowRanges[k].upperBound
            job.slots.signal()
        }
        if failed {
            job.stop()
            for _ in 0 ..< workers { job.slots.signal() }
        }
        group.wait()
        let workerPeak = job.workerPeaks.reduce(0, +)
        do {
            try ledger.reserve(bytes: workerPeak)
            ledger.release(bytes: workerPeak)
        } catch {
            // Unreachable in practice: each worker's limit is an equal share of what was left.
        }
        pool.removeAll()
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

/// The state the caller's thread and the workers share for one parallel decode.
///
/// `@unchecked Sendable` because its mutable parts are handed over by the semaphores: band k's
/// buffer and result are written only by the worker that claimed k (claims are made under
/// `lock`) before it signals `ready[k]`, and read by the caller only after that wait;
/// a buffer is reused for band k + slots only after the caller signalled `slots` for band k.
/// `workerPeaks[w]` is written by worker w and read after the group is done. The source is
/// only read, through `read(into:at:)` (a memory array or `pread`), and the index's buffer is
/// read-only while the job runs and outlives it.
final class BandJob<Source: ByteSource & SendableMetatype>: @unchecked Sendable {
    let source: Source
    let options: JPEGOptions
    let scale: JPEGScale
    let index: RestartIndex
    let bands: [Range<Int>]
    let rowRanges: [Range<Int>]
    let rowBytes: Int
    let buffers: [UnsafeMutablePointer<UInt8>]
    let workerLimit: Int?
    let headerWarnings: Int
    let headerDropped: Int
    let ready: [DispatchSemaphore]
    let slots: DispatchSemaphore
    /// Guards `nextBand` and `stopped`.
    private let lock = DispatchSemaphore(value: 1)
    private var nextBand = 0
    private var stopped = false
    private var results: UnsafeMutableBufferPointer<Bool>
    let workerPeaks: UnsafeMutableBufferPointer<Int>

    init(source: Source, options: JPEGOptions, scale: JPEGScale, index: RestartIndex, bands: [Range<Int>],
         rowRanges: [Range<Int>], rowBytes: Int, buffers: [UnsafeMutablePointer<UInt8>], workers: Int,
         workerLimit: Int?, headerWarnings: Int, headerDropped: Int) {
        self.source = source
        self.options = options
        self.scale = scale
        self.index = index
        self.bands = bands
        self.rowRanges = rowRanges
        self.rowBytes = rowBytes
        self.buffers = buffers
        self.workerLimit = workerLimit
        self.headerWarnings = headerWarnings
        self.headerDropped = headerDropped
        ready = bands.map { _ in DispatchSemaphore(value: 0) }
        // Created empty and then filled: libdispatch refuses to free a semaphore whose count
        // is below its initial value, as `slots` is when a failed band stops the job early.
        slots = DispatchSemaphore(value: 0)
        for _ in buffers { slots.signal() }
        results = .allocate(capacity: bands.count)
        results.initialize(repeating: false)
        workerPeaks = .allocate(capacity: workers)
        workerPeaks.initialize(repeating: 0)
    }

    deinit {
        results.deallocate()
        workerPeaks.deallocate()
    }

    func succeeded(_ band: Int) -> Bool { results[band] }

    /// Keeps the workers from claiming more bands.
    func stop() {
        lock.wait()
        stopped = true
        lock.signal()
    }

    /// The next band to decode, in order; nil when none is left or the job was stopped.
    private func claim() -> Int? {
        lock.wait()
        defer { lock.signal() }
        guard !stopped, nextBand < bands.count else { return nil }
        nextBand += 1
        return nextBand - 1
    }

    /// One worker: its own ledger and decoder, then bands as they come, until none is left or
    /// the caller stops the job.
    func run(worker: Int) {
        let ledger = MemoryLedger(limit: workerLimit)
        defer { workerPeaks[worker] = ledger.peakBytes }
        // A decoder that cannot be made fails every band it claims, which sends the image to
        // the serial decoder and its error.
        var decoder = try? JPEGDecoder(source: source, ledger: ledger, options: options)
        while true {
            slots.wait()
            guard let k = claim() else {
                slots.signal()
                return
            }
            var sink = BandBuffer(start: buffers[k % buffers.count], firstRow: rowRanges[k].lowerBound,
                                  rows: rowRanges[k].count, rowBytes: rowBytes)
            do {
                try decoder?.decodeBand(scale: scale, mcuRows: bands[k], index: index, into: &sink)
                results[k] = decoder?.warnings.count == headerWarnings && decoder?.droppedWarnings == headerDropped
                    && sink.received == rowRanges[k].count
            } catch {
                results[k] = false
            }
            ready[k].signal()
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

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
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

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
        if placement.y >= from { inner.consume(row, at: placement) }
    }
}
