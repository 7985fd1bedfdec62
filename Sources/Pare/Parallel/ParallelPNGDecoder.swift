import Dispatch
import PareCore
@_spi(Stages) import ParePNG
import Synchronization

/// Helper threads of `ParallelPNGDecoder` running now: 0 whenever no decode is under way,
/// which the tests check after every error.
let runningPNGInflaters = Atomic<Int>(0)

/// Decodes a PNG on two threads: one inflates, the other does everything after that, so
/// that the sequential part (inflate, RFC 1951) no longer waits for unfiltering,
/// pixel expansion and the sink (the resampler).
///
/// A zlib stream can only be inflated front to back, but what follows inflation needs only
/// the inflated scanlines in order (PNG 3rd ed. §7.2, §9). So a helper thread runs
/// `PNGDecoder`'s image data stage (`beginImageData`, `inflateScanline`, `finishImageData`)
/// and writes whole filtered scanlines into a ring of slots, a few scanlines each; the
/// caller's thread takes them in order, runs the row stage (`ScanlineReconstruction`:
/// unfilter, expand, sink) and hands each slot back once the scanline after it has been
/// unfiltered against its last one. Both threads make the same calls, in the same order,
/// as `PNGDecoder.decode(into:)` does on one, so the sink gets the same rows. The IDAT
/// chunks' CRC-32s (§5.3), which would lengthen the helper's part, are checked on the
/// caller's thread instead, by a second reader of the file (`ImageDataCRCCheck`) that keeps
/// up with the helper's reader position as each scanline records it.
///
/// Bounds: the ring (`ringBytes`, or three slots of one scanline if more) and one zero
/// scanline for the top of each pass take the place of the serial decode's two scanlines,
/// and the CRC reader adds a window and a scratch buffer (`ImageDataCRCCheck.bufferSize`
/// each); everything else is what the serial decode allocates, in the caller's ledger and in the
/// same order. `MemoryLedger` is single-threaded, so the stage (input buffer, the
/// inflater's window and tables) is made whole on the caller's thread before the helper
/// starts; the helper allocates nothing. When the ring, the CRC reader and the stage do not
/// fit the ledger's limit together, none of them is kept and the decode runs on one thread,
/// which needs less. The helper never waits for anything but a free slot, and it fills at
/// most one slot between two looks at `stopped`.
///
/// Errors: the helper's error ends its last slot, after the scanlines it did inflate; the
/// caller's thread reconstructs those first, so whichever error comes first in the serial
/// decode is the one thrown, with the same file offset (each scanline carries the reader's
/// position after it was inflated). Before each scanline, and before the helper's error,
/// the caller checks the CRCs the serial decode would have checked by the helper's position
/// then, so a mismatch is thrown where the serial decode throws it, even though the helper,
/// not checking, has read on past it. Cancellation is asked before each scanline on the
/// caller's thread. On any error or cancellation the helper is stopped and joined before
/// this returns: no thread outlives the call. With `PNGOptions.strict` false, damage in the
/// image data is then survived as the serial decode survives it (`PNGWarning`): the rows
/// before it were reconstructed, the rest are made zero the same way.
public enum ParallelPNGDecoder {
    /// The ring's size in bytes, in three slots. Slots of one scanline up to 1 MiB rings
    /// timed alike on the 12 MP PNG (Benchmarks/notes/history.md); 128 KiB makes a few scanlines a
    /// slot, so that the threads hand over a few times less often than once a scanline.
    public static let defaultRingBytes = 128 * 1024
    /// Three: the slot of the scanline being reconstructed, the one before it (whose last
    /// scanline is the next one's `previous`) and one being filled.
    static let slotCount = 3

