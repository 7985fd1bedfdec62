#if canImport(Glibc)
import Glibc
#endif

/// Runs the `pare` executable that `swift test` builds beside the test bundle, for tests of
/// what the command line prints and returns.
public enum CommandRunner {
    public struct Outcome: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// The `pare` executable of this build: the first `pare` file in the test bundle's folder
    /// or one of its parents (SwiftPM puts products and test bundles in one folder).
    public static var pare: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        var folder = String(decoding: buffer[0 ..< n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for _ in 0 ..< 4 {
            guard let slash = folder.lastIndex(of: "/") else { return nil }
            folder = String(folder[..<slash])
            let candidate = folder + "/pare"
            if access(candidate, X_OK) == 0 && !FileSystem.isDirectory(candidate) { return candidate }
        }
        return nil
    }

    /// An installed tool (an oracle such as cjpeg), found in the usual bin folders, or nil.
    public static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/usr/local/bin/", "/opt/homebrew/bin/"].map { $0 + name }.first { access($0, X_OK) == 0 }
    }

    /// Runs `program` with `arguments`, its output streams going to temporary files that are
    /// read back once it exits.
    public static func run(_ program: String, _ arguments: [String]) -> Outcome? {
        let folder = temporaryFolder()
        defer { removeFolder(folder) }
        let outPath = folder + "/stdout", errPath = folder + "/stderr"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        guard posix_spawn(&pid, program, &actions, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return nil }
        }
        // WIFEXITED and WEXITSTATUS, spelled out (the C macros do not import).
        let exitStatus: Int32 = status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
        return Outcome(status: exitStatus,
                       standardOutput: String(decoding: FileSystem.read(outPath) ?? [], as: UTF8.self),
                       standardError: String(decoding: FileSystem.read(errPath) ?? [], as: UTF8.self))
    }

    /// A new empty folder under /tmp.
    public static func temporaryFolder() -> String {
        var template = Array("/tmp/pare-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { return "/tmp" }
        return String(cString: made)
    }

    /// Removes a folder made by `temporaryFolder` and the files in it.
    public static func removeFolder(_ folder: String) {
        guard folder != "/tmp" else { return }
        for name in FileSystem.list(folder) { unlink(folder + "/" + name) }
        rmdir(folder)
    }

    /// Writes `bytes` to `path`; false on failure.
    @discardableResult
    public static func write(_ bytes: [UInt8], to path: String) -> Bool {
        guard let file = fopen(path, "wb") else { return false }
        defer { fclose(file) }
        return fwrite(bytes, 1, bytes.count, file) == bytes.count
    }
}
