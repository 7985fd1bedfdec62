#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// This process and others, and the clocks: the little the disk cache and the command line
/// ask of the operating system besides files.
@_spi(CommandLine) public enum CurrentProcess {
    /// This process's id, which names its temporary files.
    public static var id: Int32 { getpid() }

    /// True if no process `pid` exists any more (so its temporary files are orphans).
    public static func isGone(_ pid: Int32) -> Bool {
        kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Wall-clock nanoseconds since the epoch, the scale of file modification times.
    public static func wallClock() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int(time.tv_sec) * 1_000_000_000 + Int(time.tv_nsec)
    }

    /// A monotonic clock in nanoseconds, for durations.
    public static func monotonicClock() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
