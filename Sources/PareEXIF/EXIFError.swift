import PareCore

/// Everything that can go wrong reading EXIF/TIFF metadata, each case with the byte offset
/// where it was found.
public enum EXIFError: Error, Equatable, Sendable {
    case core(CoreError)
}
