/// A LUT-based transform from device values to the PCS: the A2B1 or A2B0 tag of a profile,
/// of type `lut8Type` (ICC.1:2022 10.9), `lut16Type` (10.8) or `lutAToBType` (10.12). All
/// three are read into one chain, in the order 10.12.1 gives for lutAToBType:
///
///     matrix (lut8/lut16, 3 inputs) → A curves → CLUT → M curves → matrix + offset → B curves
///
/// For lut8Type and lut16Type the A curves are the input tables and the B curves the output
/// tables (10.8, 10.9: "input tables, CLUT, output tables"); they have no M curves and no
/// second matrix. Their leading 3×3 matrix is applied when it is not the identity and the
/// tag has three inputs, as LittleCMS applies it (the clause reserves it for XYZ input; device
/// profiles store the identity there).
///
/// Values are 0…1 throughout ("normalised", 10.12.1): 8-bit entries over 255, 16-bit over
/// 65535. The CLUT stays in the profile's bytes and is read where it lies; this type only
/// checks its bounds. `evaluate` is the plain evaluation in Double, with no tables: the
/// oracle of `LUTRowConverter`.
public struct ICCLut: Sendable {
    /// How the PCS values the chain gives are encoded (ICC.1 6.3.4, Annex A).
    public enum PCSEncoding: Sendable, Equatable {
        /// XYZ as u1Fixed15 (6.3.4.3): 0…1 stands for 0…65535/32768.
        case xyz
        /// CIELAB, ICC v4 (6.3.4.2, Table 12): L* = 100·v, a*, b* = 255·v − 128.
        case lab
        /// CIELAB as lut16Type holds it in every version (10.8, Table 42, the v2 legacy
        /// encoding): L* 0…100 is 0…0xFF00, a*, b* −128…127.996 are 0…0xFFFF.
        case labV2
    }

    /// The tag's type: `mft1`, `mft2` or `mAB `.
    public let type: ICCSignature
    public let inputChannels: Int
    public let outputChannels: Int
    public let pcs: PCSEncoding
    /// lut8/lut16's matrix, row by row, nil when it is the identity or not used.
    let inputMatrix: [Double]?
    /// One curve per input, or none (identity).
    let aCurves: [ICCToneCurve]
    let clut: ICCCLUT?
    /// One curve per output, or none.
    let mCurves: [ICCToneCurve]
    /// lutAToBType's 3×3 matrix, row by row, then its three offsets (10.12.5); nil when absent.
    let matrix: [Double]?
    /// One curve per output, or none.
    let bCurves: [ICCToneCurve]

    /// The output channels a PCS has.
    static let pcsChannels = 3

    /// The plain evaluation: `input` (one value 0…1 per input channel) through every
    /// element, each value clamped to 0…1 between them as 10.12.1 requires; the PCS values,
    /// normalised, out.
    func evaluate(_ input: [Double]) -> [Double] {
        var values = input.map { min(max($0, 0), 1) }
        if let m = inputMatrix, values.count == 3 {
            values = Matrix3.apply(m, values).map { min(max($0, 0), 1) }
        }
        values = Self.apply(aCurves, values)
        if let clut { values = clut.interpolate(values) }
        values = Self.apply(mCurves, values)
        if let m = matrix {
            values = (0 ..< 3).map {
                min(max(m[3 * $0] * values[0] + m[3 * $0 + 1] * values[1] + m[3 * $0 + 2] * values[2] + m[9 + $0], 0), 1)
            }
        }
        return Self.apply(bCurves, values)
    }

    static func apply(_ curves: [ICCToneCurve], _ values: [Double]) -> [Double] {
        guard curves.count == values.count else { return values }
        return (0 ..< values.count).map { curves[$0].evaluate(values[$0]) }
    }

    /// PCS values, normalised, to CIE XYZ relative to the PCS white (D50, Y = 1).
    func xyz(_ pcsValues: [Double]) -> [Double] {
        switch pcs {
        case .xyz:
            return pcsValues.map { $0 * 65535 / 32768 }
        case .lab, .labV2:
            let lab = pcs == .lab
                ? [pcsValues[0] * 100, pcsValues[1] * 255 - 128, pcsValues[2] * 255 - 128]
                : [pcsValues[0] * 65535 / 65280 * 100, pcsValues[1] * 65535 / 256 - 128, pcsValues[2] * 65535 / 256 - 128]
            return Self.labToXYZ(lab)
        }
    }

