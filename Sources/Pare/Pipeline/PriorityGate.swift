/// Hands out units of one resource (decode slots, bytes of the memory budget) up to a
/// capacity, to waiters in priority order: the highest priority first, first come first
/// served within a priority. A waiter that does not fit yet waits (asynchronously, holding no
/// thread); a waiter that could never fit (more than the whole capacity) fails at once.
///
/// Grants never skip the head of the queue: a large reservation is not starved by a stream
/// of smaller ones behind it. A waiting task that is cancelled leaves the queue at once and
/// its `acquire` throws `PareError.cancelled`.
final class PriorityGate: @unchecked Sendable {
    /// One pending `acquire`. Its priority can be raised while it waits (a prefetch job that
    /// a visible request joins moves ahead); all its fields are guarded by the gate's lock.
    final class Waiter: @unchecked Sendable {
        let amount: Int
        fileprivate(set) var priority: ThumbnailPriority
        fileprivate let arrival: Int
        fileprivate var continuation: CheckedContinuation<Result<Void, PareError>, Never>?
        fileprivate var finished = false

        fileprivate init(amount: Int, priority: ThumbnailPriority, arrival: Int) {
            self.amount = amount
            self.priority = priority
            self.arrival = arrival
        }
    }

    let capacity: Int
    private let lock = Lock()
    private var used = 0
    private var highWater = 0
    private var delayedCount = 0
    private var arrivals = 0
    private var queue: [Waiter] = []
    /// Called when a request can never fit: makes the error the caller throws.
    private let tooLarge: @Sendable (_ amount: Int, _ capacity: Int) -> PareError

    init(capacity: Int, tooLarge: @escaping @Sendable (_ amount: Int, _ capacity: Int) -> PareError) {
        precondition(capacity > 0, "a gate needs a positive capacity")
        self.capacity = capacity
        self.tooLarge = tooLarge
    }

    /// Units granted now.
    var inUse: Int { lock.withLock { used } }
    /// The most units ever granted at once.
    var peak: Int { lock.withLock { highWater } }
    /// Waiters queued now.
    var waiting: Int { lock.withLock { queue.count } }
    /// Acquisitions that had to wait (did not fit when they arrived).
    var delayed: Int { lock.withLock { delayedCount } }

    /// A waiter for `amount` units; pass it to `acquire`. Made first so that the caller can
    /// keep it to raise its priority while it waits.
    func makeWaiter(amount: Int, priority: ThumbnailPriority) -> Waiter {
        lock.withLock {
            arrivals += 1
            return Waiter(amount: amount, priority: priority, arrival: arrivals)
        }
    }

    /// Waits until the waiter's units are granted. Throws `tooLarge` if they exceed the
    /// capacity and `.cancelled` if the task is cancelled while it waits.
    func acquire(_ waiter: Waiter) async throws(PareError) {
        if waiter.amount > capacity { throw tooLarge(waiter.amount, capacity) }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, PareError>, Never>) in
                let ready: [Waiter] = lock.withLock {
                    // A task cancelled before it got here has had its handler run already,
                    // finding nothing to remove: the flag is what tells.
                    if Task.isCancelled {
                        waiter.finished = true
                        continuation.resume(returning: .failure(.cancelled))
                        return []
                    }
                    waiter.continuation = continuation
                    queue.append(waiter)
                    let ready = grantLocked()
                    if !waiter.finished { delayedCount += 1 }
                    return ready
                }
                resume(ready)
            }
        } onCancel: {
            let removed: Waiter? = lock.withLock {
                guard !waiter.finished, let index = queue.firstIndex(where: { $0 === waiter }) else { return nil }
                queue.remove(at: index)
                waiter.finished = true
                return waiter
            }
            removed?.continuation?.resume(returning: .failure(.cancelled))
            // The head may have been the one blocking smaller waiters behind it.
            resume(lock.withLock { grantLocked() })
        }
        try result.get()
    }

    /// Takes `amount` units without waiting, if they fit now and nobody waits ahead.
    func tryAcquire(_ amount: Int) -> Bool {
        lock.withLock {
            guard queue.isEmpty, used + amount <= capacity else { return false }
            used += amount
            highWater = max(highWater, used)
            return true
        }
    }

    /// Gives back units from a granted `acquire` or `tryAcquire`, and wakes whoever now fits.
    func release(_ amount: Int) {
        let ready: [Waiter] = lock.withLock {
            precondition(amount >= 0 && amount <= used, "gate released more than it granted")
            used -= amount
            return grantLocked()
        }
        resume(ready)
    }

    /// Raises a waiting waiter's priority (never lowers it); no effect once granted.
    func raise(_ waiter: Waiter, to priority: ThumbnailPriority) {
        let ready: [Waiter] = lock.withLock {
            guard !waiter.finished, priority > waiter.priority else { return [] }
            waiter.priority = priority
            return grantLocked()
        }
        resume(ready)
    }

    /// Grants the best waiter while it fits. Called with the lock held; the continuations
    /// are resumed by the caller after unlocking.
    private func grantLocked() -> [Waiter] {
        var ready: [Waiter] = []
        while let best = bestIndexLocked(), used + queue[best].amount <= capacity {
            let waiter = queue.remove(at: best)
            used += waiter.amount
            highWater = max(highWater, used)
            waiter.finished = true
            ready.append(waiter)
        }
        return ready
    }

    private func bestIndexLocked() -> Int? {
        var best: Int?
        for index in queue.indices {
            guard let current = best else { best = index; continue }
            let candidate = queue[index], leader = queue[current]
            if candidate.priority > leader.priority
                || (candidate.priority == leader.priority && candidate.arrival < leader.arrival) {
                best = index
            }
        }
        return best
    }

    private func resume(_ ready: [Waiter]) {
        for waiter in ready { waiter.continuation?.resume(returning: .success(())) }
    }
}
