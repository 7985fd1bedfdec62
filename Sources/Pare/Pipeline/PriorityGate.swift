import Synchronization

/// Hands out units of one resource (decode slots, bytes of the memory budget) up to a
/// capacity, to waiters in priority order: the highest priority first, first come first
/// served within a priority. A waiter that does not fit yet waits (asynchronously, holding no
/// thread); a waiter that could never fit (more than the whole capacity) fails at once.
///
/// Grants never skip the head of the queue: a large reservation is not starved by a stream
/// of smaller ones behind it. A waiting task that is cancelled leaves the queue at once and
/// its `acquire` throws `PareError.cancelled`.
final class PriorityGate: Sendable {
    /// A place in the queue: a thumbnail's priority, or a placeholder's, which goes ahead of
    /// every thumbnail (it costs a DC-only decode and tells a grid cell what to draw now).
    /// Ranks compare in the order declared, then by the priority they carry.
    enum GateRank: Comparable, Sendable {
        case thumbnail(ThumbnailPriority)
        case placeholder
    }

    /// One pending `acquire`, made first so that the caller can keep it to raise its priority
    /// while it waits (a prefetch job that a visible request joins moves ahead). Its priority
    /// and its place in the queue are the gate's state, under the gate's lock.
    struct Waiter: Sendable {
        let amount: Int
        /// Its number in the order of `makeWaiter` calls: first come first served, and its
        /// identity in the gate's state.
        fileprivate let arrival: Int
    }

    /// A waiter in the queue, with what it needs to be granted.
    private struct Queued: Sendable {
        let waiter: Waiter
        var priority: GateRank
        let continuation: CheckedContinuation<Result<Void, PareError>, Never>
    }

    /// Everything the lock guards.
    private struct State {
        var used = 0
        var highWater = 0
        var delayedCount = 0
        var arrivals = 0
        /// The waiters in the queue, by arrival.
        var queued: [Int: Queued] = [:]
        /// Their order: best first (`QueueOrder`). A raise or a cancellation leaves the old
        /// position behind, skipped when it comes to the top, so each operation is O(log n).
        var order = QueueOrder()
        /// The priorities of waiters made and not yet queued by `acquire` (a raise may come
        /// first). A waiter in neither this nor `queued` has been granted or has failed.
        var unqueued: [Int: GateRank] = [:]

        mutating func enqueue(_ entry: Queued) {
            queued[entry.waiter.arrival] = entry
            order.push(QueueOrder.Position(priority: entry.priority, arrival: entry.waiter.arrival))
        }

        /// The best waiter, its stale positions popped on the way.
        mutating func best() -> Queued? {
            while let top = order.top {
                if let entry = queued[top.arrival], entry.priority == top.priority { return entry }
                order.pop()
            }
            return nil
        }

        /// Grants the best waiter while it fits. The continuations are resumed by the caller
        /// after unlocking.
        mutating func grant(capacity: Int) -> [Queued] {
            var ready: [Queued] = []
            while let best = best(), used + best.waiter.amount <= capacity {
                order.pop()
                queued[best.waiter.arrival] = nil
                used += best.waiter.amount
                highWater = max(highWater, used)
                ready.append(best)
            }
            return ready
        }
    }

    let capacity: Int
    private let state = Mutex(State())
    /// Called when a request can never fit: makes the error the caller throws.
    private let tooLarge: @Sendable (_ amount: Int, _ capacity: Int) -> PareError

    init(capacity: Int, tooLarge: @escaping @Sendable (_ amount: Int, _ capacity: Int) -> PareError) {
        precondition(capacity > 0, "a gate needs a positive capacity")
        self.capacity = capacity
        self.tooLarge = tooLarge
    }

    /// Units granted now.
    var inUse: Int { state.withOrderedLock { $0.used } }
    /// The most units ever granted at once.
    var peak: Int { state.withOrderedLock { $0.highWater } }
    /// Waiters queued now.
    var waiting: Int { state.withOrderedLock { $0.queued.count } }
    /// Acquisitions that had to wait (did not fit when they arrived).
    var delayed: Int { state.withOrderedLock { $0.delayedCount } }

    /// A waiter for `amount` units; pass it to `acquire`. Made first so that the caller can
    /// keep it to raise its priority while it waits.
    func makeWaiter(amount: Int, priority: ThumbnailPriority) -> Waiter {
        makeWaiter(amount: amount, rank: .thumbnail(priority))
    }

