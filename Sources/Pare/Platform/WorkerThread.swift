#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// A POSIX thread running one closure, joined explicitly.
///
/// The parallel JPEG decoder starts its workers itself rather than through libdispatch: on
/// Linux, libdispatch's pool creates its threads one after another, each from the one before,
/// and the second worker of a decode started 1–3 ms after the first, a tenth of a 12 MP
/// decode at 1/8. `pthread_create` from the caller starts every worker at once.
struct WorkerThread {
    #if canImport(Darwin)
    private let thread: pthread_t?
    #else
    private let thread: pthread_t
    #endif

    /// Starts `body` on a new thread; nil if the system refuses one.
    init?(_ body: @escaping @Sendable () -> Void) {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }, context)
        #else
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            if let context { Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body() }
            return nil
        }, context)
        #endif
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            return nil
        }
        self.thread = thread
    }

    /// Lets the thread end on its own when the closure returns, never joined.
    func detach() {
        #if canImport(Darwin)
        if let thread { pthread_detach(thread) }
        #else
        pthread_detach(thread)
        #endif
    }

    /// Waits for the closure to return.
    func join() {
        #if canImport(Darwin)
        if let thread { pthread_join(thread, nil) }
        #else
        pthread_join(thread, nil)
        #endif
    }
}

extension DispatchSemaphore {
    /// A semaphore counting a pool of `count` buffers, all free at the start: how the parallel
    /// decoders hand buffers between their threads.
    ///
    /// Made with a count of zero and then signalled `count` times, because libdispatch refuses
    /// to free a semaphore whose count is below the value it was made with, as a pool's is
    /// when a job stops early with buffers taken.
    static func pool(of count: Int) -> DispatchSemaphore {
        let semaphore = DispatchSemaphore(value: 0)
        for _ in 0 ..< count { semaphore.signal() }
        return semaphore
    }
}
