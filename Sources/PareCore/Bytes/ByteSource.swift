/// Random access to an input's bytes without holding all of them: a file read with
/// `pread`, or an array already in memory. Decoders are generic over it (never `any`), so
/// they read a file through a small window and still reach EXIF and MPF offsets anywhere.
public protocol ByteSource {
    /// The input's length in bytes.
    var count: Int { get }
    /// Copies up to `buffer.count` bytes starting at `offset` into `buffer` and returns how
    /// many it copied: fewer only at the end of the input, zero past it.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(CoreError) -> Int
}

extension ByteSource {
    /// Exactly `count` bytes at `offset`, or `outOfBounds`.
    public func bytes(at offset: Int, count: Int) throws(CoreError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= self.count, count <= self.count - offset else {
            throw .outOfBounds(offset: offset, needed: count, available: max(0, self.count - max(offset, 0)))
        }
        var result = [UInt8](repeating: 0, count: count)
        var copied = 0
        while copied < count {
            // withUnsafeMutableBytes rethrows untyped errors, so the typed one travels in a Result.
            let n = try result.withUnsafeMutableBytes { raw in
                Result { () throws(CoreError) -> Int in
                    try read(into: UnsafeMutableRawBufferPointer(rebasing: raw[copied...]), at: offset + copied)
                }
            }.get()
            if n <= 0 { throw .outOfBounds(offset: offset + copied, needed: count - copied, available: 0) }
            copied += n
        }
        return result
    }
}

/// An input held in memory. Its bytes are the caller's, so the ledger does not count them.
public struct MemoryByteSource: ByteSource, Sendable {
    public let storage: [UInt8]

    public init(_ bytes: [UInt8]) {
        storage = bytes
    }

    public var count: Int { storage.count }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(CoreError) -> Int {
        guard offset >= 0, offset < storage.count else { return 0 }
        let n = min(buffer.count, storage.count - offset)
        guard n > 0, let destination = buffer.baseAddress else { return 0 }
        storage.withUnsafeBytes { source in
            destination.copyMemory(from: source.baseAddress! + offset, byteCount: n)
        }
        return n
    }
}
