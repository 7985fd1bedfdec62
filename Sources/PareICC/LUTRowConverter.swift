/// `ICCLut`'s chain over rows of 8-bit samples, then on to sRGB: what runs on every decoded
/// pixel of a CMYK JPEG or of an image with a LUT profile, before the resampler.
///
/// - The A curves and the grid are folded into one table per input channel: for each of the
///   256 codes, the CLUT cell the curve's output falls in (as a node offset) and the fraction
///   past its lower node, made once in Double (ICC.1 10.12.3 spaces the grid points evenly
///   over 0…1).
/// - The CLUT's nodes are `SIMD4<Float>` (three outputs and a spare lane), so a
///   tetrahedral step is four vector loads and three multiply-adds; four inputs take two
///   such steps and a linear one between them, as `ICCCLUT.interpolate` does.
/// - M curves and B curves are 4,097-entry Float tables, interpolated (skipped when they
///   are the identity, as lut16 output tables often are); the matrix is three vector
///   multiply-adds.
/// - The PCS to linear sRGB: Lab through CIE 15's cube, then the same XYZ (D50) → linear
///   sRGB matrix as `SRGBConverter` (the inverse of sRGB's Bradford-adapted colorants), and
///   the 16,385-entry encoding table of `SRGBRowConverter`.
///
/// 8-bit CMYK rows (what CMYK JPEGs give) take the chain resampled onto `CMYKCodeGrid`
/// instead, evaluated by these steps at the grid's nodes; `exactCMYK` keeps them on the
/// per-pixel path, the grid's oracle.
///
/// A chain without a CLUT (lutAToBType's B or M-matrix-B forms, 3 inputs) gets a 2-point
/// identity grid, which tetrahedral interpolation reproduces exactly. 16-bit samples are
/// rounded to 8 bits first: the output is 8-bit, and a grid of 17–33 points per input has
/// far coarser steps than 8-bit input.
struct LUTRowConverter: Sendable {
    /// Entries of a Float curve table: 0…1 in 4,096 steps.
    static let curveEntries = 4097
    static let encodeSteps = Float(1 << SRGBRowConverter.encodeBits)

    /// Device channels: 1, 3 or 4.
    let inputs: Int
    /// Samples per input pixel (with alpha: 2 for gray, 4 for RGB), set by `SRGBConverter`.
    var channels: Int
    var sampleBits = 8
    /// Per input channel, 256 node offsets and 256 fractions.
    let cells: [Int32]
    let fractions: [Float]
    /// Per input channel, the same for the `CMYKCodeGrid.points` node positions i / 16.
    let nodeCells: [Int32]
    let nodeFractions: [Float]
    /// 8-bit CMYK rows without alpha go through the chain resampled onto this grid, unless
    /// `exactCMYK` asks for the chain at every pixel (the grid's oracle in the tests).
    var grid: CMYKCodeGrid?
    var exactCMYK = false
    /// Nodes between neighbours along each input.
    let strides: [Int]
    let nodes: [SIMD4<Float>]
    /// Three curves, `curveEntries` each, or empty for the identity.
    let mCurves: [Float]
    let bCurves: [Float]
    /// lutAToBType's matrix as columns, then its offsets (`hasMatrix`; else the identity).
    let matrix: PostMatrix
    let hasMatrix: Bool
    /// Lab (`isLab`): L*, a*, b* = value · scale + bias.
    let labScale: SIMD4<Float>, labBias: SIMD4<Float>
    let isLab: Bool

    /// Three columns and an offset, stored flat so that the loop reads them from registers.
    struct PostMatrix: Sendable {
        var c0: SIMD4<Float>, c1: SIMD4<Float>, c2: SIMD4<Float>, offset: SIMD4<Float>
    }
    /// PCS XYZ (in the encoding's units for an XYZ PCS) to linear sRGB, as columns.
    let toSRGB: PostMatrix
    /// Gray: the PCS Y in the encoding's units to Y.
    let grayScale: Float
    /// The PCS white (D50), by which CIE 15's ratios are scaled, held here rather than read
    /// from a global in the loop.
    let white = SIMD4<Float>(Float(ColourPrimaries.d50.x), 1, Float(ColourPrimaries.d50.z), 0)
    let encode: [UInt8]

    /// The samples a pixel gives out: gray stays gray (the PCS Y, as a neutral's R = G = B),
    /// RGB and CMYK become RGB; alpha follows.
    var outputChannels: Int { (inputs == 1 ? 1 : 3) + (channels > inputs ? 1 : 0) }