    /// CIE 15 (and ICC.1 Annex A): L*a*b* to XYZ under the PCS white D50.
    static func labToXYZ(_ lab: [Double]) -> [Double] {
        let fy = (lab[0] + 16) / 116
        let f = [fy + lab[1] / 500, fy, fy - lab[2] / 200]
        let white = [ColourPrimaries.d50.x, ColourPrimaries.d50.y, ColourPrimaries.d50.z]
        return (0 ..< 3).map { i in
            let t = f[i]
            let ratio = t > 6.0 / 29 ? t * t * t : 3 * (6.0 / 29) * (6.0 / 29) * (t - 4.0 / 29)
            return white[i] * ratio
        }
    }
}

/// The colour lookup table of a LUT tag (ICC.1 10.8, 10.9, 10.12.3): a grid of
/// `gridPoints[i]` points along input i, each node holding `outputs` values; the first input
/// varies slowest. The values stay in the profile's bytes, `bytesPerValue` each, big-endian.
struct ICCCLUT: Sendable {
    let bytes: [UInt8]
    /// Where the first node's first value lies in `bytes`.
    let start: Int
    let bytesPerValue: Int
    let gridPoints: [Int]
    let outputs: Int

    /// Values between nodes along input i: the product of the later inputs' points times
    /// the outputs.
    var strides: [Int] {
        var strides = [Int](repeating: outputs, count: gridPoints.count)
        var i = gridPoints.count - 1
        while i > 0 {
            strides[i - 1] = strides[i] * gridPoints[i]
            i -= 1
        }
        return strides
    }

    var nodeCount: Int { gridPoints.reduce(1, *) }

    /// The value at `index` (counted in values, not bytes), normalised.
    func value(_ index: Int) -> Double {
        let at = start + index * bytesPerValue
        return bytesPerValue == 1 ? Double(bytes[at]) / 255 : Double(readUInt16(bytes, at)) / 65535
    }

    /// Where input value v (0…1) falls along input i: the lower node's index, kept below
    /// the last so that the upper one exists, and the fraction past it.
    static func cell(_ v: Double, points: Int) -> (index: Int, fraction: Double) {
        let position = min(max(v, 0), 1) * Double(points - 1)
        let index = min(Int(position), points - 2)
        return (index, position - Double(index))
    }

    /// Interpolates as LittleCMS does for this many inputs: linearly along one input;
    /// tetrahedrally among three (ICC.1 does not prescribe a method; tetrahedral is the
    /// usual one for three); with four, tetrahedrally among the last three at the first
    /// input's two neighbouring nodes, then linearly between them; multilinearly otherwise.
    func interpolate(_ input: [Double]) -> [Double] {
        let strides = self.strides
        let cells = (0 ..< gridPoints.count).map { Self.cell(input[$0], points: gridPoints[$0]) }
        let base = (0 ..< cells.count).reduce(0) { $0 + cells[$1].index * strides[$1] }
        switch gridPoints.count {
        case 1:
            return (0 ..< outputs).map {
                value(base + $0) * (1 - cells[0].fraction) + value(base + strides[0] + $0) * cells[0].fraction
            }
        case 3:
            return tetrahedral(base, strides, cells[0].fraction, cells[1].fraction, cells[2].fraction)
        case 4:
            let near = tetrahedral(base, Array(strides[1...]), cells[1].fraction, cells[2].fraction, cells[3].fraction)
            let far = tetrahedral(base + strides[0], Array(strides[1...]), cells[1].fraction, cells[2].fraction,
                                  cells[3].fraction)
            return (0 ..< outputs).map { near[$0] + (far[$0] - near[$0]) * cells[0].fraction }
        default:
            return multilinear(base, strides, cells.map { $0.fraction })
        }
    }

