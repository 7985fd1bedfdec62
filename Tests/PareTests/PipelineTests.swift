#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable @_spi(CommandLine) import Pare
import PareCore
import TestSupport

/// Inputs shared by the pipeline tests: synthetic JPEGs, big enough that a decode takes a
/// while at full scale, small enough to make quickly.
enum PipelineFixtures {
    /// 12 MP 4:2:0, about 0.1 s to decode at full DCT scale in a release build.
    static let large = SyntheticJPEG.make(width: 4000, height: 3000)
    /// 2 MP, decoded at 1/8 for a 64-pixel thumbnail.
    static let medium = SyntheticJPEG.make(width: 1600, height: 1200)

    static func request(_ bytes: [UInt8], key: String, size: Int = 64, fullScale: Bool = false,
                        priority: ThumbnailPriority = .normal) -> ThumbnailRequest {
        var options = ThumbnailOptions(maxPixelSize: size)
        options.embedded = .never
        if fullScale { options.forcedJPEGScale = .full }
        return ThumbnailRequest(bytes: bytes, key: key, options: options, priority: priority)
    }

    static func pipeline(_ adjust: (inout ThumbnailPipeline.Configuration) -> Void = { _ in }) throws -> ThumbnailPipeline {
        var configuration = ThumbnailPipeline.Configuration()
        adjust(&configuration)
        return try ThumbnailPipeline(configuration: configuration)
    }

    /// A fresh empty directory under /tmp.
    static func temporaryDirectory() -> String {
        var template = Array("/tmp/pare-pipeline-XXXXXX".utf8CString)
        let path = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) }
        return String(cString: path!)
    }

    /// Polls until `condition` holds (or about two seconds pass).
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0 ..< 2000 {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return condition()
    }
}

@Suite struct PipelineCoalescingTests {
    @Test func concurrentRequestsForOneKeyShareOneDecode() async throws {
        let pipeline = try PipelineFixtures.pipeline()
        let request = PipelineFixtures.request(PipelineFixtures.large, key: "one", fullScale: true)
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0 ..< 16 { group.addTask { try await pipeline.thumbnail(request).image.width } }
            var sizes: [Int] = []
            for try await width in group { sizes.append(width) }
            return sizes
        }
        #expect(sizes == [Int](repeating: 64, count: 16))
        let stats = pipeline.statistics
        #expect(stats.decodes == 1)
        #expect(stats.coalesced + stats.memoryCacheHits == 15, "\(stats)")
    }

    /// The only decode slot is held by the test, so the job waits in the queue and the
    /// cancellations reach it before it could finish, however loaded the machine is.
    @Test func sharedDecodeGoesOnWhileOneRequesterRemains() async throws {
        let pipeline = try PipelineFixtures.pipeline { $0.maxConcurrentDecodes = 1 }
        #expect(pipeline.slots.tryAcquire(1))
        let request = PipelineFixtures.request(PipelineFixtures.medium, key: "shared")
        let leaving = Task { try await pipeline.thumbnail(request) }
        let staying = Task { try await pipeline.thumbnail(request) }
        #expect(await PipelineFixtures.eventually { pipeline.statistics.coalesced == 1 && pipeline.slots.waiting == 1 })
        leaving.cancel()
        await #expect(throws: PareError.self) { try await leaving.value }
        pipeline.slots.release(1)
        let thumbnail = try await staying.value
        #expect(thumbnail.image.width == 64)
        #expect(pipeline.statistics.decodes == 1)
        #expect(pipeline.statistics.cancelledJobs == 0)
    }

    @Test func jobIsCancelledWhenEveryRequesterLeaves() async throws {
        let pipeline = try PipelineFixtures.pipeline { $0.maxConcurrentDecodes = 1 }
        #expect(pipeline.slots.tryAcquire(1))
        let request = PipelineFixtures.request(PipelineFixtures.medium, key: "abandoned")
        let first = Task { try await pipeline.thumbnail(request) }
        let second = Task { try await pipeline.thumbnail(request) }
        #expect(await PipelineFixtures.eventually { pipeline.statistics.coalesced == 1 && pipeline.slots.waiting == 1 })
        first.cancel()
        second.cancel()
        for task in [first, second] {
            do {
                _ = try await task.value
                Issue.record("a cancelled request returned a thumbnail")
            } catch let error as PareError {
                guard case .cancelled = error else { Issue.record("expected .cancelled, got \(error)"); continue }
            }
        }
        #expect(pipeline.statistics.cancelledJobs == 1)
        // The job left the slot queue without decoding.
        #expect(await PipelineFixtures.eventually { pipeline.slots.waiting == 0 })
        pipeline.slots.release(1)
        #expect(pipeline.statistics.decodes == 0)
        #expect(pipeline.reservedBytes == 0)
    }

    @Test func prefetchIsJoinedByARequestAndCancelPrefetchStopsAnUnwantedJob() async throws {
        let pipeline = try PipelineFixtures.pipeline { $0.maxConcurrentDecodes = 1 }
        let joined = PipelineFixtures.request(PipelineFixtures.large, key: "prefetched", fullScale: true)
        pipeline.prefetch([joined])
        let thumbnail = try await pipeline.thumbnail(PipelineFixtures.request(PipelineFixtures.large, key: "prefetched",
                                                                              fullScale: true, priority: .visible))
        #expect(thumbnail.image.width == 64)
        #expect(pipeline.statistics.decodes == 1)

        #expect(pipeline.slots.tryAcquire(1))
        let dropped = PipelineFixtures.request(PipelineFixtures.medium, key: "dropped")
        pipeline.prefetch([dropped])
        #expect(await PipelineFixtures.eventually { pipeline.slots.waiting == 1 })
        pipeline.cancelPrefetch([dropped])
        #expect(pipeline.statistics.cancelledJobs == 1)
        #expect(await PipelineFixtures.eventually { pipeline.slots.waiting == 0 })
        pipeline.slots.release(1)
        #expect(pipeline.memoryCache.count == 1)
        #expect(pipeline.statistics.decodes == 1)
    }
}

