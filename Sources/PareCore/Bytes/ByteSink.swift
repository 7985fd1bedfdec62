/// A consumer of encoded bytes: a file being written, a socket, an array. Encoders write
/// into it through a generic parameter (`some ByteSink`), never an existential, and hand it
/// back when they finish. Bytes are valid only during the call. A sink that can fail (a full
/// disk) remembers the failure itself; the encoder's output is complete or it is not.
public protocol ByteSink {
    mutating func write(_ bytes: UnsafeRawBufferPointer)
}

/// Collects the bytes in memory: the one-call encodes and tests.
public struct ByteArraySink: ByteSink {
    public var bytes: [UInt8] = []

    public init() {}

    public mutating func write(_ bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes)
    }
}

/// Counts the bytes and drops them: sizing an output, timing an encode.
public struct ByteCountingSink: ByteSink {
    public var count = 0

    public init() {}

    public mutating func write(_ bytes: UnsafeRawBufferPointer) {
        count += bytes.count
    }
}