    /// The cube's corners at offsets 0 and the sums of `s`, split into six tetrahedra by the
    /// order of the fractions; the one holding the point weights its four corners.
    func tetrahedral(_ base: Int, _ s: [Int], _ x: Double, _ y: Double, _ z: Double) -> [Double] {
        let (first, second, w) = Self.tetrahedron(x, y, z, s[0], s[1], s[2])
        let last = s[0] + s[1] + s[2]
        return (0 ..< outputs).map { o in
            let c0 = value(base + o), c1 = value(base + first + o), c2 = value(base + second + o)
            let c3 = value(base + last + o)
            return c0 + w.0 * (c1 - c0) + w.1 * (c2 - c1) + w.2 * (c3 - c2)
        }
    }

    /// The tetrahedron of the unit cube (strides a, b, c along x, y, z) that holds the point
    /// (x, y, z): the path from the lowest corner to the highest, one axis at a time, largest
    /// fraction first. Gives its two middle corners' offsets and the three steps' weights.
    /// Shared by the plain evaluation and `LUTRowConverter`.
    @inline(__always)
    static func tetrahedron<T: Comparable>(_ x: T, _ y: T, _ z: T, _ a: Int, _ b: Int,
                                           _ c: Int) -> (first: Int, second: Int, weights: (T, T, T)) {
        if x >= y {
            if y >= z { return (a, a &+ b, (x, y, z)) }
            if x >= z { return (a, a &+ c, (x, z, y)) }
            return (c, a &+ c, (z, x, y))
        }
        if x >= z { return (b, a &+ b, (y, x, z)) }
        if y >= z { return (b, b &+ c, (y, z, x)) }
        return (c, b &+ c, (z, y, x))
    }

    /// Every corner of the hypercube weighted by the product of its fractions.
    func multilinear(_ base: Int, _ strides: [Int], _ fractions: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: outputs)
        for corner in 0 ..< 1 << fractions.count {
            var weight = 1.0, offset = base
            for i in 0 ..< fractions.count {
                let high = corner >> (fractions.count - 1 - i) & 1 == 1
                weight *= high ? fractions[i] : 1 - fractions[i]
                if high { offset += strides[i] }
            }
            for o in 0 ..< outputs { out[o] += weight * value(offset + o) }
        }
        return out
    }
}

/// The readers of the three LUT types (ICC.1 10.8, 10.9, 10.12).
extension ICCTagData {
    /// Where lut8Type and lut16Type keep their fields (10.8 Table 40, 10.9 Table 43).
    enum LutField {
        static let inputChannels = 8, outputChannels = 9, gridPoints = 10, matrix = 12
        /// lut8Type's input tables begin here; lut16Type's two table sizes, then its tables.
        static let tables8 = 48
        static let inputEntries = 48, outputEntries = 50, tables16 = 52
    }

    /// Where lutAToBType keeps its fields (10.12.1 Table 50).
    enum AToBField {
        static let inputChannels = 8, outputChannels = 9
        static let bCurves = 12, matrix = 16, mCurves = 20, clut = 24, aCurves = 28
        static let end = 32
        /// Inside the CLUT element (10.12.3 Table 52): 16 grid sizes, the precision, padding.
        static let clutPrecision = 16, clutData = 20, maxGridDimensions = 16
    }

    /// The tag as a LUT from `inputs` device channels to the three PCS channels.
    func lut(inputs: Int, pcs: ICCSignature) throws(ICCError) -> ICCLut {
        let type = try requireType([.lut8Type, .lut16Type, .lutAToBType])
        try require(type == .lutAToBType ? AToBField.end : LutField.tables8)
        let at = entry.offset
        let inCount = Int(bytes[at + LutField.inputChannels]), outCount = Int(bytes[at + LutField.outputChannels])
        guard inCount == inputs, outCount == ICCLut.pcsChannels else {
            throw .malformedLUT(tag: name, offset: at + LutField.inputChannels,
                                problem: .channels(inputs: inCount, outputs: outCount))
        }
        let encoding: ICCLut.PCSEncoding = pcs == .xyz ? .xyz : (type == .lut16Type ? .labV2 : .lab)
        if type == .lutAToBType { return try lutAToB(inputs: inCount, outputs: outCount, pcs: encoding) }
        return try lut8Or16(wide: type == .lut16Type, inputs: inCount, outputs: outCount, pcs: encoding)
    }

