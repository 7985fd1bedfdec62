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
    /// Nodes between neighbours along each input.
    let strides: [Int]
    let nodes: [SIMD4<Float>]
    /// Three curves, `curveEntries` each, or empty for the identity.
    let mCurves: [Float]
    let bCurves: [Float]
    /// lutAToBType's matrix as columns, and its offsets; nil without one.
    let matrix: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)?
    /// Lab: L*, a*, b* = value · scale + bias. XYZ: nil.
    let lab: (scale: SIMD4<Float>, bias: SIMD4<Float>)?
    /// PCS XYZ (in the encoding's units for an XYZ PCS) to linear sRGB, as columns.
    let toSRGB: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)
    /// Gray: the PCS Y in the encoding's units to Y.
    let grayScale: Float
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
        var cells: [Int32] = [], fractions: [Float] = []
        for c in 0 ..< inputs {
            for v in 0 ..< 256 {
                let x = Double(v) / 255
                let y = lut.aCurves.count == inputs ? lut.aCurves[c].evaluate(x) : x
                let cell = ICCCLUT.cell(y, points: grid[c])
                cells.append(Int32(cell.index * strides[c]))
                fractions.append(Float(cell.fraction))
            }
        }
        self.cells = cells
        self.fractions = fractions
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
        if let e = lut.matrix {
            let f = e.map(Float.init)
            matrix = (SIMD4(f[0], f[3], f[6], 0), SIMD4(f[1], f[4], f[7], 0), SIMD4(f[2], f[5], f[8], 0),
                      SIMD4(f[9], f[10], f[11], 0))
        } else {
            matrix = nil
        }
        var toXYZ = 1.0
        switch lut.pcs {
        case .xyz:
            lab = nil
            toXYZ = 65535.0 / 32768
        case .lab:
            lab = (SIMD4(100, 255, 255, 0), SIMD4(0, -128, -128, 0))
        case .labV2:
            lab = (SIMD4(Float(65535.0 / 65280 * 100), Float(65535.0 / 256), Float(65535.0 / 256), 0),
                   SIMD4(0, -128, -128, 0))
        }
        func column(_ c: Int) -> SIMD4<Float> {
            SIMD4(Float(m[c] * toXYZ), Float(m[3 + c] * toXYZ), Float(m[6 + c] * toXYZ), 0)
        }
        toSRGB = (column(0), column(1), column(2))
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

    /// Converts `width` pixels; the caller (`SRGBRowConverter.convert`) has checked that both
    /// rows hold them.
    func convert(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ width: Int) {
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
        var code = SIMD4<Int>(repeating: 0)
        // SAFETY: pixel x's samples lie within both rows for x < width (checked by the
        // caller); a cell or fraction index is c·256 + a byte < inputs·256; a cell's offset
        // plus one stride per input is at most the last node (lower indices stop at points − 2);
        // curve indices are < 4096 + 1 per curve and encoding indices 0…2^14 (clamped).
        for x in 0 ..< width {
            for c in 0 ..< inputs {
                if wide {
                    let at = 2 * (x * channels + c)
                    code[c] = Int((UInt32(s[at]) << 8 | UInt32(s[at + 1])) &* 255 &+ 32767) / 65535
                } else {
                    code[c] = Int(s[x * channels + c])
                }
            }
            var v: SIMD4<Float>
            switch inputs {
            case 1:
                let o = Int(cellTable[code[0]]), f = fractionTable[code[0]]
                v = grid[o] + (grid[o + s0] - grid[o]) * f
            case 3:
                let o = Int(cellTable[code[0]] &+ cellTable[256 + code[1]] &+ cellTable[512 + code[2]])
                v = Self.tetrahedral(grid, o, s0, s1, s2, fractionTable[code[0]], fractionTable[256 + code[1]],
                                     fractionTable[512 + code[2]])
            default:
                let o = Int(cellTable[256 + code[1]] &+ cellTable[512 + code[2]] &+ cellTable[768 + code[3]])
                let base = Int(cellTable[code[0]])
                let fy = fractionTable[256 + code[1]], fz = fractionTable[512 + code[2]], fk = fractionTable[768 + code[3]]
                let near = Self.tetrahedral(grid, base + o, s1, s2, s3, fy, fz, fk)
                let far = Self.tetrahedral(grid, base + s0 + o, s1, s2, s3, fy, fz, fk)
                v = near + (far - near) * fractionTable[code[0]]
            }
            let linear = toLinearSRGB(v, m, b)
            let index = SIMD4<Int32>((linear.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 1))
                * Self.encodeSteps + 0.5).rounded(.down))
            let o = x * outChannels
            if inputs == 1 {
                d[o] = e[Int(index[1])]
            } else {
                d[o] = e[Int(index[0])]
                d[o + 1] = e[Int(index[1])]
                d[o + 2] = e[Int(index[2])]
            }
            if outChannels == 2 || outChannels == 4 {
                let at = x * channels + inputs
                d[o + outChannels - 1] = wide
                    ? UInt8(((UInt32(s[2 * at]) << 8 | UInt32(s[2 * at + 1])) &* 255 &+ 32767) / 65535) : s[at]
            }
        }
    }

    /// One tetrahedral step over the cube at `o` with strides a, b, c and fractions x, y, z.
    @inline(__always)
    private static func tetrahedral(_ n: UnsafeBufferPointer<SIMD4<Float>>, _ o: Int, _ a: Int, _ b: Int, _ c: Int,
                                    _ x: Float, _ y: Float, _ z: Float) -> SIMD4<Float> {
        let c0 = n[o], c3 = n[o + a + b + c]
        if x >= y {
            if y >= z {
                let c1 = n[o + a], c2 = n[o + a + b]
                return c0 + (c1 - c0) * x + (c2 - c1) * y + (c3 - c2) * z
            }
            if x >= z {
                let c1 = n[o + a], c2 = n[o + a + c]
                return c0 + (c1 - c0) * x + (c2 - c1) * z + (c3 - c2) * y
            }
            let c1 = n[o + c], c2 = n[o + a + c]
            return c0 + (c1 - c0) * z + (c2 - c1) * x + (c3 - c2) * y
        }
        if x >= z {
            let c1 = n[o + b], c2 = n[o + a + b]
            return c0 + (c1 - c0) * y + (c2 - c1) * x + (c3 - c2) * z
        }
        if y >= z {
            let c1 = n[o + b], c2 = n[o + b + c]
            return c0 + (c1 - c0) * y + (c2 - c1) * z + (c3 - c2) * x
        }
        let c1 = n[o + c], c2 = n[o + b + c]
        return c0 + (c1 - c0) * z + (c2 - c1) * y + (c3 - c2) * x
    }

    /// The CLUT's output through M curves, matrix and B curves to the PCS, then linear sRGB
    /// (lane 1 is the PCS Y for gray).
    @inline(__always)
    private func toLinearSRGB(_ clut: SIMD4<Float>, _ m: UnsafeBufferPointer<Float>,
                              _ b: UnsafeBufferPointer<Float>) -> SIMD4<Float> {
        var v = clut
        if !m.isEmpty { v = Self.curves(m, v) }
        if let (c0, c1, c2, offset) = matrix {
            v = (c0 * v[0] + c1 * v[1] + c2 * v[2] + offset).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 1))
        }
        if !b.isEmpty { v = Self.curves(b, v) }
        if let (scale, bias) = lab {
            let l = v * scale + bias
            let fy = (l[0] + 16) / 116
            let f = SIMD4<Float>(fy + l[1] / 500, fy, fy - l[2] / 200, 0)
            let cube = f * f * f
            let line = (f - 4.0 / 29) * Float(3 * (6.0 / 29) * (6.0 / 29))
            v = cube.replacing(with: line, where: f .<= Float(6.0 / 29))
                * SIMD4(Float(ColourPrimaries.d50.x), 1, Float(ColourPrimaries.d50.z), 0)
        }
        if inputs == 1 { return SIMD4(0, v[1] * grayScale, 0, 0) }
        return toSRGB.0 * v[0] + toSRGB.1 * v[1] + toSRGB.2 * v[2]
    }

    /// Three lanes through their curve tables, interpolated.
    @inline(__always)
    private static func curves(_ t: UnsafeBufferPointer<Float>, _ v: SIMD4<Float>) -> SIMD4<Float> {
        let position = v.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 1)) * Float(curveEntries - 1)
        var out = SIMD4<Float>.zero
        for lane in 0 ..< 3 {
            let i = min(Int(position[lane]), curveEntries - 2), f = position[lane] - Float(i)
            let at = lane * curveEntries + i
            out[lane] = t[at] + (t[at + 1] - t[at]) * f
        }
        return out
    }
}