    /// Decodes `decoder`'s image into `sink` (the same rows as `decoder.decode(into:)`) with
    /// inflation on a helper thread when `workers` is 2 or more, else on this thread alone.
    /// Stops with `.core(.cancelled)` when `cancellation` says so.
    public static func decode<Source: ByteSource & SendableMetatype, Sink: RowSink>(
        _ decoder: inout PNGDecoder<Source>, ledger: MemoryLedger, workers: Int,
        ringBytes: Int = defaultRingBytes, cancellation: CancellationCheck = CancellationCheck(),
        into sink: inout Sink
    ) throws(PNGError) {
        decoder.cancellation = cancellation
        guard workers > 1 else { return try decoder.decode(into: &sink) }
        var rows = try decoder.beginRows(into: &sink)
        let order = decoder.scanlineOrder
        let stride = order.maxLineBytes
        let rowsPerSlot = max(1, min(order.count, ringBytes / slotCount / stride))
        // The ring, the zero scanline, the CRC reader and the image data stage, made together
        // in the caller's ledger (the stage as the serial decode makes it): when the four do
        // not fit its limit, none is kept and one thread, which needs less, decodes. Any other
        // failure is the file's or the source's, and the serial decode would meet it too.
        let made: ParallelStages<Source>
        do throws(PNGError) {
            made = try ParallelStages(&decoder, ledger: ledger, slotBytes: rowsPerSlot * stride, stride: stride)
        } catch {
            guard case .core(.limitExceeded) = error else { throw error }
            return try decoder.decodeRows(&rows, into: &sink)
        }
        let ring = made.ring, zeros = made.zeros
        var crcCheck = made.crcCheck
        var stage = made.stage
        let job = InflationJob(decoder: decoder, stage: stage,
                               ring: ScanlineRing(base: ring.baseAddress, stride: stride, rowsPerSlot: rowsPerSlot),
                               rows: order.count)
        // The IDAT CRCs are this thread's (`crcCheck`): the helper only reads and inflates.
        job.decoder.checksImageDataCRC = false
        guard let helper = WorkerThread({ job.run() }) else {
            // No thread to be had: the serial loop, through two scanlines of the ring.
            return try decoder.decodeRows(&rows, inflating: &stage, lines: (job.ring.line(slot: 0, row: 0),
                                                                            job.ring.line(slot: 1, row: 0)), into: &sink)
        }
        var outcome: Result<Void, PNGError> = .success(())
        var slot = 0, delivered = 0
        var previous = UnsafePointer(zeros.baseAddress)
        /// The caller keeps the slot of `previous` until the next slot's first scanline is done.
        var holdingSlot = false
        consuming: while delivered < order.count {
            job.filled.wait()
            let count = job.rowCounts[slot]
            for i in 0 ..< count {
                if cancellation.isCancelled {
                    outcome = .failure(.core(.cancelled))
                    break consuming
                }
                let line = job.ring.line(slot: slot, row: i)
                let offset = job.offsets[job.ring.index(slot: slot, row: i)]
                do throws(PNGError) {
                    try crcCheck.check(upTo: offset)
                    try rows.reconstruct(line, previous: rows.startsPass ? UnsafePointer(zeros.baseAddress) : previous,
                                         offset: offset, into: &sink)
                } catch {
                    outcome = .failure(error)
                    break consuming
                }
                previous = UnsafePointer(line)
                if holdingSlot {
                    holdingSlot = false
                    job.free.signal()
                }
            }
            delivered += count
            if count < rowsPerSlot && delivered < order.count {
                // A short slot before the end is the helper's last: its error follows, after
                // the CRCs the serial decode checks before it gets there.
                outcome = .failure(job.failure ?? .core(.sizeOverflow))
                do throws(PNGError) { try crcCheck.check(upTo: job.failurePosition) } catch { outcome = .failure(error) }
                break
            }
            holdingSlot = true
            slot = (slot + 1) % slotCount
        }
        if case .success = outcome {
            job.finished.wait()
            do throws(PNGError) {
                if let failure = job.failure {
                    try crcCheck.check(upTo: job.failurePosition)
                    throw failure
                }
                try crcCheck.checkAll()
            } catch {
                outcome = .failure(error)
            }
        }
        job.stop()
        helper.join()
        // The inflater's buffers go back to the ledger on this thread.
        job.stage = nil
        decoder = job.decoder
        decoder.checksImageDataCRC = true
        withExtendedLifetime(ring) {}
        withExtendedLifetime(zeros) {}
        // Damage ends the decode as it ends the serial one (`PNGDecoder.survive`): the same
        // error after the same scanlines, so a non-strict decode fills the same rows.
        do throws(PNGError) {
            try outcome.get()
            try decoder.readTrailingChunks()
        } catch {
            try decoder.survive(error, rows: &rows, into: &sink)
        }
    }
}

/// The state the caller's thread and the inflating helper share for one decode.
///
/// Unchecked-Sendable because its mutable parts are handed over by the semaphores: the
/// helper owns `decoder` from `run()`'s start until it returns (the caller reads it only after
/// joining); a slot's scanlines, `rowCounts[slot]` and its `offsets` are written by the helper
/// only after a `free` wait and read by the caller only after the `filled` wait that follows
/// them; `failure` and `failurePosition` are written once, before the helper's last `filled` or `finished` signal,
/// and read after that wait or after the join; `helperPeak` is read after the join.
// Sound: the `free`, `filled` and `finished` semaphores and the join order every write before its reads.
final class InflationJob<Source: ByteSource & SendableMetatype>: @unchecked Sendable {
    var decoder: PNGDecoder<Source>
    var stage: ImageDataInflation?
    let ring: ScanlineRing
    let rows: Int
    /// Slots the helper may fill.
    let free = DispatchSemaphore.pool(of: ParallelPNGDecoder.slotCount)
    /// Slots filled (the last one possibly short, ending with `failure`).
    let filled = DispatchSemaphore(value: 0)
    /// Signalled once every scanline was inflated and the rest of the image data read.
    let finished = DispatchSemaphore(value: 0)
    let rowCounts: UnsafeMutableBufferPointer<Int>
    /// The reader's position after each scanline of the ring was inflated.
    let offsets: UnsafeMutableBufferPointer<Int>
    var failure: PNGError?
    /// The helper's reader position when `failure` was thrown.
    var failurePosition = 0
    private let stopped = Atomic<Bool>(false)