    func makeWaiter(amount: Int, rank priority: GateRank) -> Waiter {
        state.withOrderedLock { state in
            state.arrivals += 1
            state.unqueued[state.arrivals] = priority
            return Waiter(amount: amount, arrival: state.arrivals)
        }
    }

    /// Waits until the waiter's units are granted. Throws `tooLarge` if they exceed the
    /// capacity and `.cancelled` if the task is cancelled while it waits.
    func acquire(_ waiter: Waiter) async throws(PareError) {
        if waiter.amount > capacity {
            state.withOrderedLock { _ = $0.unqueued.removeValue(forKey: waiter.arrival) }
            throw tooLarge(waiter.amount, capacity)
        }
        // Free units and nobody ahead: granted without suspending, which would cost the task
        // a trip through the executor for nothing.
        let granted: Bool = state.withOrderedLock { state in
            guard state.queued.isEmpty, state.used + waiter.amount <= capacity, !Task.isCancelled else { return false }
            state.unqueued.removeValue(forKey: waiter.arrival)
            state.used += waiter.amount
            state.highWater = max(state.highWater, state.used)
            return true
        }
        if granted { return }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, PareError>, Never>) in
                let ready: [Queued] = state.withOrderedLock { state in
                    let priority = state.unqueued.removeValue(forKey: waiter.arrival)
                    // A task cancelled before it got here has had its handler run already,
                    // finding nothing to remove: the flag is what tells.
                    if Task.isCancelled {
                        continuation.resume(returning: .failure(.cancelled))
                        return []
                    }
                    state.enqueue(Queued(waiter: waiter, priority: priority ?? .thumbnail(.prefetch), continuation: continuation))
                    let ready = state.grant(capacity: capacity)
                    if !ready.contains(where: { $0.waiter.arrival == waiter.arrival }) { state.delayedCount += 1 }
                    return ready
                }
                resume(ready)
            }
        } onCancel: {
            let removed: Queued? = state.withOrderedLock { $0.queued.removeValue(forKey: waiter.arrival) }
            removed?.continuation.resume(returning: .failure(.cancelled))
            // The head may have been the one blocking smaller waiters behind it.
            resume(state.withOrderedLock { $0.grant(capacity: capacity) })
        }
        try result.get()
    }

    /// Takes `amount` units without waiting, if they fit now and nobody waits ahead.
    func tryAcquire(_ amount: Int) -> Bool {
        state.withOrderedLock { state in
            guard state.queued.isEmpty, state.used + amount <= capacity else { return false }
            state.used += amount
            state.highWater = max(state.highWater, state.used)
            return true
        }
    }

    /// Gives back units from a granted `acquire` or `tryAcquire`, and wakes whoever now fits.
    func release(_ amount: Int) {
        let ready: [Queued] = state.withOrderedLock { state in
            precondition(amount >= 0 && amount <= state.used, "gate released more than it granted")
            state.used -= amount
            return state.grant(capacity: capacity)
        }
        resume(ready)
    }

    /// Raises a waiting waiter's priority (never lowers it); no effect once granted.
    func raise(_ waiter: Waiter, to priority: ThumbnailPriority) {
        raise(waiter, to: .thumbnail(priority))
    }

    func raise(_ waiter: Waiter, to priority: GateRank) {
        let ready: [Queued] = state.withOrderedLock { state in
            if var entry = state.queued[waiter.arrival] {
                guard priority > entry.priority else { return [] }
                entry.priority = priority
                state.enqueue(entry)
            } else if let current = state.unqueued[waiter.arrival] {
                guard priority > current else { return [] }
                state.unqueued[waiter.arrival] = priority
            } else {
                return []
            }
            return state.grant(capacity: capacity)
        }
        resume(ready)
    }

    private func resume(_ ready: [Queued]) {
        for granted in ready { granted.continuation.resume(returning: .success(())) }
    }
}

/// The gate's queue order, a binary heap of positions: the highest priority on top, the
/// earliest arrival first within a priority. Push and pop are O(log n).
private struct QueueOrder {
    struct Position {
        let priority: PriorityGate.GateRank
        let arrival: Int

        /// True if `self` goes before `other`.
        func precedes(_ other: Position) -> Bool {
            priority != other.priority ? priority > other.priority : arrival < other.arrival
        }
    }

    private var heap: [Position] = []

    var top: Position? { heap.first }

    mutating func push(_ position: Position) {
        heap.append(position)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() {
        guard !heap.isEmpty else { return }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < heap.count && heap[left].precedes(heap[first]) { first = left }
            if right < heap.count && heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
