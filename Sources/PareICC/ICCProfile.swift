import PareCore

/// A parsed ICC profile (ICC.1:2022, and the v2 profiles of ICC.1:2001): the header, the
/// tag table, and the tags a thumbnailer needs: the description, the media white point,
/// the chromatic adaptation matrix, the matrix/TRC model (F.3 for RGB, F.2 for gray), and
/// which kind of LUT the `A2B0`/`B2A0` tags hold. The bytes are kept whole so that they can
/// be written into an output unchanged.
public struct ICCProfile: Sendable {
    /// The profile as found, byte for byte (with any padding after the declared size).
    public let bytes: [UInt8]
    public let header: ICCHeader
    /// The tag table in file order.
    public let tags: [ICCTagEntry]
    /// `desc` (9.2.41), nil without the tag.
    public let description: String?
    /// `wtpt` (9.2.36), the media white point: D50 in v4 display profiles.
    public let whitePoint: ICCXYZ?
    /// `chad` (9.2.15), the 3×3 matrix, row by row, that adapted the device's white to the
    /// PCS white (D50); nil without the tag.
    public let chromaticAdaptation: [Double]?
    /// `rXYZ`, `gXYZ`, `bXYZ` (9.2.44, 9.2.30, 9.2.4): the PCS-relative colorants of red,
    /// green and blue, the columns of the matrix from linear device RGB to PCS XYZ.
    public let colorants: [ICCXYZ]?
    /// `rTRC`, `gTRC`, `bTRC` (9.2.45, 9.2.31, 9.2.5), in that order, when all three exist.
    public let rgbCurves: [ICCToneCurve]?
    /// `kTRC` (9.2.34), the gray tone curve.
    public let grayCurve: ICCToneCurve?
    /// The types of `A2B0` and `B2A0` (`mft1`, `mft2`, `mAB `, `mBA `), when present.
    public let aToB0Type: ICCSignature?
    public let bToA0Type: ICCSignature?
    /// The device-to-PCS LUT relative colorimetric uses, as LittleCMS picks it: `A2B1`
    /// (colorimetric, ICC.1 Table 25) where present, else `A2B0`. Read only for GRAY, RGB
    /// and CMYK profiles with an XYZ or Lab PCS that have no matrix/TRC model (which wins,
    /// as it always has here); nil otherwise.
    public let deviceToPCS: ICCLut?

    /// Parses `bytes`. Throws when the header or tag table is unusable, or when a tag Pare
    /// reads is malformed: a profile that lies about one tag is not trusted for colour.
    public init(bytes: [UInt8], options: ICCOptions = ICCOptions()) throws(ICCError) {
        guard bytes.count <= options.maxProfileBytes else {
            throw .profileTooLarge(size: bytes.count, limit: options.maxProfileBytes)
        }
        guard bytes.count >= ICCTagTable.countOffset + 4 else { throw .truncated(size: bytes.count) }
        let header = ICCHeader(bytes)
        guard readUInt32(bytes, ICCHeader.Field.signature) == ICCSignature.acsp.rawValue else { throw .badSignature }
        // A profile carried in a file may be followed by padding, never be cut short.
        guard header.size >= ICCTagTable.countOffset + 4, header.size <= bytes.count else {
            throw .sizeMismatch(declared: header.size, actual: bytes.count)
        }
        let profile = header.size == bytes.count ? bytes : Array(bytes[0 ..< header.size])
        let tags = try ICCTagTable.read(profile, options: options)
        func data(_ signature: ICCSignature) -> ICCTagData? {
            tags.first { $0.signature == signature }.map { ICCTagData(bytes: profile, entry: $0, options: options) }
        }
        self.bytes = bytes
        self.header = header
        self.tags = tags
        description = try data(.profileDescription)?.text()
        whitePoint = try data(.mediaWhitePoint)?.xyz()
        chromaticAdaptation = try data(.chromaticAdaptation)?.fixedArray(9)
        if let r = data(.redColorant), let g = data(.greenColorant), let b = data(.blueColorant) {
            colorants = [try r.xyz(), try g.xyz(), try b.xyz()]
        } else {
            colorants = nil
        }
        if let r = data(.redTRC), let g = data(.greenTRC), let b = data(.blueTRC) {
            rgbCurves = [try r.toneCurve(), try g.toneCurve(), try b.toneCurve()]
        } else {
            rgbCurves = nil
        }
        grayCurve = try data(.grayTRC)?.toneCurve()
        aToB0Type = try data(.aToB0)?.requireType([.lut8Type, .lut16Type, .lutAToBType])
        bToA0Type = try data(.bToA0)?.requireType([.lut8Type, .lut16Type, .lutBToAType])
        let inputs = Self.deviceChannels(header.colourSpace)
        let pcs = header.connectionSpace
        if let inputs, pcs == .xyz || pcs == .lab, !(header.colourSpace == .rgb && colorants != nil && rgbCurves != nil),
           !(header.colourSpace == .gray && grayCurve != nil), let tag = data(.aToB1) ?? data(.aToB0) {
            deviceToPCS = try tag.lut(inputs: inputs, pcs: pcs)
        } else {
            deviceToPCS = nil
        }
    }

    /// The channels of the device colour spaces Pare converts from (ICC.1 Table 19).
    static func deviceChannels(_ space: ICCSignature) -> Int? {
        switch space {
        case .gray: return 1
        case .rgb: return 3
        case .cmyk: return 4
        default: return nil
        }
    }

    /// True for an RGB profile with colorants and three TRCs (ICC.1 F.3).
    public var isMatrixTRC: Bool {
        header.colourSpace == .rgb && colorants != nil && rgbCurves != nil
    }

    /// True for a gray profile with a `kTRC` (ICC.1 F.2).
    public var isGrayTRC: Bool { header.colourSpace == .gray && grayCurve != nil }
}
