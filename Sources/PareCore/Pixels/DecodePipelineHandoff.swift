/// What a decoder that splits its work between two threads needs from its caller
/// (`JPEGDecoder.decodePipelined`, `WebPDecoder.decodePipelined`): a second thread, and two
/// counting semaphores between it and the caller's. The codecs make no threads of their own
/// (they build for bare-metal cores); Pare's `DecodePipelineThreads` supplies these.
///
/// The work goes in rows (MCU rows, macroblock rows): the producer on the second thread
/// makes each into a slot of a ring, the consumer on the caller's thread finishes it and
/// feeds the sink.
@_spi(Pipeline) public protocol DecodePipelineHandoff {
    /// Runs `producer` on another thread while `consumer` runs on this one, and returns once
    /// both have returned.
    func run(producer: () -> Void, consumer: () -> Void)
    /// Rows the ring holds (at least 2).
    var slots: Int { get }
    /// The ring's slots, all free at the start: the producer takes one before each row, the
    /// consumer gives it back once it no longer reads the row's slot.
    func acquireSlot()
    func releaseSlot()
    /// The producer's rows: one `publishRow` per row made and one when it stops early, each
    /// waited for by one `awaitRow`, in order (a consumer that needs no more, as JPEG's split
    /// decode once it has finished, may leave the last ones).
    func publishRow()
    func awaitRow()
    /// Whether a published row waits for `awaitRow`, so that it would not block: for a
    /// consumer that has work of its own until the producer is done.
    var rowIsWaiting: Bool { get }
    /// The consumer's word to the producer, which asks for it between rows: make no more.
    /// Safe to call and read from both threads at any time.
    func requestStop()
    var stopRequested: Bool { get }
    /// Asked by the producer between rows: whether the consumer is the slower half (rows
    /// wait for it), so that the producer may take over some of its work for the next row
    /// (JPEG's inverse DCTs). A hint only: the rows are the same either way.
    var consumerIsBehind: Bool { get }
    /// Which thread does the work either could do, where the handoff decides it rather than
    /// the decoder: true for the producer, false for the consumer, nil to leave it to the
    /// decoder (its own rule, or `consumerIsBehind`). For tests that run both.
    var forcedShare: Bool? { get }
}

/// The handoff type of a decode that runs on one thread: it has no values, so a decoder
/// written over an optional handoff takes `nil` of this type for its serial path.
@_spi(Pipeline) public enum NoPipeline: DecodePipelineHandoff {
    public func run(producer: () -> Void, consumer: () -> Void) { switch self {} }
    public var slots: Int { switch self {} }
    public func acquireSlot() { switch self {} }
    public func releaseSlot() { switch self {} }
    public func publishRow() { switch self {} }
    public func awaitRow() { switch self {} }
    public var rowIsWaiting: Bool { switch self {} }
    public func requestStop() { switch self {} }
    public var stopRequested: Bool { switch self {} }
    public var consumerIsBehind: Bool { switch self {} }
    public var forcedShare: Bool? { switch self {} }
}
