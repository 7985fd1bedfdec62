/// The limits that keep a hostile profile from costing time or memory, each with a default
/// far above what real profiles use (the README's "Limits" table lists them). A crossed
/// limit throws the `ICCError` it names.
public struct ICCOptions: Sendable, Equatable {
    /// Largest profile accepted, in bytes, assembled from JPEG chunks, inflated from a PNG
    /// iCCP or read from a TIFF tag. Default: 8 MiB (the largest press profiles are ~4 MiB).
    /// `ICCError.profileTooLarge`.
    public var maxProfileBytes: Int = 8 << 20
    /// Entries in the tag table. Default: 256 (real profiles have 9–40).
    /// `ICCError.tooManyTags`.
    public var maxTags: Int = 256
    /// Entries of a `curv` table. Default: 65,536 (real ones have 256–4,096).
    /// `ICCError.countTooLarge`.
    public var maxCurvePoints: Int = 65536
    /// Bytes of text read from a `desc` or `mluc` record. Default: 4,096.
    /// `ICCError.countTooLarge`.
    public var maxTextBytes: Int = 4096
    /// Records of an `mluc`. Default: 512 (Apple profiles have ~20 languages).
    /// `ICCError.countTooLarge`.
    public var maxTextRecords: Int = 512
    /// Largest magnitude of an s15Fixed16 colorant, white point, adaptation-matrix entry
    /// or parametric-curve parameter. The format reaches ±32768; colorimetry needs a few
    /// units, so anything above is a broken or hostile profile. Default: 256.
    /// `ICCError.absurdValue`.
    public var maxFixedMagnitude: Double = 256
    /// JPEG APP2 ICC_PROFILE chunks read (ICC.1 B.4 numbers them with one byte). Default: 255.
    public var maxChunks: Int = 255
    /// Values in the colour lookup table of a LUT tag (grid points to the power of the
    /// inputs, times the outputs: ICC.1 10.8, 10.9, 10.12.3). Default: 2^22 (4,194,304);
    /// a press profile's 33-point CMYK grid has 3,557,763. `ICCError.countTooLarge`.
    public var maxCLUTEntries: Int = 1 << 22

    public init() {}
}
