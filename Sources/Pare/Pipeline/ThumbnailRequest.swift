import PareCore
import PareJPEG

/// How urgently a thumbnail is wanted. Queued decodes start highest first; a job shared by
/// requests of several priorities runs at the highest of them. Priorities compare in the
/// order declared, lowest first.
public enum ThumbnailPriority: Sendable, Comparable, CaseIterable {
    /// Ahead of need (`ThumbnailPipeline.prefetch`): the rows just past the screen.
    case prefetch
    /// Wanted, but not on screen (an export, a share sheet).
    case normal
    /// On screen now.
    case visible
}

/// One thumbnail wanted from a `ThumbnailPipeline`: an input, the options and a priority.
public struct ThumbnailRequest: Sendable {
    public enum Input: Sendable {
        /// A file: its cache key is its identity (path, size, modification time, device and
        /// inode), read with `stat` when the request is made, so an edited file is a new key.
        case file(path: String)
        /// Bytes already in memory, under a key the caller guarantees names these bytes
        /// (a content hash, an asset identifier with its version).
        case bytes([UInt8], key: String)
    }

    public var input: Input
    public var options: ThumbnailOptions
    public var priority: ThumbnailPriority

    public init(path: String, options: ThumbnailOptions, priority: ThumbnailPriority = .normal) {
        self.input = .file(path: path)
        self.options = options
        self.priority = priority
    }

    public init(bytes: [UInt8], key: String, options: ThumbnailOptions, priority: ThumbnailPriority = .normal) {
        self.input = .bytes(bytes, key: key)
        self.options = options
        self.priority = priority
    }

    /// The key under which the result is coalesced and cached: the input's identity and
    /// every option that changes the pixels (not the limits, which only decide whether a
    /// thumbnail is made at all).
    public func cacheKey() throws(PareError) -> ThumbnailKey {
        let identity = try inputIdentity()
        return ThumbnailKey(identity + "|" + options.pixelKey, identity: identity)
    }

    /// The key of the picture's placeholder of `kind`: the input's identity, the kind and
    /// the orientation switch, the one option that changes a placeholder (its size, box
    /// and colour are its own).
    public func placeholderKey(_ kind: PlaceholderKind) throws(PareError) -> ThumbnailKey {
        placeholderKey(kind, identity: try inputIdentity())
    }

    func placeholderKey(_ kind: PlaceholderKind, identity: String) -> ThumbnailKey {
        let kindName: String
        switch kind {
        case .thumbHash: kindName = "thumbhash"
        case let .blurHash(x, y): kindName = "blurhash\(x)x\(y)"
        }
        return ThumbnailKey(identity + "|placeholder=" + kindName + "|orient=\(options.applyOrientation ? 1 : 0)",
                            identity: identity)
    }

    /// What names the input: its file identity, or the caller's key for bytes.
    private func inputIdentity() throws(PareError) -> String {
        switch input {
        case let .file(path): return "file:" + (try FileIdentity(path: path)).description
        case let .bytes(_, key): return "bytes:" + key
        }
    }

    /// The source to decode. A file is opened now; bytes are wrapped.
    func makeSource() throws(PareError) -> ImageSource {
        switch input {
        case let .file(path): return try ImageSource(path: path)
        case let .bytes(bytes, _): return try ImageSource(bytes: bytes)
        }
    }
}

/// A request's cache and coalescing key, as text: stable across runs and processes, so the
/// disk cache can store it in each entry and check it on every read.
public struct ThumbnailKey: Hashable, Sendable, CustomStringConvertible {
    public let description: String
    /// The part of the key that names the input (the whole text when that is not known, as
    /// for a key read back from the disk cache): what a thumbnail's placeholder is keyed by.
    /// Not compared: the description says everything.
    let identity: String

    public init(_ text: String) {
        description = text
        identity = text
    }

    init(_ text: String, identity: String) {
        description = text
        self.identity = identity
    }

    public static func == (a: ThumbnailKey, b: ThumbnailKey) -> Bool { a.description == b.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// FNV-1a over the key's UTF-8 (64 bits): the disk cache's file name. Collisions are
    /// harmless, since an entry stores its whole key and a read compares it.
    public var hash64: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in description.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

/// What names one version of a file: the path it was asked by, and what `stat` says of it.
/// A rewrite changes the size or the modification time (nanoseconds where the file system
/// keeps them); a replacement by rename changes the inode. Any change makes a new key.
public struct FileIdentity: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var size: Int
    public var modificationSeconds: Int
    public var modificationNanoseconds: Int
    public var device: UInt64
    public var inode: UInt64

    public init(path: String) throws(PareError) {
        guard let info = FileIO.status(path) else { throw .io(path: path, reason: FileIO.lastError) }
        guard info.kind == .regular else { throw .io(path: path, reason: "not a regular file") }
        self.path = FileIdentity.absolute(path)
        size = info.size
        modificationSeconds = info.modifiedSeconds
        modificationNanoseconds = info.modifiedNanoseconds
        device = info.device
        inode = info.inode
    }

    public var description: String {
        "\(path)|size=\(size)|mtime=\(modificationSeconds).\(modificationNanoseconds)|dev=\(device)|ino=\(inode)"
    }

    /// `path` made absolute against the working directory (not resolved: two paths to one
    /// file through links are two keys, which costs a decode, never a wrong thumbnail).
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let directory = FileIO.currentDirectory() else { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }
}

extension ThumbnailOptions {
    /// FNV-1a (64 bits) of a profile's bytes, in hex: two profiles are one key only when
    /// their bytes are, whatever their descriptions say.
    static func fingerprint(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return String(hash, radix: 16)
    }

    /// Every option that changes the pixels, as text for the cache key.
    var pixelKey: String {
        let filterName: String
        switch filter {
        case .lanczos3: filterName = "lanczos3"
        case .triangle: filterName = "triangle"
        case .area: filterName = "area"
        }
        var key = "size=\(maxPixelSize)|embedded=\(embedded.rawValue)|orient=\(applyOrientation ? 1 : 0)|filter=\(filterName)"
            + "|png=\(png.output)|strict=\(jpeg.strict ? 1 : 0)|exact=\(jpeg.maxExactCoefficientBytes)|preview=\(jpeg.progressiveFidelity == .preview ? 1 : 0)|colour=\(colour)|gainMap=\(gainMap.rawValue)"
        // `strict` sets both; a PNG setting of its own is named, leaving the usual keys as they were.
        if png.strict != jpeg.strict { key += "|pngStrict=\(png.strict ? 1 : 0)" }
        if webp.strict != jpeg.strict { key += "|webpStrict=\(webp.strict ? 1 : 0)" }
        if gif.strict != jpeg.strict { key += "|gifStrict=\(gif.strict ? 1 : 0)" }
        if tiff.strict != jpeg.strict { key += "|tiffStrict=\(tiff.strict ? 1 : 0)" }
        if let forcedJPEGScale { key += "|scale=\(forcedJPEGScale.rawValue)" }
        if let cmykProfile { key += "|cmyk=\(Self.fingerprint(cmykProfile.bytes))" }
        // The shape's options are named only when set, leaving the usual keys as they were.
        if let box { key += "|box=\(box.width ?? 0)x\(box.height ?? 0)" }
        if fit != .inside { key += "|fit=\(fit.rawValue)" }
        if crop != .centre { key += "|crop=\(crop.rawValue)" }
        if enlarge { key += "|enlarge=1" }
        if background != .white { key += "|background=\(background.hex)" }
        return key
    }
}