@Suite struct PipelinePriorityTests {
    /// Waiters at a full gate are served visible first, then normal, then prefetch, each in
    /// arrival order.
    @Test func gateServesHigherPriorityFirst() async throws {
        let order = try await Self.grantOrder([("p1", .thumbnail(.prefetch)), ("n1", .thumbnail(.normal)),
                                               ("p2", .thumbnail(.prefetch)), ("v1", .thumbnail(.visible)),
                                               ("n2", .thumbnail(.normal)), ("v2", .thumbnail(.visible))])
        #expect(order == ["v1", "v2", "n1", "n2", "p1", "p2"])
    }

    /// The order in which a full gate of one unit grants waiters that arrive one by one,
    /// each queued before the next comes, at these ranks.
    static func grantOrder(_ arrivals: [(String, PriorityGate.GateRank)]) async throws -> [String] {
        let gate = PriorityGate(capacity: 1) { _, _ in .cancelled }
        #expect(gate.tryAcquire(1))
        let order = OrderRecorder()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, (name, rank)) in arrivals.enumerated() {
                let waiter = gate.makeWaiter(amount: 1, rank: rank)
                group.addTask {
                    try await gate.acquire(waiter)
                    order.append(name)
                    gate.release(1)
                }
                #expect(await PipelineFixtures.eventually { gate.waiting == index + 1 })
            }
            gate.release(1)
            try await group.waitForAll()
        }
        return order.names
    }

    @Test func raisedWaiterMovesAhead() async throws {
        let gate = PriorityGate(capacity: 1) { _, _ in .cancelled }
        #expect(gate.tryAcquire(1))
        let order = OrderRecorder()
        let early = gate.makeWaiter(amount: 1, priority: .normal)
        let late = gate.makeWaiter(amount: 1, priority: .prefetch)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, waiter) in [("early", early), ("late", late)] {
                group.addTask {
                    try await gate.acquire(waiter)
                    order.append(name)
                    gate.release(1)
                }
            }
            #expect(await PipelineFixtures.eventually { gate.waiting == 2 })
            gate.raise(late, to: .visible)
            gate.release(1)
            try await group.waitForAll()
        }
        #expect(order.names == ["late", "early"])
    }

    @Test func requestLargerThanCapacityFailsAtOnce() async {
        let gate = PriorityGate(capacity: 100) { needed, budget in .memoryBudgetExceeded(needed: needed, budget: budget) }
        do {
            try await gate.acquire(gate.makeWaiter(amount: 101, priority: .visible))
            Issue.record("an impossible reservation was granted")
        } catch {
            guard case .memoryBudgetExceeded(101, 100) = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func cancelledWaiterLeavesTheQueue() async throws {
        let gate = PriorityGate(capacity: 1) { _, _ in .cancelled }
        #expect(gate.tryAcquire(1))
        let task = Task { try await gate.acquire(gate.makeWaiter(amount: 1, priority: .normal)) }
        #expect(await PipelineFixtures.eventually { gate.waiting == 1 })
        task.cancel()
        do {
            try await task.value
            Issue.record("a cancelled waiter was granted")
        } catch {
            guard case PareError.cancelled? = error as? PareError else { Issue.record("\(error)"); return }
        }
        #expect(gate.waiting == 0)
        gate.release(1)
        #expect(gate.inUse == 0)
    }
}

/// Names in the order things happened, from several tasks.
final class OrderRecorder: Sendable {
    private let list = Mutex<[String]>([])
    func append(_ name: String) { list.withOrderedLock { $0.append(name) } }
    var names: [String] { list.withOrderedLock { $0 } }
}

@Suite struct PipelineCancellationTests {
    /// A 12 MP JPEG decoded at full scale: 188 MCU rows of 16 lines. The only request is
    /// cancelled once the decode has passed 20 rows; the decode asks once per MCU row
    /// whether to stop, and the test counts the rows it began after the cancellation and
    /// reads the job's ledger once the decode thread has given its reservation back.
    @Test func cancelledDecodeStopsWithinOneMCURowAndEmptiesItsLedger() async throws {
        let probe = CancellationProbe()
        let pipeline = try PipelineFixtures.pipeline {
            $0.ledgerObserver = { ledger in probe.watch(ledger) }
            $0.cancellationObserver = { cancelled in probe.check(cancelled) }
        }
        let request = PipelineFixtures.request(PipelineFixtures.large, key: "cancelled", fullScale: true)
        let task = Task { try await pipeline.thumbnail(request) }
        #expect(await PipelineFixtures.eventually { probe.rows.before >= 20 })
        probe.cancelRequested()
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a cancelled request returned a thumbnail")
        } catch let error as PareError {
            #expect(error == .cancelled)
        }
        // The reservation comes back when the decode thread has returned.
        #expect(await PipelineFixtures.eventually { pipeline.reservedBytes == 0 })
        let rows = probe.rows
        #expect(rows.after <= 1, "rows begun after the cancellation: \(rows.after)")
        #expect(rows.stopped, "the decode never saw the cancellation")
        #expect(rows.before < 188)
        #expect(probe.ledgerBytes == 0)
        #expect(pipeline.statistics.decodes == 0)
        print("cancelled after \(rows.before) of 188 MCU rows; rows begun after: \(rows.after); ledger held \(probe.ledgerPeak) B at most, \(probe.ledgerBytes ?? -1) B after")
    }
}