    /// lut8Type (10.9) and lut16Type (10.8).
    private func lut8Or16(wide: Bool, inputs: Int, outputs: Int, pcs: ICCLut.PCSEncoding) throws(ICCError) -> ICCLut {
        let at = entry.offset
        let points = Int(bytes[at + LutField.gridPoints])
        guard points >= 2 else { throw .malformedLUT(tag: name, offset: at + LutField.gridPoints, problem: .gridPoints(points)) }
        var matrix: [Double] = []
        for i in 0 ..< 9 { matrix.append(try fixed(LutField.matrix + 4 * i)) }
        var inEntries = 256, outEntries = 256, position = LutField.tables8
        if wide {
            try require(LutField.tables16)
            inEntries = readUInt16(bytes, at + LutField.inputEntries)
            outEntries = readUInt16(bytes, at + LutField.outputEntries)
            for (entries, field) in [(inEntries, LutField.inputEntries), (outEntries, LutField.outputEntries)]
                where entries < 2 || entries > 4096 {
                throw .malformedLUT(tag: name, offset: at + field, problem: .tableEntries(entries))
            }
            position = LutField.tables16
        }
        let size = wide ? 2 : 1
        let aCurves = try tables(count: inputs, entries: inEntries, bytesPerEntry: size, at: position)
        position += inputs * inEntries * size
        let clut = try clut(at: position, gridPoints: [Int](repeating: points, count: inputs), outputs: outputs,
                            bytesPerValue: size, sizeOffset: at + LutField.gridPoints)
        position += clut.nodeCount * outputs * size
        let bCurves = try tables(count: outputs, entries: outEntries, bytesPerEntry: size, at: position)
        let identity = matrix == Matrix3.identity
        return ICCLut(type: wide ? .lut16Type : .lut8Type, inputChannels: inputs, outputChannels: outputs, pcs: pcs,
                      inputMatrix: identity || inputs != 3 ? nil : matrix, aCurves: aCurves, clut: clut, mCurves: [],
                      matrix: nil, bCurves: bCurves)
    }

    /// `count` tables of `entries` values each, from `at` bytes into the tag, as curves
    /// (8-bit values scaled to 16: v·257 = v·65535/255).
    private func tables(count: Int, entries: Int, bytesPerEntry: Int, at: Int) throws(ICCError) -> [ICCToneCurve] {
        try require(at + count * entries * bytesPerEntry)
        var curves: [ICCToneCurve] = []
        for c in 0 ..< count {
            let start = entry.offset + at + c * entries * bytesPerEntry
            curves.append(.table((0 ..< entries).map {
                bytesPerEntry == 1 ? UInt16(bytes[start + $0]) * 257 : UInt16(readUInt16(bytes, start + 2 * $0))
            }))
        }
        return curves
    }

    /// A CLUT of `gridPoints` at `at` bytes into the tag, checked against `maxCLUTEntries`
    /// and the tag's size. `sizeOffset` is where the grid sizes were read, for errors.
    private func clut(at: Int, gridPoints: [Int], outputs: Int, bytesPerValue: Int,
                      sizeOffset: Int) throws(ICCError) -> ICCCLUT {
        var values = outputs
        for points in gridPoints {
            guard points >= 2 else { throw .malformedLUT(tag: name, offset: sizeOffset, problem: .gridPoints(points)) }
            let (product, overflow) = values.multipliedReportingOverflow(by: points)
            guard !overflow, product <= options.maxCLUTEntries else {
                throw .countTooLarge(tag: name, offset: sizeOffset, count: overflow ? Int.max : product,
                                     limit: options.maxCLUTEntries)
            }
            values = product
        }
        try require(at + values * bytesPerValue)
        return ICCCLUT(bytes: bytes, start: entry.offset + at, bytesPerValue: bytesPerValue, gridPoints: gridPoints,
                       outputs: outputs)
    }

