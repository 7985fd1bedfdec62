import Synchronization

/// Runs one blocking decode on a thread of its own and resumes the awaiting task with its
/// result.
///
/// A decode keeps a core busy for milliseconds to seconds without suspending. Run on Swift's
/// cooperative pool (one thread per core), a few of them would hold every thread, and the
/// pipeline's other tasks (requests joining a job, cache hits, a UI's own tasks) would wait
/// behind them; `maxConcurrentDecodes` would also be capped by the pool's size. The decode
/// slots bound how many of these threads exist at once.
enum DecodeThread {
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            if let thread = WorkerThread({ continuation.resume(returning: body()) }) {
                thread.detach()
            } else {
                // No thread to be had: decode on this one rather than fail.
                continuation.resume(returning: body())
            }
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
