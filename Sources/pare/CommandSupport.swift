@_spi(CommandLine) import Pare

/// Reads a whole input file for the commands that need its bytes in memory.
func readInput(_ path: String) -> [UInt8]? {
    POSIX.readFile(path)
}

/// Reports a bad input: one line on stderr naming the file and what was wrong (the error's
/// description names the stage and byte offset). Returns exit status 1.
func reportInputError(_ path: String, _ error: some Error) -> Int32 {
    printError("pare: \(path): \(error)")
    return 1
}

/// Finishes an output file: exit status 0, or 1 with a line on stderr if it could not be written.
func commitOutput(_ file: OutputFile) -> Int32 {
    guard file.commit() else {
        printError("pare: \(file.path): cannot write the file")
        return 1
    }
    return 0
}

/// Reports a usage error and returns exit status 2.
func usageError(_ message: String) -> Int32 {
    printError("pare: \(message)")
    return 2
}
