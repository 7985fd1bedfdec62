import Foundation

/// Reads a whole input file for the commands that need its bytes in memory.
func readInput(_ path: String) -> [UInt8]? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return [UInt8](data)
}

/// Writes an output file atomically (a temporary name, then a rename), so that no
/// half-written file is ever left under the requested name.
func writeOutput(_ bytes: [UInt8], to path: String) -> Bool {
    let url = URL(fileURLWithPath: path)
    do {
        try Data(bytes).write(to: url, options: .atomic)
        return true
    } catch {
        return false
    }
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
