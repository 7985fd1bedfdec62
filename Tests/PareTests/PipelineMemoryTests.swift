import Synchronization
import Testing
@testable @_spi(CommandLine) import Pare
import PareCore
import TestSupport

/// The memory budget across jobs: reservations never add up past it, each job's ledger is
/// limited to its reservation, and the process heap agrees.
@Suite(.serialized) struct PipelineMemoryBudgetTests {
    @Test func sixtyFourRequestsUnderFourMebibytesNeverHoldMore() async throws {
        let budget = 4 * 1024 * 1024
        let watch = HeapWatch()
        let pipeline = try PipelineFixtures.pipeline {
            $0.memoryBudget = budget
            $0.maxConcurrentDecodes = 64
            $0.memoryCacheCountLimit = 0
            $0.ledgerObserver = { ledger in
                ledger.afterAllocation = { ledger in
                    watch.sample(ledgerBytes: ledger.currentBytes, ledgerLimit: ledger.limit ?? Int.max)
                }
            }
        }
        let input = SyntheticJPEG.make(width: 2400, height: 1600)
        let requests = (0 ..< 64).map { PipelineFixtures.request(input, key: "photo-\($0)", size: 128) }
        watch.start()
        let widths = try await withThrowingTaskGroup(of: Int.self) { group in
            for request in requests { group.addTask { try await pipeline.thumbnail(request).image.width } }
            var widths: [Int] = []
            for try await width in group { widths.append(width) }
            return widths
        }
        #expect(widths == [Int](repeating: 128, count: 64))
        #expect(pipeline.statistics.decodes == 64)
        let peak = pipeline.peakReservedBytes
        #expect(peak <= budget, "reserved \(peak) B at once")
        #expect(pipeline.budget.delayed > 0, "no job waited for memory: the budget did not bind")
        #expect(!watch.ledgerPassedLimit)
        #expect(pipeline.reservedBytes == 0)
        if let growth = watch.peakGrowth {
            // The heap also holds the 64 tasks, their continuations, the finished thumbnails
            // on their way to the caller, each running job's bookkeeping outside its ledger,
            // and the decode threads' allocator caches (a parked thread keeps its malloc
            // thread cache for its next decode), which vary with scheduling: 0.5–0.95 MiB
            // over 10 runs on two cores, so 1.125 MiB for those.
            #expect(growth <= budget + 1152 * 1024, "heap grew \(growth) B with a budget of \(budget) B")
        }
        print("64 requests, budget \(budget) B: peak reserved \(peak) B, heap peak growth \(watch.peakGrowth.map(String.init) ?? "n/a") B, \(pipeline.budget.delayed) waits, \(pipeline.statistics.reservationRetries) retries")
    }

    @Test func jobLargerThanTheWholeBudgetFailsClearly() async throws {
        // A 2000×1500 RGB output alone is 9 MB, over a budget of 1 MiB.
        let pipeline = try PipelineFixtures.pipeline { $0.memoryBudget = 1024 * 1024 }
        do {
            _ = try await pipeline.thumbnail(PipelineFixtures.request(PipelineFixtures.large, key: "huge", size: 2000))
            Issue.record("a job larger than the budget ran")
        } catch {
            guard case .memoryBudgetExceeded(_, 1024 * 1024) = error else { Issue.record("\(error)"); return }
            #expect("\(error)".contains("memory budget"))
        }
        #expect(pipeline.reservedBytes == 0)
    }

    /// A progressive JPEG keeps its coefficients: far above the first estimate, so the job
    /// runs again with larger reservations until it fits.
    @Test func underestimatedJobRetriesWithALargerReservation() async throws {
        let pipeline = try PipelineFixtures.pipeline { $0.memoryBudget = 32 * 1024 * 1024 }
        let input = SyntheticProgressiveJPEG.make(width: 1600, height: 1200)
        let thumbnail = try await pipeline.thumbnail(PipelineFixtures.request(input, key: "progressive", size: 100))
        #expect(thumbnail.image.width == 100)
        #expect(pipeline.statistics.reservationRetries >= 1)
        #expect(pipeline.peakReservedBytes <= 32 * 1024 * 1024)
        #expect(thumbnail.ledgerPeakBytes <= pipeline.peakReservedBytes)
    }
}

/// The heap's highest point over a start, sampled from every job's ledger observer (on
/// several threads), and whether any ledger passed its limit.
final class HeapWatch: Sendable {
    private struct State {
        var base: Int?
        var peak = 0
        var passed = false
    }

    private let state = Mutex(State())

    func start() { state.withOrderedLock { $0.base = HeapMeter.heapInUse() } }

    func sample(ledgerBytes: Int, ledgerLimit: Int) {
        let now = HeapMeter.heapInUse()
        state.withOrderedLock { state in
            if let base = state.base, let now { state.peak = max(state.peak, now - base) }
            if ledgerBytes > ledgerLimit { state.passed = true }
        }
    }

    var peakGrowth: Int? { state.withOrderedLock { $0.base == nil ? nil : $0.peak } }
    var ledgerPassedLimit: Bool { state.withOrderedLock { $0.passed } }
}
