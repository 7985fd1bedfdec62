import PareCore

/// Limits and choices for decoding a TIFF. Every limit has a default that real images fit
/// and that keeps a hostile file from costing more than the ledger allows; each is checked
/// before anything is sized from the value it limits, and throws
/// `TIFFError.limitExceeded` naming it. Memory itself (one strip or one row of tiles, the
/// compressed bytes of one strip or tile, one output row) is bounded by the `MemoryLedger`.
public struct TIFFOptions: Sendable {
    /// Largest accepted ImageWidth. Default: 65,536, "width".
    public var maxWidth: Int = 1 << 16
    /// Largest accepted ImageLength. Default: 65,536, "height".
    public var maxHeight: Int = 1 << 16
    /// Largest accepted width × height. Default: 2^28, "pixel count".
    public var maxPixels: Int = 1 << 28
    /// Most strips or tiles (all planes together). Default: 2^20, "strip/tile count".
    public var maxSegments: Int = 1 << 20
    /// Most bytes one strip or tile may decompress to (and most compressed bytes read for
    /// one). Default: 256 MiB, "strip/tile bytes".
    public var maxSegmentBytes: Int = 256 << 20
    /// Largest tag value read (StripOffsets arrays, ICC profile, JPEGTables, ColorMap).
    /// Default: 16 MiB; a larger value is dropped with a warning.
    public var maxTagBytes: Int = 16 << 20
    /// Most IFDs walked when counting pages; `TIFFInfo.pageCount` stops there. Default: 4,096.
    public var maxPages: Int = 4096
    /// Most warnings kept. Default: 64.
    public var maxWarnings: Int = 64
    /// Refuse damaged image data: a file cut off inside the image data, a strip whose
    /// compressed data ends before its rows, data a decompressor refuses. Default: true. False
    /// hands out the rows decoded before the damage (the sink never sees the rest) and records
    /// a `TIFFError` in `TIFFDecoder.warnings`. Errors in the directory (tags, offsets of the
    /// first strip) throw either way.
    public var strict: Bool = true

    public init() {}
}

extension TIFFOptions: DecoderOptions {}
