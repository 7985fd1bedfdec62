import Dispatch
import Synchronization

/// Runs one blocking decode on a decode thread and resumes the awaiting task with its
/// result.
///
/// A decode keeps a core busy for milliseconds to seconds without suspending. Run on Swift's
/// cooperative pool (one thread per core), a few of them would hold every thread, and the
/// pipeline's other tasks (requests joining a job, cache hits, a UI's own tasks) would wait
/// behind them; `maxConcurrentDecodes` would also be capped by the pool's size. The decode
/// threads are a pool of their own: a decode takes an idle one, or starts one when none is
/// idle, so the pool grows to the most decodes that ever ran at once (the pipeline's decode
/// slots bound that) and a batch of small files does not pay a thread's start for each.
enum DecodeThread {
    private static let pool = DecodeThreadPool()

    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            pool.submit { continuation.resume(returning: body()) }
        }
    }
}

/// The decode threads: a queue of work, the count of threads waiting for it, and a
/// semaphore that wakes one of them. Threads never end; a process that once ran N decodes
/// at once keeps N threads parked on the semaphore.
private final class DecodeThreadPool: Sendable {
    private struct State {
        var work: [@Sendable () -> Void] = []
        var idle = 0
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    func submit(_ work: @escaping @Sendable () -> Void) {
        let woken = state.withOrderedLock { state -> Bool in
            state.work.append(work)
            guard state.idle > 0 else { return false }
            state.idle -= 1
            return true
        }
        if woken {
            wake.signal()
        } else if let thread = WorkerThread({ [self] in serve() }) {
            thread.detach()
        } else {
            // No thread to be had: run the oldest work on this one rather than fail.
            next()?()
        }
    }

    private func next() -> (@Sendable () -> Void)? {
        state.withOrderedLock { $0.work.isEmpty ? nil : $0.work.removeFirst() }
    }

    /// A decode thread's life: the queue's work while there is any, then a wait to be woken.
    /// A thread woken for work another took first finds the queue empty and waits again.
    private func serve() {
        while true {
            while let work = next() { work() }
            let parked = state.withOrderedLock { state -> Bool in
                // Work queued since the look above, while no thread was counted idle, is taken now.
                guard state.work.isEmpty else { return false }
                state.idle += 1
                return true
            }
            if parked { wake.wait() }
        }
    }
}

/// A job's cancellation, set by the pipeline when no request wants the job any more and read
/// by its decode once per MCU row or scanline batch (on the decode's own thread, where
/// `Task.isCancelled` does not reach).
final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var isSet: Bool { flag.load(ordering: .acquiring) }

    func set() { flag.store(true, ordering: .releasing) }
}

/// A value handed from a task to the decode thread it starts and never used by both at once
/// (a disk-cache entry).
// Sound: the task stops using it before the decode thread starts, and starting the thread orders the two.
struct Handoff<Value>: @unchecked Sendable {
    let value: Value
}
