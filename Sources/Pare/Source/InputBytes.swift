/// The bytes of one input, either in memory or in a file read on demand with `pread`, so a
/// large photo is never read whole: the decoders pull 64 KiB windows (counted by the
/// ledger) and jump to EXIF and MPF offsets directly.
///
/// `Sendable`: every backing is only read, and a file is read with `pread`, which keeps no
/// position, so several threads may read one input at once.
public struct InputBytes: ByteSource, Sendable {
    enum Backing: Sendable {
        case memory(MemoryByteSource)
        case borrowed(BorrowedBytes)
        case file(OpenFile)
    }

    /// Memory the caller lends (`init(unsafeBytes:)`). Unchecked: the caller promised that
    /// the bytes stay alive and unchanged while they are read, so sharing them between
    /// threads that only read is safe.
    // Sound: nothing writes the bytes while they are lent, so reads on any thread need no ordering.
    struct BorrowedBytes: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
    }

    let backing: Backing
    /// The input's length in bytes.
    public let count: Int

    /// The bytes of an array the caller already holds.
    public init(_ bytes: [UInt8]) {
        backing = .memory(MemoryByteSource(bytes))
        count = bytes.count
    }

    /// Bytes the caller holds elsewhere (a memory-mapped file, `Data.withUnsafeBytes`, a
    /// network buffer), read in place without a copy. The caller keeps them alive and
    /// unchanged for as long as this value or anything made from it (an `ImageSource`) is used.
    public init(unsafeBytes bytes: UnsafeRawBufferPointer) {
        backing = .borrowed(BorrowedBytes(bytes: bytes))
        count = bytes.count
    }

    /// Opens a file for reading. Fails with `PareError.io` if it cannot be opened or sized.
    public init(path: String) throws(PareError) {
        let file = try OpenFile(path: path)
        backing = .file(file)
        count = file.size
    }

    /// Copies up to `buffer.count` bytes at `offset` (fewer at the end of the input);
    /// `readFailed` when the file cannot be read.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(CoreError) -> Int {
        switch backing {
        case let .memory(source):
            return try source.read(into: buffer, at: offset)
        case let .borrowed(borrowed):
            let bytes = borrowed.bytes
            guard offset >= 0, offset < bytes.count, let base = bytes.baseAddress,
                  let destination = buffer.baseAddress else { return 0 }
            let n = min(buffer.count, bytes.count - offset)
            destination.copyMemory(from: base + offset, byteCount: n)
            return n
        case let .file(file):
            return try file.read(into: buffer, at: offset)
        }
    }
}
