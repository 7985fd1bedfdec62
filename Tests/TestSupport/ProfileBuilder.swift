/// Builds small profiles for the tests: a header (ICC.1 7.2), a tag table (7.3) and the
/// tags' data, each tag padded to four bytes. Tests then break one thing at a time, or make
/// the profile a thumbnail should carry.
public struct ProfileBuilder {
    public var colourSpace = "RGB "
    public var connectionSpace = "XYZ "
    public var tags: [(String, [UInt8])] = []

    public init() {}

    public static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    public static func fixed(_ v: Double) -> [UInt8] { be32(UInt32(bitPattern: Int32((v * 65536).rounded()))) }

    public static func xyz(_ x: Double, _ y: Double, _ z: Double) -> [UInt8] {
        Array("XYZ ".utf8) + [0, 0, 0, 0] + fixed(x) + fixed(y) + fixed(z)
    }

    public static func gammaCurve(_ gamma: Double) -> [UInt8] {
        let g = UInt16(gamma * 256)
        return Array("curv".utf8) + [0, 0, 0, 0] + be32(1) + [UInt8(g >> 8), UInt8(g & 0xFF)]
    }

    public static func tableCurve(_ entries: [UInt16]) -> [UInt8] {
        Array("curv".utf8) + [0, 0, 0, 0] + be32(UInt32(entries.count)) + entries.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    public static func para(_ function: UInt16, _ parameters: [Double]) -> [UInt8] {
        Array("para".utf8) + [0, 0, 0, 0] + [UInt8(function >> 8), UInt8(function & 0xFF), 0, 0]
            + parameters.flatMap(fixed)
    }

    public static func desc(_ text: String) -> [UInt8] {
        let ascii = Array(text.utf8) + [0]
        return Array("desc".utf8) + [0, 0, 0, 0] + be32(UInt32(ascii.count)) + ascii + [UInt8](repeating: 0, count: 12 + 67)
    }

    public static func mluc(_ records: [(String, String)]) -> [UInt8] {
        var out = Array("mluc".utf8) + [0, 0, 0, 0] + be32(UInt32(records.count)) + be32(12)
        var strings: [UInt8] = []
        let base = 16 + 12 * records.count
        for (locale, text) in records {
            let units = Array(text.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            out += Array(locale.utf8) + be32(UInt32(units.count)) + be32(UInt32(base + strings.count))
            strings += units
        }
        return out + strings
    }

    /// An sRGB-like v4 display profile: D50 colorants of sRGB, the sRGB parametric curve.
    public static func sRGBLike() -> ProfileBuilder {
        let curve = para(3, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
        var builder = ProfileBuilder()
        builder.tags = [("desc", mluc([("enUS", "test sRGB")])), ("wtpt", xyz(0.9642, 1, 0.8249)),
                        ("rXYZ", xyz(0.4361, 0.2225, 0.0139)), ("gXYZ", xyz(0.3851, 0.7169, 0.0971)),
                        ("bXYZ", xyz(0.1431, 0.0606, 0.7141)), ("rTRC", curve), ("gTRC", curve), ("bTRC", curve)]
        return builder
    }

    /// The profile bytes; `entries` may rewrite the table entries (signature, offset, size).
    public func build(entries rewrite: (([(String, Int, Int)]) -> [(String, Int, Int)])? = nil) -> [UInt8] {
        let tableEnd = 128 + 4 + 12 * tags.count
        var data: [UInt8] = []
        var entries: [(String, Int, Int)] = []
        for (signature, bytes) in tags {
            entries.append((signature, tableEnd + data.count, bytes.count))
            data += bytes
            while data.count % 4 != 0 { data.append(0) }
        }
        if let rewrite { entries = rewrite(entries) }
        let size = tableEnd + data.count
        var header: [UInt8] = Self.be32(UInt32(size))
        header += Array("test".utf8)
        header += [4, 0x30, 0, 0]
        header += Array("mntr".utf8)
        header += Array(colourSpace.utf8)
        header += Array(connectionSpace.utf8)
        header += [UInt8](repeating: 0, count: 12)
        header += Array("acsp".utf8)
        header += [UInt8](repeating: 0, count: 24)
        header += Self.be32(1)
        header += Self.fixed(0.9642) + Self.fixed(1) + Self.fixed(0.8249)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        var table: [UInt8] = Self.be32(UInt32(entries.count))
        for (signature, offset, length) in entries {
            table += Array(signature.utf8)
            table += Self.be32(UInt32(truncatingIfNeeded: offset))
            table += Self.be32(UInt32(truncatingIfNeeded: length))
        }
        return header + table + data
    }
}