    /// Nil when the chain has a lut8/lut16 input matrix, which mixes channels before the
    /// per-channel tables could.
    init?(_ lut: ICCLut, toSRGB m: [Double]) {
        guard lut.inputMatrix == nil, lut.inputChannels == 1 || lut.inputChannels == 3 || lut.inputChannels == 4 else {
            return nil
        }
        inputs = lut.inputChannels
        channels = inputs
        let grid = lut.clut?.gridPoints ?? [2, 2, 2]
        var strides = [Int](repeating: 1, count: inputs)
        var i = inputs - 1
        while i > 0 {
            strides[i - 1] = strides[i] * grid[i]
            i -= 1
        }
        self.strides = strides
        // Where input values fall in the profile's grid, after the A curves: for each 8-bit
        // code, and for each node position of the resampled CMYK grid.
        let channelCount = lut.inputChannels
        func table(_ steps: Int) -> (cells: [Int32], fractions: [Float]) {
            var cells: [Int32] = [], fractions: [Float] = []
            for c in 0 ..< channelCount {
                for v in 0 ..< steps {
                    let x = Double(v) / Double(steps - 1)
                    let y = lut.aCurves.count == channelCount ? lut.aCurves[c].evaluate(x) : x
                    let cell = ICCCLUT.cell(y, points: grid[c])
                    cells.append(Int32(cell.index * strides[c]))
                    fractions.append(Float(cell.fraction))
                }
            }
            return (cells, fractions)
        }
        (cells, fractions) = table(256)
        if inputs == 4 {
            (nodeCells, nodeFractions) = table(CMYKCodeGrid.points)
            self.grid = CMYKCodeGrid()
        } else {
            (nodeCells, nodeFractions) = ([], [])
        }
        var nodes: [SIMD4<Float>] = []
        if let clut = lut.clut {
            nodes.reserveCapacity(clut.nodeCount)
            for n in 0 ..< clut.nodeCount {
                let at = n * clut.outputs
                nodes.append(SIMD4(Float(clut.value(at)), Float(clut.value(at + 1)), Float(clut.value(at + 2)), 0))
            }
        } else {
            // Node (i, j, k) of the 2×2×2 grid holds (i, j, k): the identity.
            for n in 0 ..< 8 { nodes.append(SIMD4(Float(n >> 2), Float(n >> 1 & 1), Float(n & 1), 0)) }
        }
        self.nodes = nodes
        mCurves = Self.table(lut.mCurves)
        bCurves = Self.table(lut.bCurves)
        let f = (lut.matrix ?? Matrix3.identity + [0, 0, 0]).map(Float.init)
        matrix = PostMatrix(c0: SIMD4(f[0], f[3], f[6], 0), c1: SIMD4(f[1], f[4], f[7], 0), c2: SIMD4(f[2], f[5], f[8], 0),
                            offset: SIMD4(f[9], f[10], f[11], 0))
        hasMatrix = lut.matrix != nil
        var toXYZ = 1.0
        isLab = lut.pcs != .xyz
        labBias = SIMD4(0, -128, -128, 0)
        switch lut.pcs {
        case .xyz:
            toXYZ = 65535.0 / 32768
            labScale = .zero
        case .lab:
            labScale = SIMD4(100, 255, 255, 0)
        case .labV2:
            labScale = SIMD4(Float(65535.0 / 65280 * 100), Float(65535.0 / 256), Float(65535.0 / 256), 0)
        }
        func column(_ c: Int) -> SIMD4<Float> {
            SIMD4(Float(m[c] * toXYZ), Float(m[3 + c] * toXYZ), Float(m[6 + c] * toXYZ), 0)
        }
        toSRGB = PostMatrix(c0: column(0), c1: column(1), c2: column(2), offset: .zero)
        grayScale = Float(toXYZ)
        encode = SRGBRowConverter.encodeTable()
    }

    /// Three curves as Float tables, or empty when each is within a 16-bit step of y = x.
    static func table(_ curves: [ICCToneCurve]) -> [Float] {
        guard curves.count == 3 else { return [] }
        var table: [Float] = []
        table.reserveCapacity(3 * curveEntries)
        var identity = true
        for curve in curves {
            for i in 0 ..< curveEntries {
                let x = Double(i) / Double(curveEntries - 1), y = curve.evaluate(x)
                if (y - x).magnitude > 1.0 / 65535 { identity = false }
                table.append(Float(y))
            }
        }
        return identity ? [] : table
    }

    /// Whether rows go through `grid`: 8-bit CMYK without alpha.
    var usesGrid: Bool { grid != nil && !exactCMYK && sampleBits == 8 && channels == 4 }

