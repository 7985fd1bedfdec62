/// A zlib decompressor (RFC 1950/1951) that a decoder borrows from a module that links one.
///
/// TIFF's Deflate compression (TIFF Technical Note 2 / Adobe PageMaker 6.0 §"Deflate") is
/// one zlib stream per strip or tile. PareTIFF must stay Embedded-ready, and ParePNG, whose
/// encoder links the zlib C library, cannot be linked there, so PareTIFF takes the
/// decompressor as a value: a closure, as `CancellationCheck` is, so that no existential is
/// needed and nothing is linked when it is absent. ParePNG supplies `ZlibInflater.zlib`
/// (its inflater); a firmware without it leaves it out and Deflate-compressed files report
/// themselves unsupported.
public struct ZlibInflater: Sendable {
    /// How one call ended.
    public enum Outcome: Sendable, Equatable {
        /// The stream ended (and its checksum matched).
        case finished
        /// The output was filled before the stream ended: the rest is more than was asked for.
        case outputFull
        /// The input ran out before the stream ended: a stream cut short.
        case inputEnded
        /// The decompressor refused the data; the text is its reason.
        case damaged(MessageText)
        /// The ledger refused the decompressor's own memory.
        case refused(CoreError)
    }

    /// Inflates the whole stream in `input` into `output`, stopping when either is used up
    /// or the stream ends, counting its own state in the ledger; returns the bytes written.
    public typealias Function = @Sendable (_ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer,
                                           _ ledger: MemoryLedger) -> (produced: Int, outcome: Outcome)

    @usableFromInline let function: Function

    public init(_ function: @escaping Function) {
        self.function = function
    }

    /// Runs the decompressor over `input` into `output`.
    @inlinable
    public func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                        ledger: MemoryLedger) -> (produced: Int, outcome: Outcome) {
        function(input, output, ledger)
    }
}
