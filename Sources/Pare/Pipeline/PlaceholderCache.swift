import Synchronization

/// The placeholders a `ThumbnailPipeline` has made or kept, by key, the oldest out first
/// past `countLimit`. A placeholder is a few dozen bytes, so thousands cost less than one
/// thumbnail; they survive every trim, since they are what a cell draws when its
/// thumbnail has been let go (`TrimLevel.everything`).
final class PlaceholderCache: Sendable {
    let countLimit: Int

    /// Everything the lock guards: the placeholders, and their keys in insertion order
    /// (`order[first...]`), so that the oldest goes first.
    private struct State {
        var values: [ThumbnailKey: Placeholder] = [:]
        var order: [ThumbnailKey] = []
        var first = 0
    }

    private let state = Mutex(State())

    init(countLimit: Int) {
        self.countLimit = countLimit
    }

    var count: Int { state.withOrderedLock { $0.values.count } }

    func value(for key: ThumbnailKey) -> Placeholder? {
        state.withOrderedLock { $0.values[key] }
    }

    func insert(_ placeholder: Placeholder, for key: ThumbnailKey) {
        state.withOrderedLock { state in
            guard countLimit > 0 else { return }
            if state.values.updateValue(placeholder, forKey: key) == nil { state.order.append(key) }
            while state.values.count > countLimit, state.first < state.order.count {
                state.values[state.order[state.first]] = nil
                state.first += 1
            }
            // Drop the spent head of the order once it is half of the array.
            if state.first > 64, state.first * 2 > state.order.count {
                state.order.removeFirst(state.first)
                state.first = 0
            }
        }
    }
}
