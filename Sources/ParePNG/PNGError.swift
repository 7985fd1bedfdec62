import PareCore
import CZlib

/// Everything that can go wrong reading a PNG, each case with the byte offset where it was
/// found.
public enum PNGError: Error, Equatable, Sendable {
    case core(CoreError)
}

/// The version of the zlib library ParePNG was linked with.
public var zlibVersionString: String { String(cString: zlibVersion()) }