    /// Converts `width` pixels; the caller (`SRGBRowConverter.convert`) has checked that both
    /// rows hold them (`channels` samples of 1 or 2 bytes in, `outputChannels` bytes out).
    mutating func convert(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ width: Int) {
        if usesGrid, var grid = grid.take() {
            // Taken out of `self` while it fills, so that its arrays stay uniquely referenced
            // (written in place) while the chain below reads `self`.
            defer { self.grid = grid }
            let chain = self
            grid.fill(row: s, width: width) { chain.nodeCode($0, $1, $2, $3) }
            grid.convert(s, d, width)
            return
        }
        cells.withUnsafeBufferPointer { cellTable in
            fractions.withUnsafeBufferPointer { fractionTable in
                nodes.withUnsafeBufferPointer { grid in
                    mCurves.withUnsafeBufferPointer { m in
                        bCurves.withUnsafeBufferPointer { b in
                            encode.withUnsafeBufferPointer { e in
                                run(s, d, width, cellTable, fractionTable, grid, m, b, e)
                            }
                        }
                    }
                }
            }
        }
    }

    private func run(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ width: Int,
                     _ cellTable: UnsafeBufferPointer<Int32>, _ fractionTable: UnsafeBufferPointer<Float>,
                     _ grid: UnsafeBufferPointer<SIMD4<Float>>, _ m: UnsafeBufferPointer<Float>,
                     _ b: UnsafeBufferPointer<Float>, _ e: UnsafeBufferPointer<UInt8>) {
        let outChannels = outputChannels, wide = sampleBits == 16
        let s0 = strides[0], s1 = inputs > 1 ? strides[1] : 0, s2 = inputs > 2 ? strides[2] : 0
        let s3 = inputs > 3 ? strides[3] : 0
        var code = (0, 0, 0, 0)
        // SAFETY: x < width, the pixel count both rows were checked to hold at entry (as above).
        for x in 0 ..< width {
            @inline(__always) func sample(_ c: Int) -> Int {
                if wide {
                    let at = 2 * (x * channels + c)
                    return Int((UInt32(s[at]) << 8 | UInt32(s[at + 1])) &* 255 &+ 32767) / 65535
                }
                return Int(s[x * channels + c])
            }
            code.0 = sample(0)
            if inputs > 1 {
                code.1 = 256 + sample(1)
                code.2 = 512 + sample(2)
            }
            if inputs > 3 { code.3 = 768 + sample(3) }
            var v: SIMD4<Float>
            switch inputs {
            case 1:
                let o = Int(cellTable[code.0]), f = fractionTable[code.0]
                v = grid[o] + (grid[o + s0] - grid[o]) * f
            case 3:
                let o = Int(cellTable[code.0] &+ cellTable[code.1] &+ cellTable[code.2])
                v = Self.tetrahedral(grid, o, s0, s1, s2, fractionTable[code.0], fractionTable[code.1],
                                     fractionTable[code.2])
            default:
                let o = Int(cellTable[code.0] &+ cellTable[code.1] &+ cellTable[code.2] &+ cellTable[code.3])
                let fy = fractionTable[code.1], fz = fractionTable[code.2], fk = fractionTable[code.3]
                let near = Self.tetrahedral(grid, o, s1, s2, s3, fy, fz, fk)
                let far = Self.tetrahedral(grid, o + s0, s1, s2, s3, fy, fz, fk)
                v = near + (far - near) * fractionTable[code.0]
            }
            let linear = linearSRGB(v, m, b)
            let o = x * outChannels
            if inputs == 1 {
                d[o] = e[Self.encodeIndex(linear[1])]
            } else {
                d[o] = e[Self.encodeIndex(linear[0])]
                d[o + 1] = e[Self.encodeIndex(linear[1])]
                d[o + 2] = e[Self.encodeIndex(linear[2])]
            }
            if outChannels == 2 || outChannels == 4 {
                let at = x * channels + inputs
                d[o + outChannels - 1] = wide
                    ? UInt8(((UInt32(s[2 * at]) << 8 | UInt32(s[2 * at + 1])) &* 255 &+ 32767) / 65535) : s[at]
            }
        }
    }

