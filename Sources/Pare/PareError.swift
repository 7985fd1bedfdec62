import PareCore
import PareJPEG
import PareEXIF
import ParePNG
import PareWebP
import PareGIF
import PareTIFF

/// Why an input could not be read or thumbnailed. The description is one line: the stage
/// ("JPEG", "PNG", "EXIF", or "Pare" for the pipeline itself), the reason, then "at byte N"
/// where a place in the file applies, and the CLI prints it as is after the file's name.
///
/// Switch on `kind` to decide what to do whatever the codec (retry with more memory, tell
/// the uploader the file is damaged, report a bug in the call); switch on the cases for the
/// details. A memory-limit refusal and a cancellation always arrive as `.memoryLimit` and
/// `.cancelled`, never wrapped inside a codec's error.
public enum PareError: Error, Sendable, Equatable {
    /// The JPEG decoder's error (never its `.core(.limitExceeded)` or `.core(.cancelled)`).
    case jpeg(JPEGError)
    /// The PNG decoder's error (never its `.core(.limitExceeded)` or `.core(.cancelled)`).
    case png(PNGError)
    /// The EXIF/TIFF reader's error.
    case exif(EXIFError)
    /// The WebP decoder's error (never its `.core(.limitExceeded)` or `.core(.cancelled)`).
    case webp(WebPError)
    /// The GIF decoder's error (never its `.core(.limitExceeded)` or `.core(.cancelled)`).
    case gif(GIFError)
    /// The TIFF image decoder's error (never its `.core(.limitExceeded)` or `.core(.cancelled)`).
    case tiff(TIFFError)
    /// A failure of the shared machinery outside any codec (reading the input, sizes).
    case core(CoreError)
    /// Writing a JPEG failed (an option out of range, a refused buffer).
    case jpegEncoding(JPEGEncodingError)
    /// The job's `MemoryLedger` refused `requested` more bytes with `inUse` held: the job
    /// needs more than `limit` (`ThumbnailOptions.memoryLimit`, or the caller's ledger's).
    case memoryLimit(requested: Int, inUse: Int, limit: Int)
    /// The task was cancelled (or the caller's `CancellationCheck` said stop); the job gave
    /// back everything it held.
    case cancelled
    /// The first bytes are not those of a format Pare reads.
    case unknownFormat
    /// The format is recognised but Pare cannot make pixels from it (e.g. TIFF image data
    /// with no embedded JPEG).
    case unsupported(String)
    /// The call itself is wrong (an option out of range); the input was not looked at.
    case invalidArgument(String)
    /// The file could not be opened or read.
    case io(path: String, reason: String)
    /// The job needs more memory than the whole budget of its `ThumbnailPipeline`, so it
    /// could never run; `needed` is what it asked for when it gave up.
    case memoryBudgetExceeded(needed: Int, budget: Int)

    /// Wraps a JPEG error, lifting out the ledger's refusal and cancellation.
    public init(_ error: JPEGError) {
        if case let .core(core) = error, let lifted = Self.lifted(core) { self = lifted } else { self = .jpeg(error) }
    }

    /// Wraps a PNG error, lifting out the ledger's refusal and cancellation.
    public init(_ error: PNGError) {
        if case let .core(core) = error, let lifted = Self.lifted(core) { self = lifted } else { self = .png(error) }
    }

    /// Wraps an EXIF error, lifting out the ledger's refusal and cancellation.
    public init(_ error: EXIFError) {
        if case let .core(core) = error, let lifted = Self.lifted(core) { self = lifted } else { self = .exif(error) }
    }

    /// Wraps a WebP error, lifting out the ledger's refusal and cancellation.
    public init(_ error: WebPError) {
        if case let .core(core) = error, let lifted = Self.lifted(core) { self = lifted } else { self = .webp(error) }
    }

    /// Wraps a GIF error, lifting out the ledger's refusal and cancellation.
    public init(_ error: GIFError) {
        if case let .core(core) = error, let lifted = Self.lifted(core) { self = lifted } else { self = .gif(error) }
    }

    /// Wraps a TIFF image error, lifting out the ledger's refusal and cancellation.
    public init(_ error: TIFFError) {
        if case let .core(core) = error, let lifted = Self.lifted(core) { self = lifted } else { self = .tiff(error) }
    }

    /// Wraps a JPEG encoder's error, lifting out the ledger's refusal.
    public init(_ error: JPEGEncodingError) {
        if case let .core(core) = error, let lifted = Self.lifted(core) { self = lifted } else { self = .jpegEncoding(error) }
    }

    /// Wraps a PareCore error, lifting out the ledger's refusal and cancellation.
    public init(_ error: CoreError) {
        self = Self.lifted(error) ?? .core(error)
    }

    private static func lifted(_ error: CoreError) -> PareError? {
        switch error {
        case let .limitExceeded(requested, inUse, limit): return .memoryLimit(requested: requested, inUse: inUse, limit: limit)
        case .cancelled: return .cancelled
        case .outOfBounds, .sizeOverflow, .readFailed, .sinkStopped: return nil
        }
    }

    /// What sort of failure this is, the same question for every codec.
    public var kind: ErrorKind {
        switch self {
        case let .jpeg(error): return error.kind
        case let .png(error): return error.kind
        case let .exif(error): return error.kind
        case let .webp(error): return error.kind
        case let .gif(error): return error.kind
        case let .tiff(error): return error.kind
        case let .core(error): return error.kind
        case let .jpegEncoding(error): return error.kind
        case .memoryLimit, .memoryBudgetExceeded: return .memoryLimit
        case .cancelled: return .cancelled
        case .unknownFormat, .unsupported: return .unsupported
        case .invalidArgument: return .usage
        case .io: return .io
        }
    }
}

extension PareError: CustomStringConvertible {
    /// One line: stage, reason, "at byte N" where a place applies.
    public var description: String {
        switch self {
        case let .jpeg(error): return "\(error)"
        case let .png(error): return "\(error)"
        case let .exif(error): return "\(error)"
        case let .webp(error): return "\(error)"
        case let .gif(error): return "\(error)"
        case let .tiff(error): return "\(error)"
        case let .core(error): return "Pare: \(error)"
        case let .jpegEncoding(error): return "\(error)"
        case let .memoryLimit(requested, inUse, limit):
            return "Pare: \(CoreError.limitExceeded(requested: requested, inUse: inUse, limit: limit))"
        case .cancelled: return "Pare: cancelled"
        case .unknownFormat: return "Pare: not a format Pare reads (\(ImageFormat.readableNames)) at byte 0"
        case let .unsupported(what): return "Pare: unsupported: \(what)"
        case let .invalidArgument(what): return "Pare: invalid argument: \(what)"
        case let .io(path, reason): return "Pare: cannot read \(path): \(reason)"
        case let .memoryBudgetExceeded(needed, budget):
            return "Pare: the job needs more than \(needed) bytes, the pipeline's whole memory budget is \(budget)"
        }
    }
}
