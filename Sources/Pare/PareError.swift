import PareCore
import PareJPEG
import PareEXIF
import ParePNG

/// Why an input could not be read or thumbnailed. The description is one line: the stage
/// ("JPEG", "PNG", "EXIF", or "Pare" for the pipeline itself), the reason, then "at byte N"
/// where a place in the file applies, and the CLI prints it as is after the file's name.
public enum PareError: Error, Sendable {
    case jpeg(JPEGError)
    case png(PNGError)
    case exif(EXIFError)
    case core(CoreError)
    /// Writing a JPEG failed (an option out of range, a refused buffer).
    case jpegEncoding(JPEGEncodingError)
    /// The first bytes are not those of a format Pare reads.
    case unknownFormat
    /// The format is recognised but Pare cannot make pixels from it (e.g. TIFF image data).
    case unsupported(String)
    /// The file could not be opened or read.
    case io(path: String, reason: String)
    /// The task that wanted the thumbnail was cancelled.
    case cancelled
    /// The job needs more memory than the whole budget of its `ThumbnailPipeline`, so it
    /// could never run; `needed` is what it asked for when it gave up.
    case memoryBudgetExceeded(needed: Int, budget: Int)
}

extension PareError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .jpeg(error): return "\(error)"
        case let .png(error): return "\(error)"
        case let .exif(error): return "\(error)"
        case let .core(error): return "Pare: \(error)"
        case let .jpegEncoding(error): return "\(error)"
        case .unknownFormat: return "Pare: not a JPEG, PNG or TIFF file at byte 0"
        case let .unsupported(what): return "Pare: unsupported: \(what)"
        case let .io(path, reason): return "Pare: cannot read \(path): \(reason)"
        case .cancelled: return "Pare: cancelled"
        case let .memoryBudgetExceeded(needed, budget):
            return "Pare: the job needs more than \(needed) bytes, the pipeline's whole memory budget is \(budget)"
        }
    }
}
