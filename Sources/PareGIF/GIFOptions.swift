import PareCore

/// The pixel layout a `GIFDecoder` hands out.
public enum GIFOutput: Sendable, Equatable {
    /// 8-bit RGB when the first frame has no transparent index, 8-bit RGBA when it has one:
    /// the fewest bytes per pixel that hold the frame, so that a resampler filters three
    /// channels instead of four for the (many) opaque GIFs.
    case native
    /// Always 8-bit RGBA, alpha 255 where opaque.
    case rgba8
}

/// Limits and choices for decoding. Every limit has a default that any real image fits; the
/// size limits are checked on the logical screen and the first image descriptor, before
/// anything is sized from them, and throw `GIFError.limitExceeded` naming the limit. Memory
/// itself (the read windows, the LZW table, rows, an interlaced frame's indices) is counted
/// by the `MemoryLedger`.
public struct GIFOptions: Sendable, Equatable {
    /// Largest accepted canvas width (the logical screen, grown to hold the first frame).
    /// Default: 65,535 (GIF's own maximum), "width".
    public var maxWidth: Int = 65_535
    /// Largest accepted canvas height. Default: 65,535, "height".
    public var maxHeight: Int = 65_535
    /// Largest accepted width × height. Default: 2^28 (268,435,456), "pixel count".
    public var maxPixels: Int = 1 << 28
    /// Most bytes of comments and XMP kept, all together, each comment counting 16 bytes
    /// more than its text; later ones are dropped (and counted in
    /// `GIFInfo.droppedMetadataBlocks`). Default: 1 MiB.
    public var maxMetadataBytes: Int = 1 << 20
    /// Most blocks listed in `GIFInfo.blocks`; the walk goes on counting frames past it.
    /// Default: 100,000.
    public var maxListedBlocks: Int = 100_000
    /// Refuse a first frame whose image data is damaged (GIF89a §22, Appendix F): cut off,
    /// ended early, or holding an LZW code past the table. Default: true. False keeps the
    /// rows decoded before the damage, gives the rest the canvas's fill (what Pillow shows
    /// for a cut-off file it is told to load) and records the error in
    /// `GIFDecoder.warnings`; a thumbnailer sets false, as for PNG and JPEG. Errors in the
    /// file's structure before the first frame's data throw either way; damage after the
    /// first frame is only ever a warning, since it cannot change the first frame.
    public var strict: Bool = true
    /// Walk the whole file at `init` (skipping image data by its sub-block sizes) for the
    /// frame count, the block list and the extensions after the first frame. Default: true.
    /// False stops at the first frame's image descriptor: a thumbnailer that only shows the
    /// first frame then reads nothing past its data, and `GIFInfo.framesCounted` is false.
    public var walksAllBlocks: Bool = true
    /// The pixel layout handed out. Default: `.native`.
    public var output: GIFOutput = .native

    public init() {}
}

extension GIFOptions: DecoderOptions {}
