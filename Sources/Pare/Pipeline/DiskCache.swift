import Synchronization

/// Encoded thumbnails in a directory, one file per key (`DiskCacheEntry`), for reuse across
/// runs and across processes.
///
/// - **Names**: the key's 64-bit FNV-1a hash in hex, `.pare`. The entry stores its whole key
///   and a read compares it, so a hash collision is a miss, never a wrong thumbnail.
/// - **Writes** go to a temporary file in the same directory (`.tmp-PID-N-NAME`), then
///   `rename` puts it in place: a reader, in this process or another, sees no entry, the
///   old one or the whole new one. Two writers of one key both write whole entries; the
///   last rename wins.
/// - **Reads** check the entry's length fields and CRC-32 before trusting anything; a
///   damaged entry (a write torn by a power cut, a bit flipped on disk) is removed and
///   reported as a miss, so the caller rebuilds it. No `fsync`: a process killed at any
///   point leaves either its temporary file or a whole entry (the kernel keeps the written
///   pages); only a power cut can tear one, and the checksum catches that.
/// - **Size cap**: least recently used first out. A hit sets the entry's modification time
///   to now, so the order survives restarts and is shared between processes. The in-memory
///   index (names, sizes, times) is built by scanning the directory the first time it is
///   needed and rebuilt whenever the cap is passed, since other processes add files too.
/// - **Left-over temporary files** (a process killed mid-write) are removed by the scan when
///   their process is gone or they are an hour old.
public final class DiskCache: Sendable {
    public let directory: String
    /// The most bytes of entries kept; past it, the least recently used go until the total
    /// is at most 90% of it (so that eviction scans are not run on every write).
    public let sizeLimit: Int
    /// Everything the lock guards.
    private struct State {
        var index: [String: (size: Int, used: Int)]?
        var indexedBytes = 0
        var temporaryCounter = 0
        var damagedRemoved = 0
    }

    private let state = Mutex(State())

    /// Opens (creating it if needed) a cache directory.
    public init(directory: String, sizeLimit: Int = 256 * 1024 * 1024) throws(PareError) {
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        self.sizeLimit = sizeLimit
        FileIO.createDirectories(self.directory)
        guard FileIO.status(self.directory)?.kind == .directory else {
            throw .io(path: directory, reason: "cannot create the cache directory")
        }
        // Removes what a killed process left, and knows the total from the start.
        state.withOrderedLock { scan(into: &$0) }
    }

    /// Damaged entries found and removed by this process.
    public var damagedEntriesRemoved: Int { state.withOrderedLock { $0.damagedRemoved } }

    /// Whether the index is in memory (`trim(.diskCacheIndex)` drops it).
    var hasIndex: Bool { state.withOrderedLock { $0.index != nil } }

    static func fileName(for key: ThumbnailKey) -> String {
        let hex = String(key.hash64, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + ".pare"
    }

    func path(for key: ThumbnailKey) -> String { directory + "/" + Self.fileName(for: key) }

    /// The sound entry stored under `key`, or nil. A damaged entry is removed.
    @_spi(CommandLine) public func entry(for key: ThumbnailKey) -> DiskCacheEntry? {
        let name = Self.fileName(for: key), path = directory + "/" + name
        guard let bytes = FileIO.readFile(path) else { return nil }
        let entry: DiskCacheEntry
        do {
            entry = try DiskCacheEntry(parsing: bytes)
        } catch {
            FileIO.remove(path)
            state.withOrderedLock { state in
                state.damagedRemoved += 1
                if let old = state.index?.removeValue(forKey: name) { state.indexedBytes -= old.size }
            }
            return nil
        }
        guard entry.key == key else { return nil }
        // Most recently used now, for this process's index and for every other process.
        FileIO.touch(path)
        state.withOrderedLock { $0.index?[name]?.used = Self.now() }
        return entry
    }

    /// Stores an entry (atomically), then evicts if the cap is passed. False if it could not
    /// be written (a full disk, a removed directory): the cache is an optimisation, never a
    /// reason for a request to fail.
    @discardableResult
    @_spi(CommandLine) public func store(_ entry: DiskCacheEntry) -> Bool {
        let name = Self.fileName(for: entry.key)
        let bytes = entry.serialized()
        let counter = state.withOrderedLock { state in
            state.temporaryCounter += 1
            return state.temporaryCounter
        }
        guard FileIO.writeAtomically(bytes, to: directory + "/" + name,
                                     temporaryName: ".tmp-\(CurrentProcess.id)-\(counter)-\(name)") else { return false }
        let overLimit: Bool = state.withOrderedLock { state in
            if state.index == nil { scan(into: &state) }
            if let old = state.index?[name] { state.indexedBytes -= old.size }
            state.index?[name] = (bytes.count, Self.now())
            state.indexedBytes += bytes.count
            return state.indexedBytes > sizeLimit
        }
        if overLimit { evict() }
        return true
    }

    /// Removes every entry and temporary file (`trim(.everything)` leaves the disk alone;
    /// this is for tests and for a "clear cache" button).
    public func removeAll() {
        for name in FileIO.list(directory) ?? [] where name.hasSuffix(".pare") || name.hasPrefix(".tmp-") {
            FileIO.remove(directory + "/" + name)
        }
        state.withOrderedLock { state in
            state.index = [:]
            state.indexedBytes = 0
        }
    }

    /// Forgets the in-memory index; the next write that needs it scans the directory again.
    func dropIndex() {
        state.withOrderedLock { state in
            state.index = nil
            state.indexedBytes = 0
        }
    }

    /// Bytes of entries, per the index (scanning if there is none).
    var totalBytes: Int {
        state.withOrderedLock { state in
            if state.index == nil { scan(into: &state) }
            return state.indexedBytes
        }
    }

    /// Rescans, then removes the least recently used entries until the total is at most 90%
    /// of the cap.
    private func evict() {
        state.withOrderedLock { state in
            scan(into: &state)
            guard state.indexedBytes > sizeLimit, let entries = state.index else { return }
            let target = sizeLimit - sizeLimit / 10
            for (name, info) in entries.sorted(by: { $0.value.used < $1.value.used || ($0.value.used == $1.value.used && $0.key < $1.key) }) {
                guard state.indexedBytes > target else { break }
                FileIO.remove(directory + "/" + name)
                state.index?[name] = nil
                state.indexedBytes -= info.size
            }
        }
    }

    /// Rebuilds the index from the directory, and removes temporary files left by processes
    /// that are gone. Called with the lock held (`state` is what it guards).
    private func scan(into state: inout State) {
        var entries: [String: (size: Int, used: Int)] = [:]
        var total = 0
        let now = Self.now()
        for name in FileIO.list(directory) ?? [] {
            let path = directory + "/" + name
            guard let info = FileIO.status(path) else { continue }
            let modified = info.modified
            if name.hasPrefix(".tmp-") {
                if Self.writerIsGone(name) || now - modified > 3600 * 1_000_000_000 { FileIO.remove(path) }
                continue
            }
            guard name.hasSuffix(".pare") else { continue }
            entries[name] = (info.size, modified)
            total += info.size
        }
        state.index = entries
        state.indexedBytes = total
    }

    /// True if the process that named a temporary file `.tmp-PID-…` no longer exists.
    private static func writerIsGone(_ name: String) -> Bool {
        let parts = name.split(separator: "-")
        guard parts.count >= 2, let pid = Int32(parts[1]) else { return true }
        if pid == CurrentProcess.id { return false }
        return CurrentProcess.isGone(pid)
    }

    /// Wall-clock nanoseconds, the scale of file modification times.
    private static func now() -> Int { CurrentProcess.wallClock() }
}
