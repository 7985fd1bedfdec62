#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations the library and the command line share, straight from the C library
/// (no Foundation): whole-file reads of small files, complete writes, directory listings,
/// `mkdir -p`, what `stat` says of a file, removal and renaming. Every other file of the
/// package reaches the file system through here, so that this file alone knows which C
/// library it runs on.
@_spi(CommandLine) public enum FileIO {
    /// What `stat` says of a path: its kind, size, modification time and identity.
    public struct Status: Sendable {
        public enum Kind: Sendable { case regular, directory, other }
        public var kind: Kind
        public var size: Int
        /// The modification time, in seconds and nanoseconds since the epoch (the nanoseconds
        /// are 0 where the file system keeps whole seconds).
        public var modifiedSeconds: Int
        public var modifiedNanoseconds: Int
        public var device: UInt64
        public var inode: UInt64

        init(_ info: stat) {
            switch info.st_mode & S_IFMT {
            case S_IFREG: kind = .regular
            case S_IFDIR: kind = .directory
            default: kind = .other
            }
            size = Int(info.st_size)
            #if canImport(Darwin)
            modifiedSeconds = Int(info.st_mtimespec.tv_sec)
            modifiedNanoseconds = Int(info.st_mtimespec.tv_nsec)
            #else
            modifiedSeconds = Int(info.st_mtim.tv_sec)
            modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
            #endif
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }

        /// The modification time in nanoseconds since the epoch.
        public var modified: Int { modifiedSeconds * 1_000_000_000 + modifiedNanoseconds }
    }

    /// What `stat` says of `path` (following links), or nil if it cannot be read.
    public static func status(_ path: String) -> Status? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Status(info)
    }

    /// The C library's text for the error of the call that just failed (`strerror(errno)`).
    public static var lastError: String { String(cString: strerror(errno)) }

    /// Removes a file; a missing one is not an error.
    public static func remove(_ path: String) {
        unlink(path)
    }

    /// Sets a file's access and modification times to now (`touch`), so that every process
    /// sharing a directory sees it as recently used.
    public static func touch(_ path: String) {
        utimensat(AT_FDCWD, path, nil, 0)
    }

    /// The working directory, or nil if it cannot be read.
    public static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Opens `path` for writing: truncated and created (mode 0644) when `create`, else as it
    /// is (a device or a pipe). A descriptor, or -1.
    public static func openForWriting(_ path: String, create: Bool) -> Int32 {
        create ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) : open(path, O_WRONLY | O_CLOEXEC)
    }

    /// Closes a descriptor; false if the close reported an error (for a file just written,
    /// a write the kernel could not complete).
    @discardableResult
    public static func close(_ fd: Int32) -> Bool {
        #if canImport(Glibc)
        Glibc.close(fd) == 0
        #elseif canImport(Musl)
        Musl.close(fd) == 0
        #else
        Darwin.close(fd) == 0
        #endif
    }

    /// Renames `from` to `to`, replacing `to` atomically; false on an error.
    public static func rename(_ from: String, to: String) -> Bool {
        #if canImport(Glibc)
        Glibc.rename(from, to) == 0
        #elseif canImport(Musl)
        Musl.rename(from, to) == 0
        #else
        Darwin.rename(from, to) == 0
        #endif
    }

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
            #elseif canImport(Musl)
            let n = Musl.write(fd, bytes.baseAddress! + done, bytes.count - done)
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
        let fd = openForWriting(scratch, create: true)
        guard fd >= 0 else {
            temporary(nil)
            return false
        }
        let written = bytes.withUnsafeBytes { write(fd, $0) }
        let closed = close(fd)
        guard written && closed && rename(scratch, to: path) else {
            unlink(scratch)
            temporary(nil)
            return false
        }
        temporary(nil)
        return true
    }
}
