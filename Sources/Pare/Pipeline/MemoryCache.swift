import Synchronization

/// Finished thumbnails kept in memory, least recently used first out, under two limits:
/// the bytes of their pixels (`costLimit`) and their number (`countLimit`). Each entry
/// also records how it is being used (its `Residency`), so that `trim` can release the
/// least needed first. Thread-safe: all of it is behind one lock.
///
/// The order is a doubly linked list through the entries, most recent at the head, so that
/// a hit, an insertion and an eviction each take constant time.
final class MemoryCache: Sendable {
    /// How an entry is being used, from the first to go under memory pressure to the last.
    enum Residency: Comparable {
        /// Was shown, and the view that showed it has gone (`ThumbnailPipeline.markOffscreen`)
        /// or its visible request was cancelled before the decode ended.
        case offscreen
        /// Made ahead of need by `prefetch` and not asked for since.
        case prefetched
        /// Delivered to a request of `normal` priority.
        case delivered
        /// Delivered to a `visible` request and not marked off-screen since.
        case visible
    }

    private final class Node {
        let key: ThumbnailKey
        let thumbnail: Thumbnail
        let cost: Int
        var residency: Residency
        /// The key of the placeholder that stands in for the thumbnail once it is let go.
        let fallback: ThumbnailKey?
        var newer: Node?
        weak var older: Node?

        init(key: ThumbnailKey, thumbnail: Thumbnail, cost: Int, residency: Residency, fallback: ThumbnailKey?) {
            self.key = key
            self.thumbnail = thumbnail
            self.cost = cost
            self.residency = residency
            self.fallback = fallback
        }
    }

    /// Everything the lock guards: the entries by key and their order.
    private struct State {
        var nodes: [ThumbnailKey: Node] = [:]
        /// Most recently used; `newer` links run from `oldest` towards it.
        var newest: Node?
        var oldest: Node?
        var cost = 0

        mutating func remove(_ node: Node) {
            unlink(node)
            nodes[node.key] = nil
            cost -= node.cost
        }

        mutating func unlink(_ node: Node) {
            if let older = node.older { older.newer = node.newer } else if oldest === node { oldest = node.newer }
            if let newer = node.newer { newer.older = node.older } else if newest === node { newest = node.older }
            node.newer = nil
            node.older = nil
        }

        mutating func linkNewest(_ node: Node) {
            node.older = newest
            newest?.newer = node
            newest = node
            if oldest == nil { oldest = node }
        }
    }

    let costLimit: Int
    let countLimit: Int
    /// The nodes are reachable only through it, so no thread touches one without the lock.
    private let state = Mutex(State())

    init(costLimit: Int, countLimit: Int) {
        self.costLimit = costLimit
        self.countLimit = countLimit
    }

    /// The bytes of pixels held.
    var totalCost: Int { state.withOrderedLock { $0.cost } }
    var count: Int { state.withOrderedLock { $0.nodes.count } }

    /// Keys from least to most recently used.
    var keysByAge: [ThumbnailKey] {
        state.withOrderedLock { state in
            var keys: [ThumbnailKey] = []
            var node = state.oldest
            while let current = node {
                keys.append(current.key)
                node = current.newer
            }
            return keys
        }
    }

    /// The pixel bytes an entry costs.
    static func cost(of thumbnail: Thumbnail) -> Int { thumbnail.image.rowStride * thumbnail.image.height }

    /// The thumbnail under `key`, now the most recently used, its residency raised to
    /// `residency` if that is higher.
    func value(for key: ThumbnailKey, residency: Residency) -> Thumbnail? {
        state.withOrderedLock { state in
            guard let node = state.nodes[key] else { return nil }
            state.unlink(node)
            state.linkNewest(node)
            node.residency = max(node.residency, residency)
            return node.thumbnail
        }
    }

    /// Stores a thumbnail as the most recently used, then evicts the least recently used
    /// until both limits hold. A thumbnail larger than the whole cost limit is not kept.
    func insert(_ thumbnail: Thumbnail, for key: ThumbnailKey, residency: Residency, fallback: ThumbnailKey? = nil) {
        let cost = Self.cost(of: thumbnail)
        state.withOrderedLock { state in
            if let old = state.nodes.removeValue(forKey: key) {
                state.unlink(old)
                state.cost -= old.cost
            }
            guard cost <= costLimit, countLimit > 0 else { return }
            let node = Node(key: key, thumbnail: thumbnail, cost: cost, residency: residency, fallback: fallback)
            state.nodes[key] = node
            state.linkNewest(node)
            state.cost += cost
            while state.cost > costLimit || state.nodes.count > countLimit, let victim = state.oldest {
                state.remove(victim)
            }
        }
    }

    /// Lowers an entry to `offscreen` (its view went away).
    func markOffscreen(_ key: ThumbnailKey) {
        state.withOrderedLock { $0.nodes[key]?.residency = .offscreen }
    }

    /// Removes every entry whose residency is below `residency` (all of them for nil), and
    /// returns the visible ones among them that have a fallback key, with it.
    @discardableResult
    func removeAll(below residency: Residency?) -> [(fallback: ThumbnailKey, thumbnail: Thumbnail)] {
        state.withOrderedLock { state in
            var visible: [(fallback: ThumbnailKey, thumbnail: Thumbnail)] = []
            var node = state.oldest
            while let current = node {
                node = current.newer
                if let residency, current.residency >= residency { continue }
                if current.residency == .visible, let fallback = current.fallback {
                    visible.append((fallback, current.thumbnail))
                }
                state.remove(current)
            }
            return visible
        }
    }
}
