/// How a decoder asks, between units of work, whether its job should stop.
///
/// The decoders call `isCancelled` once per MCU row (JPEG, every scan of a progressive
/// frame and its reconstruction) or per scanline batch (PNG) and, when it says yes, give
/// back their buffers and throw `CoreError.cancelled` inside their own error type. A closure
/// rather than a protocol, so that it costs nothing when absent and needs no existential
/// (Embedded Swift): `Pare` sets it to `Task.isCancelled` for its async calls, and a caller
/// with its own notion of cancelling (a deadline, a flag) passes its own closure.
public struct CancellationCheck: Sendable {
    @usableFromInline let test: (@Sendable () -> Bool)?

    /// A check that never cancels.
    public init() {
        test = nil
    }

    /// A check that asks `isCancelled`; it must be cheap, since it runs once per row batch.
    public init(_ isCancelled: @escaping @Sendable () -> Bool) {
        test = isCancelled
    }

    /// True when the job should stop now.
    @inlinable
    public var isCancelled: Bool {
        test?() ?? false
    }

    /// Throws `CoreError.cancelled` when the job should stop now.
    @inlinable
    public func check() throws(CoreError) {
        if isCancelled { throw .cancelled }
    }
}
