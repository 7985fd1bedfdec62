import PareCore

/// The pixel layout a `PNGDecoder` hands out.
public enum PNGOutput: Sendable, Equatable {
    /// The image's own channels and depth: gray, gray+alpha, RGB or RGBA at 8 or 16 bits.
    /// Palette images become RGB (RGBA with tRNS), bit depths below 8 are scaled to 8 by bit
    /// replication, and a tRNS colour key adds an alpha channel.
    case native
    /// Always 8-bit RGBA; 16-bit samples are rounded to the nearest 8-bit value.
    case rgba8
}

/// Limits and choices for decoding. Every limit has a default that any real image fits and
/// that keeps a hostile file from costing more than a few hundred megabytes or seconds; the
/// README's "Limits" table lists them with the rest of Pare's. The size limits are checked on
/// IHDR, before anything is sized from it, and throw `PNGError.limitExceeded` naming the limit.
/// Memory itself (rows, zlib's state, metadata) is bounded by the `MemoryLedger`'s limit.
public struct PNGOptions: Sendable, Equatable {
    /// Largest accepted IHDR width. Default: 65,536, "width".
    public var maxWidth: Int = 1 << 16
    /// Largest accepted IHDR height. Default: 65,536, "height".
    public var maxHeight: Int = 1 << 16
    /// Largest accepted width × height. Default: 2^28 (268,435,456), "pixel count".
    public var maxPixels: Int = 1 << 28
    /// Longest accepted chunk. PNG itself caps lengths at 2^31−1 (§5.3); values above that
    /// are clamped to it. Default: 2^31−1. Throws `PNGError.chunkTooLong`.
    public var maxChunkLength: Int = Int(Int32.max)
    /// How many decompressed bytes may follow the last scanline before the decoder gives up
    /// (a zip bomb hides gigabytes of zeros after a tiny image). Default: 1 MiB, "decompressed
    /// bytes after the last scanline".
    public var maxDecompressedExcess: Int = 1 << 20
    /// Most bytes of metadata (eXIf, iCCP, texts with their entries) kept, and most bytes
    /// the zTXt and iTXt chunks of a file may inflate to together, dropped ones included.
    /// Chunks past the budget are skipped and reported in `PNGMetadata.skipped`, not thrown.
    /// Default: 8 MiB.
    public var maxMetadataBytes: Int = 8 << 20
    /// Most dropped ancillary chunks listed in `PNGMetadata.skipped`; later ones are only
    /// counted in `unlistedSkips`. Default: 1,000.
    public var maxSkipReports: Int = 1000
    /// Check the Adler-32 that ends the image data's zlib stream (RFC 1950 §2.2). Default:
    /// true, so that a stream zlib itself would refuse is refused. The CRC-32 of every IDAT
    /// chunk (always checked) already covers every compressed byte, so damage is found
    /// either way; false saves zlib computing a second checksum over every inflated byte,
    /// as browsers' PNG decoders do, and is what `ThumbnailOptions` sets. A wrong Adler-32
    /// then goes unreported. Chunks with their own zlib streams (iCCP, zTXt, iTXt) are
    /// always checked.
    public var verifiesZlibChecksum: Bool = true
    /// Refuse damaged image data (PNG 3rd ed. §13.1): the file cut off inside or right after
    /// the IDAT run, a zlib data error, a bad IDAT CRC. Default: true, so that the decoder used alone rejects
    /// what libpng rejects (the conformance corpus's corrupt files) with the `PNGError`
    /// naming the damage. False keeps the scanlines decoded before the damage, makes the
    /// rest zero (transparent with alpha, black without; see `PNGWarning` for Adam7) and records a `PNGWarning` in
    /// `PNGDecoder.warnings`; `ThumbnailOptions` sets false, as for JPEG. Damage before the
    /// first scanline, errors before the first IDAT (signature, IHDR, PLTE, chunk order), an
    /// IDAT run that ends whole before the last scanline, a bad filter type or palette index
    /// throw either way (see `PNGError.isImageDataDamage`).
    public var strict: Bool = true
    /// The pixel layout handed out. Default: `.native`.
    public var output: PNGOutput = .native

    public init() {}
}

extension PNGOptions: DecoderOptions {}