    /// The chain at the resampled grid's node (i, j, k, l) (inks i/16 … l/16), as sRGB codes
    /// 0…255: the per-pixel steps below, with the encoding computed rather than looked up.
    func nodeCode(_ i: Int, _ j: Int, _ k: Int, _ l: Int) -> SIMD4<Float> {
        let n = CMYKCodeGrid.points
        let c = i, m = n + j, y = 2 * n + k, kk = 3 * n + l
        let o = Int(nodeCells[c] + nodeCells[m] + nodeCells[y] + nodeCells[kk])
        let linear = nodes.withUnsafeBufferPointer { grid in
            mCurves.withUnsafeBufferPointer { mt in
                bCurves.withUnsafeBufferPointer { bt in
                    let near = Self.tetrahedral(grid, o, strides[1], strides[2], strides[3], nodeFractions[m],
                                                nodeFractions[y], nodeFractions[kk])
                    let far = Self.tetrahedral(grid, o + strides[0], strides[1], strides[2], strides[3],
                                               nodeFractions[m], nodeFractions[y], nodeFractions[kk])
                    return linearSRGB(near + (far - near) * nodeFractions[c], mt, bt)
                }
            }
        }
        func code(_ v: Float) -> Float {
            Float(SRGBCurve.encode(Double(Self.clamp01(v))) * 255)
        }
        return SIMD4(code(linear[0]), code(linear[1]), code(linear[2]), 0)
    }

    /// Linear light to the encoding table's index, 0…2^14. Lane by lane in scalars: the
    /// generic SIMD conversions and clamps are calls, not instructions.
    @inline(__always)
    private static func encodeIndex(_ linear: Float) -> Int {
        // Clamped first (two compares the compiler turns into min/max), so the conversion
        // never meets NaN or a value out of range.
        Int(Int32(clamp01(linear) * encodeSteps + 0.5))
    }

    @inline(__always)
    private static func clamp01(_ v: Float) -> Float { Swift.min(Swift.max(v, 0), 1) }

    /// CIE 15's inverse of f: t³ above 6/29, the straight segment below.
    @inline(__always)
    private static func inverseF(_ t: Float) -> Float {
        t > Float(6.0 / 29) ? t * t * t : (t - Float(4.0 / 29)) * Float(3 * (6.0 / 29) * (6.0 / 29))
    }

    /// One tetrahedral step over the cube at `o` with strides a, b, c and fractions x, y, z.
    @inline(__always)
    private static func tetrahedral(_ n: UnsafeBufferPointer<SIMD4<Float>>, _ o: Int, _ a: Int, _ b: Int, _ c: Int,
                                    _ x: Float, _ y: Float, _ z: Float) -> SIMD4<Float> {
        let (first, second, w) = ICCCLUT.tetrahedron(x, y, z, a, b, c)
        // Wrapping adds: the bounds are proven by the caller, and a checked add is a branch.
        let c0 = n[o], c1 = n[o &+ first], c2 = n[o &+ second], c3 = n[o &+ a &+ b &+ c]
        return c0 + (c1 - c0) * w.0 + (c2 - c1) * w.1 + (c3 - c2) * w.2
    }

    /// The stages after the CLUT: M curves, matrix and B curves to the PCS, then linear sRGB
    /// (lane 1 is the PCS Y for gray).
    @inline(__always)
    private func linearSRGB(_ clut: SIMD4<Float>, _ m: UnsafeBufferPointer<Float>,
                            _ b: UnsafeBufferPointer<Float>) -> SIMD4<Float> {
        var v = clut
        if !m.isEmpty { v = Self.curves(m, v) }
        if hasMatrix {
            let u = matrix.c0 * v[0] + matrix.c1 * v[1] + matrix.c2 * v[2] + matrix.offset
            v = SIMD4(Self.clamp01(u[0]), Self.clamp01(u[1]), Self.clamp01(u[2]), 0)
        }
        if !b.isEmpty { v = Self.curves(b, v) }
        if isLab {
            // CIE 15: f(Y) = (L* + 16) / 116, f(X) = f(Y) + a* / 500, f(Z) = f(Y) − b* / 200,
            // as products (a division is several times a multiplication's latency).
            let l = v * labScale + labBias
            let fy = (l[0] + 16) * Float(1.0 / 116)
            v = SIMD4(Self.inverseF(fy + l[1] * Float(1.0 / 500)), Self.inverseF(fy),
                      Self.inverseF(fy - l[2] * Float(1.0 / 200)), 0) * white
        }
        if inputs == 1 { return SIMD4(0, v[1] * grayScale, 0, 0) }
        return toSRGB.c0 * v[0] + toSRGB.c1 * v[1] + toSRGB.c2 * v[2]
    }

    /// Three lanes through their curve tables, interpolated.
    @inline(__always)
    private static func curves(_ t: UnsafeBufferPointer<Float>, _ v: SIMD4<Float>) -> SIMD4<Float> {
        @inline(__always) func lane(_ c: Int) -> Float {
            let position = clamp01(v[c]) * Float(curveEntries - 1)
            let i = min(Int(position), curveEntries - 2), f = position - Float(i)
            let at = c * curveEntries + i
            return t[at] + (t[at + 1] - t[at]) * f
        }
        return SIMD4(lane(0), lane(1), lane(2), 0)
    }
}
