import Dispatch
@_spi(Pipeline) import PareCore
import Synchronization

/// The second thread and the two semaphores of `JPEGDecoder.decodePipelined` and
/// `WebPDecoder.decodePipelined`: the producer (the entropy decoding) runs on a
/// `WorkerThread`, or on libdispatch's pool if the system refuses a thread, and the
/// consumer on the caller's.
struct DecodePipelineThreads: DecodePipelineHandoff {
    let slots: Int
    let share: Share
    private let free: DispatchSemaphore
    private let rows = DispatchSemaphore(value: 0)
    private let state = SharedState()

    private final class SharedState: Sendable {
        let stop = Atomic<Bool>(false)
        /// Rows published and not yet awaited.
        let waiting = Atomic<Int>(0)
    }

    /// Who does the work that either thread can do (`forcedShare`).
    enum Share {
        /// As the decoder decides: JPEG's producer transforms a row whenever all the other
        /// rows of the ring wait for the consumer, so that the threads balance themselves
        /// whichever half is longer.
        case adaptive
        /// Always the producer, or always the consumer: for the tests that both give the
        /// serial decode's rows.
        case producer, consumer
    }

    /// A ring of `slots` rows: enough that the two threads seldom wait for each other
    /// (a wait for a semaphore that must wake the other thread costs tens of microseconds
    /// here, against an MCU row's few hundred).
    init(slots: Int, share: Share = .adaptive) {
        self.slots = slots
        self.share = share
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
    func publishRow() {
        state.waiting.add(1, ordering: .relaxed)
        rows.signal()
    }

    func awaitRow() {
        rows.wait()
        state.waiting.subtract(1, ordering: .relaxed)
    }

    var rowIsWaiting: Bool { state.waiting.load(ordering: .relaxed) > 0 }

    func requestStop() { state.stop.store(true, ordering: .releasing) }
    var stopRequested: Bool { state.stop.load(ordering: .acquiring) }

    /// All the other rows of the ring wait for the consumer.
    var consumerIsBehind: Bool { state.waiting.load(ordering: .relaxed) >= max(1, slots - 1) }

    var forcedShare: Bool? {
        switch share {
        case .adaptive: return nil
        case .producer: return true
        case .consumer: return false
        }
    }
}
