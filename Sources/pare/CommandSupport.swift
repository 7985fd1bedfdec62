import Foundation

/// Reads a whole input file for the commands that need its bytes in memory.
func readInput(_ path: String) -> [UInt8]? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return [UInt8](data)
}

/// Writes an output file so that no half-written file is ever left under the requested
/// name: a regular file (or a new one) is written under a hidden temporary name beside it
/// and renamed into place. Anything else that exists there (`/dev/null`, a pipe) is written
/// in place, since renaming over it would replace the device itself. `temporaryName` is
/// told the temporary path before writing, so an interrupted batch can remove it.
func writeOutput(_ bytes: [UInt8], to path: String, temporaryName: (String?) -> Void = { _ in }) -> Bool {
    var info = stat()
    if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
        guard let handle = FileHandle(forWritingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data(bytes))) != nil
    }
    let directory = (path as NSString).deletingLastPathComponent
    let temporary = (directory.isEmpty ? "" : directory + "/") + "." + (path as NSString).lastPathComponent
        + ".partial-\(getpid())"
    temporaryName(temporary)
    defer { temporaryName(nil) }
    guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else { return false }
    guard rename(temporary, path) == 0 else {
        unlink(temporary)
        return false
    }
    return true
}

/// Reports a bad input: one line on stderr naming the file and what was wrong (the error's
/// description names the stage and byte offset). Returns exit status 1.
func reportInputError(_ path: String, _ error: some Error) -> Int32 {
    printError("pare: \(path): \(error)")
    return 1
}

/// Reports a usage error and returns exit status 2.
func usageError(_ message: String) -> Int32 {
    printError("pare: \(message)")
    return 2
}
