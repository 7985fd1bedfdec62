#if canImport(CMallocInfo)
import CMallocInfo
#endif
import PareCore

/// Measures the process heap with glibc's `mallinfo2()`, to check that the `MemoryLedger`
/// accounts for what the library really allocates.
///
/// `mallinfo2()` sums every arena; `uordblks` (bytes in use from the heap) plus `hblkhd`
/// (bytes in mmapped blocks, which large buffers get) is the heap in use. The meter samples
/// it before a job and after each ledger allocation, so its peak is the heap's highest
/// point at the moments the ledger's count rises. Tests that use it must not run beside
/// other allocating tests (`swift test --no-parallel`, as the README's command does).
public enum HeapMeter {
    /// Bytes of heap in use right now, or nil where `mallinfo2` is unavailable.
    public static func heapInUse() -> Int? {
        #if canImport(CMallocInfo)
        let info = mallinfo2()
        return Int(info.uordblks) + Int(info.hblkhd)
        #else
        return nil
        #endif
    }

    /// Runs `body` with `ledger` and returns the highest heap growth over the starting point
    /// seen after any ledger allocation (or at the end), in bytes.
    public static func peakGrowth<T>(ledger: MemoryLedger, _ body: () throws -> T) rethrows -> (result: T, peakGrowth: Int?) {
        guard let start = heapInUse() else { return (try body(), nil) }
        var peak = 0
        ledger.afterAllocation = { _ in
            if let now = heapInUse() { peak = max(peak, now - start) }
        }
        defer { ledger.afterAllocation = nil }
        let result = try body()
        if let now = heapInUse() { peak = max(peak, now - start) }
        return (result, peak)
    }
}
