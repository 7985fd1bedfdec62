import PareCore

/// Everything that can stop a JPEG encode. Encoding reads no file, so no case has an offset.
public enum JPEGEncodingError: Error, Equatable, Sendable {
    /// The ledger refused a buffer, or a size computation overflowed.
    case core(CoreError)
    /// An option outside its range (quality 1…100, a restart interval over 65,535…), named.
    case invalidOption(String)
    /// The image cannot be a baseline or progressive JPEG: a side of 0 or over 65,535
    /// (T.81 B.2.2), or a pixel format the encoder does not take.
    case unsupportedImage(String)
    /// `finish()` came before every row was given, or rows came out of order.
    case incompleteImage(rowsGiven: Int, height: Int)
}

extension JPEGEncodingError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .core(error): return "JPEG encoder: \(error.description)"
        case let .invalidOption(reason): return "JPEG encoder: invalid option: \(reason)"
        case let .unsupportedImage(reason): return "JPEG encoder: unsupported image: \(reason)"
        case let .incompleteImage(given, height): return "JPEG encoder: \(given) of \(height) rows given"
        }
    }
}

extension JPEGEncodingError {
    /// The sort of failure, as for every codec's error (see `ErrorKind`): everything but the
    /// ledger's refusal is the caller's request (an option, an image the encoder cannot write).
    public var kind: ErrorKind {
        switch self {
        case let .core(error): return error.kind
        case .invalidOption, .unsupportedImage, .incompleteImage: return .usage
        }
    }
}
