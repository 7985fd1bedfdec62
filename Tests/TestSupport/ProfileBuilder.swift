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

/// LUT tags (ICC.1 10.8 lut16Type, 10.9 lut8Type, 10.12 lutAToBType) for the builder.
extension ProfileBuilder {
    public static func be16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }

    /// The identity 3×3 matrix lut8 and lut16 carry (10.8, 10.9).
    public static var identityMatrix: [UInt8] { [1.0, 0, 0, 0, 1, 0, 0, 0, 1].flatMap(fixed) }

    /// lut8Type: `inputs` tables and 3 output tables (256 bytes each, from `table`), a grid
    /// of `points` per input whose nodes are `node(indices)` (3 values 0…1).
    public static func lut8(inputs: Int, points: Int, table: (Int) -> UInt8 = { UInt8($0) },
                     node: ([Int]) -> [Double]) -> [UInt8] {
        var out = Array("mft1".utf8) + [0, 0, 0, 0] + [UInt8(inputs), 3, UInt8(points), 0] + identityMatrix
        for _ in 0 ..< inputs { out += (0 ..< 256).map(table) }
        out += gridNodes(inputs: inputs, points: points).flatMap { node($0).map { UInt8(($0 * 255).rounded()) } }
        for _ in 0 ..< 3 { out += (0 ..< 256).map { UInt8($0) } }
        return out
    }

    /// lut16Type: `inputEntries`-entry input tables from `table` (0…1 to 0…1), a grid of
    /// `points`, two-entry identity output tables.
    public static func lut16(inputs: Int, points: Int, inputEntries: Int = 2, table: (Double) -> Double = { $0 },
                      node: ([Int]) -> [Double]) -> [UInt8] {
        var out = Array("mft2".utf8) + [0, 0, 0, 0] + [UInt8(inputs), 3, UInt8(points), 0] + identityMatrix
        out += be16(inputEntries) + be16(2)
        for _ in 0 ..< inputs {
            out += (0 ..< inputEntries).flatMap { be16(Int((table(Double($0) / Double(inputEntries - 1)) * 65535).rounded())) }
        }
        out += gridNodes(inputs: inputs, points: points).flatMap { node($0).flatMap { be16(Int(($0 * 65535).rounded())) } }
        for _ in 0 ..< 3 { out += be16(0) + be16(65535) }
        return out
    }

    /// lutAToBType with every element: A curves, a 16-bit CLUT, M curves, a matrix and
    /// offsets (12 numbers, row by row then offsets), B curves; each curve a `para`.
    public static func lutAToB(inputs: Int, points: Int, a: [UInt8], m: [UInt8], b: [UInt8], matrix: [Double],
                        node: ([Int]) -> [Double]) -> [UInt8] {
        func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4) }
        let bCurves = padded(b) + padded(b) + padded(b)
        let matrixBytes = matrix.flatMap(fixed)
        let mCurves = padded(m) + padded(m) + padded(m)
        var clut = [UInt8](repeating: 0, count: 16)
        for i in 0 ..< inputs { clut[i] = UInt8(points) }
        clut += [2, 0, 0, 0]
        clut += gridNodes(inputs: inputs, points: points).flatMap { node($0).flatMap { be16(Int(($0 * 65535).rounded())) } }
        clut = padded(clut)
        let aCurves = (0 ..< inputs).flatMap { _ in padded(a) }
        let offsetB = 32, offsetMatrix = offsetB + bCurves.count, offsetM = offsetMatrix + matrixBytes.count
        let offsetCLUT = offsetM + mCurves.count, offsetA = offsetCLUT + clut.count
        return Array("mAB ".utf8) + [0, 0, 0, 0] + [UInt8(inputs), 3, 0, 0]
            + [offsetB, offsetMatrix, offsetM, offsetCLUT, offsetA].flatMap { be32(UInt32($0)) }
            + bCurves + matrixBytes + mCurves + clut + aCurves
    }

    /// Every node's indices, the first input varying slowest (10.8).
    public static func gridNodes(inputs: Int, points: Int) -> [[Int]] {
        var nodes: [[Int]] = [[]]
        for _ in 0 ..< inputs { nodes = nodes.flatMap { prefix in (0 ..< points).map { prefix + [$0] } } }
        return nodes
    }

    /// A profile of `space` whose A2B0 is `lut`.
    public static func lutProfile(_ space: String, pcs: String, _ lut: [UInt8]) -> ProfileBuilder {
        var builder = ProfileBuilder()
        builder.colourSpace = space
        builder.connectionSpace = pcs
        builder.tags = [("desc", desc("LUT test")), ("wtpt", xyz(0.9642, 1, 0.8249)), ("A2B0", lut)]
        return builder
    }
}

extension ProfileBuilder {
    public static func readBE32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
