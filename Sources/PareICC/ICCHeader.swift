import PareCore

/// The 128-byte profile header (ICC.1:2022 7.2, Table 17). Fields Pare does not use are
/// kept for `pare inspect`.
public struct ICCHeader: Sendable, Equatable {
    /// Where each field starts (ICC.1 Table 17).
    enum Field {
        static let size = 0, cmm = 4, version = 8, deviceClass = 12, colourSpace = 16, pcs = 20
        static let dateTime = 24, signature = 36, platform = 40, flags = 44, manufacturer = 48
        static let model = 52, attributes = 56, renderingIntent = 64, illuminant = 68
        static let creator = 80, profileID = 84
        /// The header's length; the tag count follows it (7.3.2).
        static let end = 128
    }

    /// Bytes 0–3: the profile's length as declared.
    public var size: Int
    public var preferredCMM: ICCSignature
    /// Bytes 8–11: major version, then minor and bug-fix versions in one byte's nibbles (7.2.4).
    public var versionMajor: Int
    public var versionMinor: Int
    public var versionBugFix: Int
    /// Bytes 12–15: 'mntr', 'scnr', 'prtr', 'link', 'spac', 'abst', 'nmcl' (7.2.5).
    public var profileClass: ICCSignature
    /// Bytes 16–19: the data colour space, 'RGB ', 'GRAY', 'CMYK', … (7.2.6).
    public var colourSpace: ICCSignature
    /// Bytes 20–23: the profile connection space, 'XYZ ' or 'Lab ' (7.2.7).
    public var connectionSpace: ICCSignature
    /// Bytes 24–35: year, month, day, hours, minutes, seconds (7.2.8).
    public var dateTime: [Int]
    public var platform: ICCSignature
    public var flags: UInt32
    public var manufacturer: ICCSignature
    public var model: ICCSignature
    /// Bytes 64–67: the intended rendering intent, 0–3 (7.2.15).
    public var renderingIntent: Int
    /// Bytes 68–79: the PCS illuminant, D50 in every valid profile (7.2.16).
    public var illuminant: ICCXYZ
    public var creator: ICCSignature
    /// Bytes 84–99: an MD5 of the profile, all zero when not computed (7.2.18).
    public var profileID: [UInt8]

    /// "4.3.0": the version as ExifTool and ColorSync print it.
    public var version: String { "\(versionMajor).\(versionMinor).\(versionBugFix)" }

    /// Reads the header of `bytes`, which holds at least `Field.end` bytes.
    init(_ bytes: [UInt8]) {
        func u32(_ at: Int) -> UInt32 { readUInt32(bytes, at) }
        func signature(_ at: Int) -> ICCSignature { ICCSignature(rawValue: u32(at)) }
        size = Int(u32(Field.size))
        preferredCMM = signature(Field.cmm)
        versionMajor = Int(bytes[Field.version])
        versionMinor = Int(bytes[Field.version + 1] >> 4)
        versionBugFix = Int(bytes[Field.version + 1] & 0x0F)
        profileClass = signature(Field.deviceClass)
        colourSpace = signature(Field.colourSpace)
        connectionSpace = signature(Field.pcs)
        dateTime = (0 ..< 6).map { Int(bytes[Field.dateTime + 2 * $0]) << 8 | Int(bytes[Field.dateTime + 2 * $0 + 1]) }
        platform = signature(Field.platform)
        flags = u32(Field.flags)
        manufacturer = signature(Field.manufacturer)
        model = signature(Field.model)
        renderingIntent = Int(u32(Field.renderingIntent) & 0xFFFF)
        illuminant = ICCXYZ(readFixed(bytes, Field.illuminant), readFixed(bytes, Field.illuminant + 4),
                            readFixed(bytes, Field.illuminant + 8))
        creator = signature(Field.creator)
        profileID = Array(bytes[Field.profileID ..< Field.profileID + 16])
    }
}

/// A CIE XYZ triple (ICC.1 4.14 XYZNumber), in units where the PCS white has Y = 1.
public struct ICCXYZ: Sendable, Equatable {
    public var x: Double, y: Double, z: Double

    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// Big-endian uInt32 at `at`; the caller has checked the bounds.
func readUInt32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
}

func readUInt16(_ bytes: [UInt8], _ at: Int) -> Int {
    Int(bytes[at]) << 8 | Int(bytes[at + 1])
}

/// The raw bits of an s15Fixed16Number (ICC.1 4.6): a signed 32-bit count of 1/65536.
func readFixedRaw(_ bytes: [UInt8], _ at: Int) -> Int32 {
    Int32(bitPattern: readUInt32(bytes, at))
}

/// An s15Fixed16Number as a Double: always finite, within ±32768.
func readFixed(_ bytes: [UInt8], _ at: Int) -> Double {
    Double(readFixedRaw(bytes, at)) / 65536
}
