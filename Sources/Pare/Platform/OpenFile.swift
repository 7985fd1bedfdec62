#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PareCore

/// An open file descriptor, closed when the last reference goes. Immutable, and read only
/// through `pread`, so it may be shared between threads.
final class OpenFile: Sendable {
    let descriptor: Int32
    let size: Int

    init(path: String) throws(PareError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .io(path: path, reason: FileIO.lastError) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .io(path: path, reason: "not a regular file")
        }
        descriptor = fd
        size = Int(info.st_size)
    }

    deinit {
        close(descriptor)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(CoreError) -> Int {
        guard offset >= 0, offset < size, let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        var done = 0
        while done < buffer.count {
            let n = pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw .readFailed(offset: offset + done)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }
}
