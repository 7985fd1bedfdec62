import PareCore

/// Limits and choices for decoding a WebP file. The size limits are checked on the headers,
/// before anything is sized from them, and throw `WebPError.limitExceeded` naming the limit;
/// memory itself is bounded by the `MemoryLedger`'s limit.
public struct WebPOptions: Sendable, Equatable {
    /// Largest accepted width (canvas or frame). WebP's own bitstreams stop at 16,383.
    /// Default: 16,383, "width".
    public var maxWidth: Int = 16383
    /// Largest accepted height. Default: 16,383, "height".
    public var maxHeight: Int = 16383
    /// Largest accepted width × height. Default: 2^28, "pixel count".
    public var maxPixels: Int = 1 << 28
    /// Most chunks listed in `WebPInfo.chunks` (and walked); a file with more is refused.
    /// Default: 10,000, "chunk count".
    public var maxChunks: Int = 10_000
    /// Most bytes of metadata (ICCP, EXIF, XMP) copied into `WebPInfo`; larger payloads are
    /// only located (`WebPChunk`), not copied. Default: 16 MiB.
    public var maxMetadataBytes: Int = 16 << 20
    /// Refuse damaged image data (a file cut off inside the image, unreadable alpha).
    /// Default: true. False keeps the rows decoded before the damage, fills the rest and
    /// records a `WebPWarning` in `WebPDecoder.warnings`.
    public var strict: Bool = true

    public init() {}
}

extension WebPOptions: DecoderOptions {}
