/// The byte order of multi-byte integers: TIFF says which in its header ("II" or "MM");
/// JPEG and PNG are always big-endian.
public enum ByteOrder: Sendable, Equatable {
    case bigEndian
    case littleEndian
}

/// A bounds-checked cursor over bytes already in memory (a marker segment, a chunk, a TIFF
/// block). Every read either succeeds or throws `CoreError.outOfBounds` naming the absolute
/// offset in the original input, which is `baseOffset + position`.
public struct ByteReader {
    public let bytes: [UInt8]
    /// Where `bytes[0]` sits in the original input, so that errors name file offsets.
    public let baseOffset: Int
    /// The next byte to read, an index into `bytes`.
    public private(set) var position: Int = 0

    public init(_ bytes: [UInt8], baseOffset: Int = 0) {
        self.bytes = bytes
        self.baseOffset = baseOffset
    }

    public var count: Int { bytes.count }
    public var remaining: Int { bytes.count - position }
    /// The absolute offset in the original input of the next byte to read.
    public var absolutePosition: Int { baseOffset + position }

    /// Checks that `count` bytes starting at `index` are inside the buffer.
    public func require(_ count: Int, at index: Int) throws(CoreError) {
        guard count >= 0, index >= 0, index <= bytes.count, count <= bytes.count - index else {
            throw .outOfBounds(offset: baseOffset + index, needed: count,
                               available: max(0, bytes.count - max(index, 0)))
        }
    }

    public mutating func seek(to index: Int) throws(CoreError) {
        try require(0, at: index)
        position = index
    }

    public mutating func skip(_ count: Int) throws(CoreError) {
        try require(count, at: position)
        position += count
    }

    public mutating func readUInt8() throws(CoreError) -> UInt8 {
        try require(1, at: position)
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func readUInt16(_ order: ByteOrder = .bigEndian) throws(CoreError) -> UInt16 {
        let value = try peekUInt16(at: position, order)
        position += 2
        return value
    }

    public mutating func readUInt32(_ order: ByteOrder = .bigEndian) throws(CoreError) -> UInt32 {
        let value = try peekUInt32(at: position, order)
        position += 4
        return value
    }

    /// The next `count` bytes, as a copy.
    public mutating func readBytes(_ count: Int) throws(CoreError) -> [UInt8] {
        try require(count, at: position)
        defer { position += count }
        return Array(bytes[position ..< position + count])
    }

    /// Reads at an index without moving the cursor (TIFF offsets point anywhere).
    public func peekUInt8(at index: Int) throws(CoreError) -> UInt8 {
        try require(1, at: index)
        return bytes[index]
    }

    public func peekUInt16(at index: Int, _ order: ByteOrder = .bigEndian) throws(CoreError) -> UInt16 {
        try require(2, at: index)
        let a = UInt16(bytes[index]), b = UInt16(bytes[index + 1])
        return order == .bigEndian ? a << 8 | b : b << 8 | a
    }

    public func peekUInt32(at index: Int, _ order: ByteOrder = .bigEndian) throws(CoreError) -> UInt32 {
        try require(4, at: index)
        var value: UInt32 = 0
        for i in 0 ..< 4 {
            let byte = UInt32(bytes[order == .bigEndian ? index + i : index + 3 - i])
            value = value << 8 | byte
        }
        return value
    }

    /// A copy of `count` bytes at `index`, without moving the cursor.
    public func peekBytes(at index: Int, count: Int) throws(CoreError) -> [UInt8] {
        try require(count, at: index)
        return Array(bytes[index ..< index + count])
    }
}
