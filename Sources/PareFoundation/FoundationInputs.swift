import Foundation
import Pare

/// `Data` and `URL` conveniences, in a module of their own so that the codecs and `Pare`
/// itself stay free of Foundation (and usable in Embedded Swift and on small systems).
/// Depend on the `PareFoundation` product and `import PareFoundation` beside `import Pare`.
extension ImageSource {
    /// Opens a file URL; it is read on demand with `pread`, never whole. Any other URL is a
    /// caller's mistake (`PareError.invalidArgument`): Pare does no networking.
    public convenience init(url: URL) throws(PareError) {
        guard url.isFileURL else { throw .invalidArgument("not a file URL: \(url.absoluteString)") }
        try self.init(path: url.path)
    }

    /// Wraps the bytes of `data`. `Data` lends its storage only inside `withUnsafeBytes`, so
    /// the bytes are copied once into an array the source owns; to avoid that copy, decode
    /// inside `data.withUnsafeBytes` with `ImageSource(unsafeBytes:)`.
    public convenience init(data: Data) throws(PareError) {
        try self.init(bytes: [UInt8](data))
    }
}

extension Image {
    /// The pixels as `Data` (one copy), for APIs that take it.
    public var pixelData: Data { Data(pixels) }
}
