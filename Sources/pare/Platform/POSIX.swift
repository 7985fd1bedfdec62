#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
@_spi(CommandLine) import Pare

/// The little of the operating system the command line needs (files, directories, clocks,
/// standard streams), straight from the C library: without Foundation the executable starts
/// in about a millisecond and links the Swift runtime in, which matters when a thumbnail
/// takes a few tens of milliseconds.
enum POSIX {
    /// A whole file, or nil if it cannot be read.
    static func readFile(_ path: String) -> [UInt8]? { FileIO.readFile(path) }

    /// Writes every byte to a descriptor; false on an error.
    @discardableResult
    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool { FileIO.write(fd, bytes) }

    @discardableResult
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { write(fd, $0) }
    }

    /// Everything on standard input, up to its end.
    static func readStandardInput() -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return bytes }
            bytes += chunk[..<n]
        }
    }

    static func writeStandardOutput(_ text: String) {
        write(STDOUT_FILENO, Array(text.utf8))
    }

    static func writeStandardError(_ text: String) {
        write(STDERR_FILENO, Array(text.utf8))
    }

    /// True if `path` names a directory.
    static func isDirectory(_ path: String) -> Bool {
        FileIO.status(path)?.kind == .directory
    }

    /// The names in a directory (not `.` and `..`), or nil if it cannot be read.
    static func list(_ path: String) -> [String]? { FileIO.list(path) }

    /// Every file under `path`, as paths relative to it, descending into subdirectories.
    static func walk(_ path: String) -> [String] {
        var result: [String] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let directory = relative.isEmpty ? path : Path.join(path, relative)
            for name in list(directory) ?? [] {
                let entry = relative.isEmpty ? name : Path.join(relative, name)
                if isDirectory(Path.join(path, entry)) { pending.append(entry) } else { result.append(entry) }
            }
        }
        return result
    }

    /// `mkdir -p`.
    static func createDirectories(_ path: String) { FileIO.createDirectories(path) }

    /// A monotonic clock in nanoseconds.
    static func now() -> UInt64 { CurrentProcess.monotonicClock() }

    /// The cores this process may keep busy (its affinity mask and CPU quota counted).
    static var processorCount: Int { UsableCores.count }

    /// True if standard error is a terminal (progress lines are shown only there).
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// The signals that interrupt a batch, each with the exit status a shell expects after it
    /// (128 + the signal's number).
    static let interruptions: [(signal: Int32, status: Int32)] = [(SIGINT, 130), (SIGTERM, 143)]

    /// Stops the default action of `signal` (ending the process), so that a handler of the
    /// program's own can run instead.
    static func ignore(signal number: Int32) {
        signal(number, SIG_IGN)
    }

    /// Ends the process with `status`.
    static func exit(_ status: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(status)
        #elseif canImport(Musl)
        Musl.exit(status)
        #else
        Darwin.exit(status)
        #endif
    }
}

/// Slash-separated path arithmetic.
enum Path {
    static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    static func directory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The extension after the last dot of the last component, or "".
    static func fileExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    static func deletingExtension(_ path: String) -> String {
        let ext = fileExtension(path)
        return ext.isEmpty ? path : String(path.dropLast(ext.count + 1))
    }
}

/// `value` with `decimals` digits after the point, rounded half away from zero.
func fixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0 ..< decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e18 else { return value < 0 ? "-inf" : "inf" }
    let units = Int(scaled)
    let whole = units / Int(scale), fraction = units % Int(scale)
    var digits = String(fraction)
    while digits.count < decimals { digits = "0" + digits }
    return (value < 0 && units != 0 ? "-" : "") + String(whole) + (decimals > 0 ? "." + digits : "")
}