    init(decoder: PNGDecoder<Source>, stage: ImageDataInflation, ring: ScanlineRing, rows: Int) {
        self.decoder = decoder
        self.stage = stage
        self.ring = ring
        self.rows = rows
        rowCounts = .allocate(capacity: ParallelPNGDecoder.slotCount)
        rowCounts.initialize(repeating: 0)
        offsets = .allocate(capacity: ring.index(slot: ParallelPNGDecoder.slotCount, row: 0))
        offsets.initialize(repeating: 0)
    }

    deinit {
        rowCounts.deallocate()
        offsets.deallocate()
    }

    /// Keeps the helper from filling another slot and wakes it if it waits for one.
    func stop() {
        stopped.store(true, ordering: .releasing)
        free.signal()
    }

    /// The helper: the image data stage into the ring, slot after slot, then the rest of the
    /// image data.
    func run() {
        runningPNGInflaters.add(1, ordering: .relaxed)
        defer { runningPNGInflaters.subtract(1, ordering: .relaxed) }
        guard var stage = stage else { return }
        defer { self.stage = stage }
        var row = 0, slot = 0
        while row < rows {
            free.wait()
            if stopped.load(ordering: .acquiring) { return }
            var count = 0
            while count < ring.rowsPerSlot && row < rows {
                do {
                    try decoder.inflateScanline(&stage, into: ring.line(slot: slot, row: count))
                } catch {
                    return end(slot: slot, rows: count, failure: error)
                }
                offsets[ring.index(slot: slot, row: count)] = decoder.position
                count += 1
                row += 1
            }
            rowCounts[slot] = count
            filled.signal()
            slot = (slot + 1) % ParallelPNGDecoder.slotCount
        }
        // The next slot in turn, once free, is never read again: the rest of the stream is
        // inflated into its first line and dropped.
        free.wait()
        if stopped.load(ordering: .acquiring) { return }
        do {
            try decoder.finishImageData(&stage, scratch: ring.line(slot: slot, row: 0), count: ring.stride)
        } catch {
            failure = error
            failurePosition = decoder.position
        }
        finished.signal()
    }

    /// Ends the helper's work with a short slot and the error that cut it short.
    private func end(slot: Int, rows count: Int, failure: PNGError) {
        self.failure = failure
        failurePosition = decoder.position
        rowCounts[slot] = count
        filled.signal()
    }
}

/// The ring the helper inflates into: `ParallelPNGDecoder.slotCount` slots of `rowsPerSlot`
/// scanlines of `stride` bytes each, one after another in one buffer.
struct ScanlineRing {
    let base: UnsafeMutablePointer<UInt8>
    let stride: Int
    let rowsPerSlot: Int

    /// The place of scanline `row` of `slot` among the ring's scanlines (and in any table kept
    /// per scanline, such as the job's `offsets`).
    func index(slot: Int, row: Int) -> Int { slot * rowsPerSlot + row }

    /// Scanline `row` of `slot`.
    func line(slot: Int, row: Int) -> UnsafeMutablePointer<UInt8> { base + index(slot: slot, row: row) * stride }
}

/// What the two-thread decode needs beyond the serial decode's buffers, made in one go so
/// that a refusal part way gives every piece back before the serial decode starts.
private struct ParallelStages<Source: ByteSource> {
    let ring: LedgerBuffer<UInt8>
    let zeros: LedgerBuffer<UInt8>
    var crcCheck: ImageDataCRCCheck<Source>
    var stage: ImageDataInflation

    init(_ decoder: inout PNGDecoder<Source>, ledger: MemoryLedger, slotBytes: Int, stride: Int) throws(PNGError) {
        do throws(CoreError) {
            let (bytes, overflow) = ParallelPNGDecoder.slotCount.multipliedReportingOverflow(by: slotBytes)
            guard !overflow else { throw .sizeOverflow }
            ring = try ledger.allocate(UInt8.self, count: bytes, initialValue: 0)
            zeros = try ledger.allocate(UInt8.self, count: stride, initialValue: 0)
        } catch {
            throw .core(error)
        }
        crcCheck = try decoder.imageDataCRCCheck(ledger: ledger)
        stage = try decoder.beginImageData(ledger: ledger)
    }
}
