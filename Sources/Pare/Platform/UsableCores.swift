#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How many cores this process may keep busy: what sizes the decode pools (band decoding,
/// the pipeline's concurrent decodes). The machine's online count says too much in two common
/// places: under `taskset` or a scheduler's CPU set (the Linux affinity mask), and in a
/// container whose cgroup grants a CPU quota smaller than the machine (`cpu.max` of cgroup v2,
/// `cpu.cfs_quota_us` / `cpu.cfs_period_us` of v1: a quota of 1.5 periods keeps two threads
/// busy half the time each, so it counts as 2). The smallest of the three, at least 1. Read
/// once per process.
@_spi(CommandLine) public enum UsableCores {
    public static let count: Int = {
        var cores = onlineCores
        if let affinity = affinityCores { cores = min(cores, affinity) }
        if let quota = quotaCores { cores = min(cores, quota) }
        return max(1, cores)
    }()

    static var onlineCores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// The CPUs in this process's affinity mask (Linux), nil elsewhere. Read from
    /// `/proc/self/status`'s `Cpus_allowed` (the mask in hexadecimal, 32-bit groups separated
    /// by commas), which says what `sched_getaffinity` says and needs no C declaration the
    /// Swift overlay leaves out.
    static var affinityCores: Int? {
        #if os(Linux)
        guard let status = readSmallFile("/proc/self/status", limit: 16384) else { return nil }
        return affinity(status: status)
        #else
        return nil
        #endif
    }

    /// The count of CPUs in the `Cpus_allowed:` line of a `/proc/PID/status` text.
    static func affinity(status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix("Cpus_allowed:") {
            var count = 0
            for character in line.dropFirst("Cpus_allowed:".count) {
                guard let digit = character.hexDigitValue else { continue }
                count += digit.nonzeroBitCount
            }
            return count > 0 ? count : nil
        }
        return nil
    }

    /// The cgroup's CPU quota in whole cores, rounded up; nil without a quota.
    static var quotaCores: Int? {
        #if os(Linux)
        if let line = readSmallFile("/sys/fs/cgroup/cpu.max") { return quota(cgroupV2: line) }
        if let quota = readSmallFile("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"),
           let period = readSmallFile("/sys/fs/cgroup/cpu/cpu.cfs_period_us") {
            return Self.quota(cgroupV1Quota: quota, period: period)
        }
        #endif
        return nil
    }

    /// cgroup v2 `cpu.max`: "QUOTA PERIOD" in microseconds, or "max PERIOD" for none.
    static func quota(cgroupV2 line: String) -> Int? {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 2, let quota = Int(fields[0]), let period = Int(fields[1]) else { return nil }
        return cores(quota: quota, period: period)
    }

    /// cgroup v1: `cpu.cfs_quota_us` (-1 for none) and `cpu.cfs_period_us`.
    static func quota(cgroupV1Quota quota: String, period: String) -> Int? {
        guard let quota = Int(quota.filter { $0 != "\n" && $0 != " " }),
              let period = Int(period.filter { $0 != "\n" && $0 != " " }) else { return nil }
        return cores(quota: quota, period: period)
    }

    static func cores(quota: Int, period: Int) -> Int? {
        guard quota > 0, period > 0 else { return nil }
        return max(1, (quota + period - 1) / period)
    }

    /// The first bytes of a small system file as text, nil when it cannot be read.
    static func readSmallFile(_ path: String, limit: Int = 256) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: limit)
        var filled = 0
        while filled < limit {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, limit - filled) }
            guard n > 0 else { break }
            filled += n
        }
        guard filled > 0 else { return nil }
        return String(decoding: buffer[..<filled], as: UTF8.self)
    }
}
