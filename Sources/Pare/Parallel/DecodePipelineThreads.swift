import Dispatch
@_spi(Pipeline) import PareCore
import Synchronization

/// The second thread and the two semaphores of `JPEGDecoder.decodePipelined` and
/// `WebPDecoder.decodePipelined`: the producer (the entropy decoding) runs on a
/// `WorkerThread`, or on libdispatch's pool if the system refuses a thread, and the
/// consumer on the caller's.
struct DecodePipelineThreads: DecodePipelineHandoff {
    let slots: Int
    private let free: DispatchSemaphore
    private let rows = DispatchSemaphore(value: 0)
    private let stop = StopFlag()

    private final class StopFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// A ring of `slots` rows: enough that the two threads seldom wait for each other
    /// (a wait for a semaphore that must wake the other thread costs tens of microseconds
    /// here, against an MCU row's few hundred).
    init(slots: Int) {
        self.slots = slots
        free = DispatchSemaphore.pool(of: slots)
    }

    func run(producer: () -> Void, consumer: () -> Void) {
        withoutActuallyEscaping(producer) { producer in
            // The decoder waits for both closures before it returns, so the producer's
            // captures outlive its thread.
            nonisolated(unsafe) let body = producer
            if let thread = WorkerThread({ body() }) {
                consumer()
                thread.join()
            } else {
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    body()
                    done.signal()
                }
                consumer()
                done.wait()
            }
        }
    }

    func acquireSlot() { free.wait() }
    func releaseSlot() { free.signal() }
    func publishRow() { rows.signal() }
    func awaitRow() { rows.wait() }
    func requestStop() { stop.value.store(true, ordering: .releasing) }
    var stopRequested: Bool { stop.value.load(ordering: .acquiring) }
}
