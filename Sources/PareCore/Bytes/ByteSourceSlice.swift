/// A window onto part of another source: an embedded thumbnail or an MPF preview is a JPEG
/// inside the file, and decoding it through a slice needs no copy of its bytes.
public struct ByteSourceSlice<Base: ByteSource>: ByteSource {
    public let base: Base
    /// Where the slice starts in `base`.
    public let offset: Int
    public let count: Int

    /// Fails with `outOfBounds` when the range does not lie inside `base`.
    public init(_ base: Base, offset: Int, count: Int) throws(CoreError) {
        guard offset >= 0, count >= 0, offset <= base.count, count <= base.count - offset else {
            throw .outOfBounds(offset: offset, needed: count, available: max(0, base.count - max(offset, 0)))
        }
        self.base = base
        self.offset = offset
        self.count = count
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at position: Int) throws(CoreError) -> Int {
        guard position >= 0, position < count else { return 0 }
        let n = min(buffer.count, count - position)
        return try base.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< n]), at: offset + position)
    }
}
