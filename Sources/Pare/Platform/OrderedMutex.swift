import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Mutex where Value: ~Copyable {
    /// `withLock`, with the order between one holder and the next also told to
    /// ThreadSanitizer. Use it for every `Mutex` that threads contend for.
    ///
    /// On Linux a contended `Mutex` waits and hands over ownership in the kernel (a futex),
    /// inside the standard library's uninstrumented code, so ThreadSanitizer sees no ordering
    /// between the writes one holder makes and the reads the next holder makes, and reports
    /// races that cannot happen. Here each holder announces an acquire when it enters and a
    /// release before it leaves, both at the mutex's address, which gives ThreadSanitizer the
    /// order the lock really imposes. In a process built without ThreadSanitizer the two
    /// announcements are absent and this is exactly `withLock`.
    @_spi(CommandLine)
    public borrowing func withOrderedLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        // Only an identity for ThreadSanitizer's bookkeeping: never dereferenced.
        let identity = withUnsafePointer(to: self) { UInt(bitPattern: $0) }
        return try withLock { (value: inout sending Value) throws(E) -> sending Result in
            ThreadSanitizer.acquire?(UnsafeRawPointer(bitPattern: identity))
            defer { ThreadSanitizer.release?(UnsafeRawPointer(bitPattern: identity)) }
            return try body(&value)
        }
    }
}

/// ThreadSanitizer's entry points for declaring an ordering (`__tsan_acquire` and
/// `__tsan_release`, which take any address as the name of a synchronisation object), looked
/// up once in the running process: they exist only when it was built with
/// `-sanitize=thread`, and are nil otherwise.
private enum ThreadSanitizer {
    typealias Announcement = @convention(c) (UnsafeRawPointer?) -> Void

    static let acquire = lookUp("__tsan_acquire")
    static let release = lookUp("__tsan_release")

    private static func lookUp(_ name: String) -> Announcement? {
        #if os(Linux)
        let everyLoadedImage: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #else
        let everyLoadedImage = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #endif
        guard let symbol = dlsym(everyLoadedImage, name) else { return nil }
        return unsafeBitCast(symbol, to: Announcement.self)
    }
}
