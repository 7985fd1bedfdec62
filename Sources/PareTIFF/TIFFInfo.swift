import PareCore

/// Where one strip or tile's bytes lie in the file (absolute offset and length as the
/// directory states them), for an explain byte map.
public struct TIFFSegment: Sendable, Equatable {
    /// StripOffsets or TileOffsets: where the segment's bytes start in the file.
    public let offset: Int
    /// StripByteCounts or TileByteCounts: how many bytes it has.
    public let count: Int
}

/// How an extra sample is alpha (TIFF 6.0 §18, ExtraSamples).
public enum TIFFAlpha: Sendable, Equatable {
    /// No alpha channel (or only extra samples of unspecified meaning).
    case none
    /// Colour already multiplied by alpha (ExtraSamples 1). `TIFFDecoder` hands it out
    /// divided back, as unassociated alpha, the form every `PixelFormat` with alpha has.
    case associated
    /// Colour independent of alpha (ExtraSamples 2): handed out as stored.
    case unassociated
}

/// What the first IFD says about the image (TIFF 6.0 §8), known once `TIFFDecoder.init`
/// returns. Enumerated fields keep the tag's number so that unknown values can be shown.
public struct TIFFInfo: Sendable {
    /// ImageWidth and ImageLength.
    public let width: Int
    public let height: Int
    /// BitsPerSample (the same for every sample: 1, 2, 4, 8 or 16).
    public let bitsPerSample: Int
    /// SamplesPerPixel: colour samples and extra samples (alpha) together.
    public let samplesPerPixel: Int
    /// PhotometricInterpretation: 0 min-is-white, 1 min-is-black, 2 RGB, 3 palette,
    /// 5 separated (CMYK), 6 YCbCr.
    public let photometric: Int
    /// Compression: 1 none, 2 CCITT RLE, 3 CCITT T.4, 4 CCITT T.6, 5 LZW, 7 JPEG,
    /// 8 or 32946 Deflate, 32773 PackBits.
    public let compression: Int
    /// PlanarConfiguration: 1 interleaved samples, 2 one plane per sample.
    public let planarConfiguration: Int
    /// Predictor: 1 none, 2 horizontal differencing.
    public let predictor: Int
    /// What ExtraSamples makes of the samples after the colour ones.
    public let alpha: TIFFAlpha
    /// True for tiles (TileWidth present), false for strips.
    public let isTiled: Bool
    /// The tile size, or for strips the image width and RowsPerStrip (at most the height).
    public let segmentWidth: Int
    public let segmentHeight: Int
    /// Pages (IFDs in the IFD0 chain), counted up to `TIFFOptions.maxPages`. Only the
    /// first is decoded.
    public let pageCount: Int
    /// Orientation (tag 274); `.up` when absent.
    public let orientation: Orientation
    /// The ICC profile (tag 34675), as stored.
    public let iccProfile: [UInt8]?
    /// Every strip or tile, plane by plane, in the directory's order.
    public let segments: [TIFFSegment]
    public let byteOrder: ByteOrder
    /// Where IFD0 (its entry count) is in the file.
    public let ifdOffset: Int
}