/// What a cancelled decode did: rows (cancellation checks answered "go on") before and after
/// the cancellation was asked for, whether a check answered "stop", and the job's ledger.
final class CancellationProbe: Sendable {
    /// The job's ledger, which the decode thread goes on using after `watch`.
    // Sound: read only after the decode thread gave its reservation back; the budget gate's lock orders the two.
    private struct LedgerReference: @unchecked Sendable {
        let ledger: MemoryLedger
    }

    private struct State {
        var requested = false
        var before = 0, after = 0, sawStop = false
        var ledger: LedgerReference?
    }

    private let state = Mutex(State())

    func watch(_ ledger: MemoryLedger) {
        let reference = LedgerReference(ledger: ledger)
        state.withOrderedLock { $0.ledger = reference }
    }

    func check(_ cancelled: Bool) {
        state.withOrderedLock { state in
            if cancelled { state.sawStop = true } else if state.requested { state.after += 1 } else { state.before += 1 }
        }
    }

    func cancelRequested() { state.withOrderedLock { $0.requested = true } }

    var rows: (before: Int, after: Int, stopped: Bool) { state.withOrderedLock { ($0.before, $0.after, $0.sawStop) } }
    /// Read once the decode thread is done with the ledger (the pipeline's budget lock
    /// orders its last use before this read).
    var ledgerBytes: Int? { state.withOrderedLock { $0.ledger?.ledger.currentBytes } }
    var ledgerPeak: Int { state.withOrderedLock { $0.ledger?.ledger.peakBytes ?? 0 } }
}
