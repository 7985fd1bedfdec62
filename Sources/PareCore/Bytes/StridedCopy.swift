/// Moves `count` pieces of `bytes` bytes each (1 to 8), `sourceStep` bytes apart in the
/// source and `targetStep` apart in the target: each piece in one load and one store of its
/// size (two for 3, 5, 6 and 7 bytes) rather than a call to copy a few bytes. The orientation
/// stage moves pixels this way, and JPEG's two-thread decode the rows of a transformed block.
@_spi(Codec) public enum StridedCopy {
    /// The caller guarantees that every piece lies inside both buffers: `source + k·sourceStep`
    /// and `target + k·targetStep`, `bytes` long, for k < count.
    @inlinable @inline(__always)
    public static func copy(_ count: Int, bytes: Int, from source: UnsafeRawPointer, step sourceStep: Int,
                            to target: UnsafeMutableRawPointer, step targetStep: Int) {
        // SAFETY: the caller's bound above, for every k < count.
        @inline(__always) func pieces<A: FixedWidthInteger>(_: A.Type) {
            var from = source, to = target
            for _ in 0 ..< count {
                to.storeBytes(of: from.loadUnaligned(as: A.self), as: A.self)
                from += sourceStep
                to += targetStep
            }
        }
        @inline(__always) func pieces<A: FixedWidthInteger, B: FixedWidthInteger>(_: A.Type, then _: B.Type) {
            let second = MemoryLayout<A>.size
            var from = source, to = target
            for _ in 0 ..< count {
                to.storeBytes(of: from.loadUnaligned(as: A.self), as: A.self)
                to.storeBytes(of: from.loadUnaligned(fromByteOffset: second, as: B.self), toByteOffset: second, as: B.self)
                from += sourceStep
                to += targetStep
            }
        }
        switch bytes {
        case 1: pieces(UInt8.self)
        case 2: pieces(UInt16.self)
        case 3: pieces(UInt16.self, then: UInt8.self)
        case 4: pieces(UInt32.self)
        case 6: pieces(UInt32.self, then: UInt16.self)
        case 8: pieces(UInt64.self)
        default:
            var from = source, to = target
            for _ in 0 ..< count {
                to.copyMemory(from: from, byteCount: bytes)
                from += sourceStep
                to += targetStep
            }
        }
    }
}
