#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations the disk cache and the command line share, straight from the C
/// library (no Foundation): whole-file reads of small files, complete writes, directory
/// listings, `mkdir -p`, and the identity `stat` gives a file.
@_spi(CommandLine) public enum FileIO {
    /// A whole file, or nil if it cannot be read.
    public static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        let complete = bytes.withUnsafeMutableBytes { buffer -> Bool in
            while done < buffer.count {
                let n = read(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
        return complete ? bytes : nil
    }

    /// Writes every byte to a descriptor; false on an error.
    @discardableResult
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            #if canImport(Glibc)
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            #else
            let n = Darwin.write(fd, bytes.baseAddress! + done, bytes.count - done)
            #endif
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// The names in a directory (not `.` and `..`), or nil if it cannot be read.
    public static func list(_ path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// `mkdir -p`.
    public static func createDirectories(_ path: String) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            mkdir(prefix, 0o777)
            prefix += "/"
        }
    }

    /// Writes `bytes` to `path` under a temporary name in the same directory, then renames it
    /// into place (POSIX `rename` replaces atomically), so a reader sees the old file or the
    /// whole new one, never a part. `temporary` is told the temporary name before anything is
    /// written and nil once it is gone (renamed or removed), so that an interrupt handler can
    /// remove it. False if any step failed; the temporary file is then removed.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, temporaryName: String,
                                       temporary: (String?) -> Void = { _ in }) -> Bool {
        let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        let scratch = directory + temporaryName
        temporary(scratch)
        let fd = open(scratch, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            temporary(nil)
            return false
        }
        let written = bytes.withUnsafeBytes { write(fd, $0) }
        let closed = close(fd) == 0
        guard written && closed && rename(scratch, path) == 0 else {
            unlink(scratch)
            temporary(nil)
            return false
        }
        temporary(nil)
        return true
    }
}
