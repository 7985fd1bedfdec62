@_spi(CommandLine) import Pare

/// Writes an output file so that no half-written file is ever left under the requested
/// name: a regular file (or a new one) is written under a hidden temporary name beside it
/// and renamed into place. Anything else that exists there (`/dev/null`, a pipe) is written
/// in place, since renaming over it would replace the device itself. `temporaryName` is
/// told the temporary path before writing, so an interrupted batch can remove it.
func writeOutput(_ bytes: [UInt8], to path: String, temporaryName: (String?) -> Void = { _ in }) -> Bool {
    if let existing = FileIO.status(path), existing.kind != .regular {
        let fd = FileIO.openForWriting(path, create: false)
        guard fd >= 0 else { return false }
        defer { FileIO.close(fd) }
        return POSIX.write(fd, bytes)
    }
    return FileIO.writeAtomically(bytes, to: path, temporaryName: temporaryLeaf(for: path), temporary: temporaryName)
}

/// An output file written as it is produced, through a 256 KiB buffer, with the same
/// guarantee as `writeOutput`: a regular file is written under a temporary name and renamed
/// into place by `commit`; `abandon` removes it. A device or pipe is written in place.
final class OutputFile {
    let path: String
    private var descriptor: Int32 = -1
    private var temporary: String?
    private var buffer: [UInt8] = []
    private var failed = false
    private static let bufferSize = 256 * 1024

    init(path: String) {
        self.path = path
    }

    func open() -> Bool {
        if let existing = FileIO.status(path), existing.kind != .regular {
            descriptor = FileIO.openForWriting(path, create: false)
        } else {
            let name = temporaryPath(for: path)
            temporary = name
            descriptor = FileIO.openForWriting(name, create: true)
        }
        buffer.reserveCapacity(Self.bufferSize)
        return descriptor >= 0
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        if buffer.count + bytes.count > Self.bufferSize { flush() }
        if bytes.count >= Self.bufferSize {
            if !POSIX.write(descriptor, bytes) { failed = true }
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    func fail() { failed = true }

    private func flush() {
        if !buffer.isEmpty && !POSIX.write(descriptor, buffer) { failed = true }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Finishes the file; false (and nothing left behind) if any step failed.
    func commit() -> Bool {
        guard descriptor >= 0 else { return false }
        flush()
        let closed = FileIO.close(descriptor)
        descriptor = -1
        guard closed, !failed else {
            if let temporary { FileIO.remove(temporary) }
            return false
        }
        if let temporary, !FileIO.rename(temporary, to: path) {
            FileIO.remove(temporary)
            return false
        }
        return true
    }

    func abandon() {
        if descriptor >= 0 { FileIO.close(descriptor) }
        descriptor = -1
        if let temporary { FileIO.remove(temporary) }
    }
}

/// The hidden name an output is written under before it is renamed into place.
func temporaryPath(for path: String) -> String {
    let directory = Path.directory(path)
    return (directory.isEmpty ? "" : directory + "/") + temporaryLeaf(for: path)
}

/// The temporary file's name within its directory.
func temporaryLeaf(for path: String) -> String {
    "." + Path.lastComponent(path) + ".partial-\(CurrentProcess.id)"
}