    /// lutAToBType (10.12): the five element offsets, each 0 when the element is absent,
    /// in one of the combinations 10.12.1 allows (B; M, matrix, B; A, CLUT, B; all five).
    private func lutAToB(inputs: Int, outputs: Int, pcs: ICCLut.PCSEncoding) throws(ICCError) -> ICCLut {
        let at = entry.offset
        func offset(_ field: Int) throws(ICCError) -> Int? {
            let value = Int(readUInt32(bytes, at + field))
            if value == 0 { return nil }
            guard value % 4 == 0, value >= AToBField.end, value <= entry.size else {
                throw .malformedLUT(tag: name, offset: at + field, problem: .elementOffset(value))
            }
            return value
        }
        let b = try offset(AToBField.bCurves), m = try offset(AToBField.mCurves), a = try offset(AToBField.aCurves)
        let matrixAt = try offset(AToBField.matrix), clutAt = try offset(AToBField.clut)
        // A CLUT needs A curves to feed it; a matrix needs M curves before it (10.12.1); 
        // without a CLUT the inputs go straight to M or B curves, which have `outputs` channels.
        guard let b, (clutAt == nil) == (a == nil), (matrixAt == nil) == (m == nil),
              clutAt != nil || inputs == outputs, matrixAt == nil || outputs == 3 else {
            throw .malformedLUT(tag: name, offset: at + AToBField.bCurves, problem: .elements)
        }
        let bCurves = try curves(count: outputs, at: b)
        let mCurves = try m.map { (start) throws(ICCError) -> [ICCToneCurve] in try curves(count: outputs, at: start) } ?? []
        let aCurves = try a.map { (start) throws(ICCError) -> [ICCToneCurve] in try curves(count: inputs, at: start) } ?? []
        var matrix: [Double]?
        if let matrixAt {
            try require(matrixAt + 48)
            var values: [Double] = []
            for i in 0 ..< 12 { values.append(try fixed(matrixAt + 4 * i)) }
            matrix = values
        }
        var clut: ICCCLUT?
        if let clutAt {
            try require(clutAt + AToBField.clutData)
            guard inputs <= AToBField.maxGridDimensions else {
                throw .malformedLUT(tag: name, offset: at + AToBField.inputChannels,
                                    problem: .channels(inputs: inputs, outputs: outputs))
            }
            let precision = Int(bytes[at + clutAt + AToBField.clutPrecision])
            guard precision == 1 || precision == 2 else {
                throw .malformedLUT(tag: name, offset: at + clutAt + AToBField.clutPrecision, problem: .precision(precision))
            }
            clut = try self.clut(at: clutAt + AToBField.clutData,
                                 gridPoints: (0 ..< inputs).map { Int(bytes[at + clutAt + $0]) }, outputs: outputs,
                                 bytesPerValue: precision, sizeOffset: at + clutAt)
        }
        return ICCLut(type: .lutAToBType, inputChannels: inputs, outputChannels: outputs, pcs: pcs, inputMatrix: nil,
                      aCurves: aCurves, clut: clut, mCurves: mCurves, matrix: matrix, bCurves: bCurves)
    }

    /// `count` curves (curveType or parametricCurveType) one after another from `at` bytes
    /// into the tag, each starting on a four-byte boundary (10.12.1).
    private func curves(count: Int, at: Int) throws(ICCError) -> [ICCToneCurve] {
        var curves: [ICCToneCurve] = []
        var position = at
        for _ in 0 ..< count {
            guard position <= entry.size else {
                throw .tagTooShort(tag: name, offset: entry.offset, needed: position, size: entry.size)
            }
            let inner = ICCTagData(bytes: bytes, entry: ICCTagEntry(signature: entry.signature, offset: entry.offset + position,
                                                                    size: entry.size - position, type: nil),
                                   options: options)
            let curve = try inner.toneCurve()
            curves.append(curve)
            position += (curve.storedSize + 3) / 4 * 4
        }
        return curves
    }
}

extension ICCToneCurve {
    /// The bytes the curve's tag data takes, before padding (10.6, 10.18).
    var storedSize: Int {
        switch self {
        case .identity: return 12
        case .gamma: return 14
        case let .table(entries): return 12 + 2 * entries.count
        case let .parametric(_, parameters): return 12 + 4 * parameters.count
        }
    }
}
