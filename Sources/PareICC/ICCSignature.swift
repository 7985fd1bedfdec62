/// A four-byte signature (ICC.1 4.3 "signature"): tag names, type names, colour spaces,
/// profile classes. Stored as the big-endian number of its four bytes.
public struct ICCSignature: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// From four ASCII characters ("rTRC", "RGB ").
    public init(_ text: StaticString) {
        precondition(text.utf8CodeUnitCount == 4, "a signature has four characters")
        let p = text.utf8Start
        rawValue = UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
    }

    /// The four bytes as text, with bytes outside printable ASCII shown as "?" (a hostile
    /// profile's signature must still print as one line).
    public var description: String {
        var text = ""
        for shift in [24, 16, 8, 0] {
            let byte = UInt8(truncatingIfNeeded: rawValue >> UInt32(shift))
            text.unicodeScalars.append(Unicode.Scalar(byte >= 0x20 && byte < 0x7F ? byte : 0x3F))
        }
        return text
    }
}

/// The signatures Pare looks at (ICC.1 Table 19 for classes, Table 20 for colour spaces,
/// clause 9 for tags, clause 10 for tag types).
extension ICCSignature {
    // Header.
    static let acsp = ICCSignature("acsp")
    public static let rgb = ICCSignature("RGB ")
    public static let gray = ICCSignature("GRAY")
    public static let cmyk = ICCSignature("CMYK")
    public static let xyz = ICCSignature("XYZ ")
    public static let lab = ICCSignature("Lab ")
    // Tags (clause 9.2).
    public static let profileDescription = ICCSignature("desc")
    public static let mediaWhitePoint = ICCSignature("wtpt")
    public static let chromaticAdaptation = ICCSignature("chad")
    public static let redColorant = ICCSignature("rXYZ")
    public static let greenColorant = ICCSignature("gXYZ")
    public static let blueColorant = ICCSignature("bXYZ")
    public static let redTRC = ICCSignature("rTRC")
    public static let greenTRC = ICCSignature("gTRC")
    public static let blueTRC = ICCSignature("bTRC")
    public static let grayTRC = ICCSignature("kTRC")
    public static let aToB0 = ICCSignature("A2B0")
    public static let aToB1 = ICCSignature("A2B1")
    public static let bToA0 = ICCSignature("B2A0")
    // Tag types (clause 10).
    static let textDescriptionType = ICCSignature("desc")
    static let multiLocalizedUnicodeType = ICCSignature("mluc")
    static let textType = ICCSignature("text")
    static let xyzType = ICCSignature("XYZ ")
    static let s15Fixed16ArrayType = ICCSignature("sf32")
    static let curveType = ICCSignature("curv")
    static let parametricCurveType = ICCSignature("para")
    static let lut8Type = ICCSignature("mft1")
    static let lut16Type = ICCSignature("mft2")
    static let lutAToBType = ICCSignature("mAB ")
    static let lutBToAType = ICCSignature("mBA ")
}
