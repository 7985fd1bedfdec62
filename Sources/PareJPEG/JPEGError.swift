import PareCore

/// Everything that can go wrong reading a JPEG, each case with the byte offset where it was
/// found.
public enum JPEGError: Error, Equatable, Sendable {
    case core(CoreError)
}
