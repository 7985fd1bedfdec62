/// How much memory `ThumbnailPipeline.trim(_:)` releases. Each level includes the ones
/// before it, following the order in which a photo app gives memory back: first what is
/// cheapest to rebuild and least likely to be needed.
///
/// | level | releases |
/// |---|---|
/// | `diskCacheIndex` | the disk cache's in-memory index (rebuilt by a directory scan) |
/// | `offscreen` | decoded thumbnails whose views went away (`markOffscreen`, or a visible request cancelled) |
/// | `prefetched` | thumbnails made by `prefetch` and not yet asked for; running prefetches are cancelled |
/// | `allButVisible` | every thumbnail not delivered to a `visible` request |
/// | `everything` | the whole memory cache (the disk cache stays); each visible thumbnail leaves its placeholder behind |
///
/// Requests that a caller awaits are never failed by a trim, and the decodes running keep
/// their reservations: the memory budget already bounds them. A visible thumbnail let go
/// by `everything` does not leave its cell empty: its placeholder (the configuration's
/// `placeholderKind`, made from the thumbnail itself when none was kept) stays, a few dozen
/// bytes, and `ThumbnailPipeline.cachedPlaceholder` hands it to the cell at once, to draw
/// until the cell asks for its thumbnail again.
///
/// A trim asked again within a few seconds (`Configuration.trimEscalationWindow`) at the
/// same or a lighter level goes one level deeper on its own, so that a handler that can
/// only say "memory is short" again and again ends at `everything`.
///
/// **Mapping the platform's signals.** On iOS, `UIApplication.didReceiveMemoryWarning`
/// (or a view controller's `didReceiveMemoryWarning`) is the last warning before the
/// process is killed: call `trim(.allButVisible)`, and `trim(.everything)` when the app
/// goes to the background (`didEnterBackground`) so that it is less likely to be evicted.
/// `DispatchSource.makeMemoryPressureSource(eventMask: [.warning, .critical])` gives two
/// steps: `.warning` → `trim(.prefetched)`, `.critical` → `trim(.allButVisible)`.
///
/// On Linux, a service reads pressure stall information: register a trigger by writing
/// `"some 150000 1000000"` (stalled 150 ms in any second) to `/proc/pressure/memory`, or to
/// the cgroup's `memory.pressure`, and `poll` for `POLLPRI`; map the first trigger to
/// `trim(.prefetched)` and a second, stricter one (`"full 100000 1000000"`) to
/// `trim(.everything)`. Under cgroup v2, a change event on `memory.events` whose `high`
/// count grew (the group passed `memory.high` and is being throttled) maps to
/// `trim(.allButVisible)`. A server has nothing visible: its requests use `normal`, and
/// `allButVisible` empties its memory cache.
///
/// Levels compare in the order declared (the `Comparable` conformance Swift derives for an
/// enum without payloads), lightest first.
public enum TrimLevel: Sendable, Comparable, CaseIterable {
    case diskCacheIndex, offscreen, prefetched, allButVisible, everything

    /// The next level, or `everything` itself.
    public var deeper: TrimLevel {
        switch self {
        case .diskCacheIndex: return .offscreen
        case .offscreen: return .prefetched
        case .prefetched: return .allButVisible
        case .allButVisible, .everything: return .everything
        }
    }
}
