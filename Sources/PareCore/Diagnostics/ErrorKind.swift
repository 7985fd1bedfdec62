/// What sort of failure an error is, asked the same way of every codec's error
/// (`CoreError.kind`, `JPEGError.kind`, `PNGError.kind`, `EXIFError.kind`, `PareError.kind`),
/// so that a caller can decide what to do without knowing the format.
public enum ErrorKind: Sendable, Equatable, CaseIterable {
    /// The job's `MemoryLedger` refused an allocation: more memory might succeed.
    case memoryLimit
    /// A size or count in the input crossed one of the decoder's limits (pixels, scans,
    /// chunk length…): the input is legal but larger than allowed.
    case limit
    /// The input breaks its format's rules or ends early (or `strict` refused a repair).
    case damaged
    /// The input is valid but uses something Pare does not implement.
    case unsupported
    /// The input could not be read (open, `pread`).
    case io
    /// The caller's request itself is wrong (an option out of range, an image the encoder
    /// cannot write).
    case usage
    /// The job was cancelled.
    case cancelled
}

extension CoreError {
    /// The sort of failure: the ledger's refusal is `memoryLimit`, a failed read `io`, an
    /// end of data `damaged`, a size overflow `limit` (only absurd sizes overflow).
    public var kind: ErrorKind {
        switch self {
        case .outOfBounds: return .damaged
        case .limitExceeded: return .memoryLimit
        case .sizeOverflow: return .limit
        case .readFailed: return .io
        case .cancelled: return .cancelled
        // The sink refused what it was given: an encoder that cannot write the image.
        case .sinkStopped: return .usage
        }
    }
}
