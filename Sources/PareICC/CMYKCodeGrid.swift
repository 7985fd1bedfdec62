/// A CMYK profile's whole chain resampled onto a grid of 17 points per ink whose nodes hold
/// sRGB codes: the fast path of `LUTRowConverter` for 8-bit CMYK rows.
///
/// ICC.1 leaves the evaluation of a transform to the CMM. Evaluating a CMYK profile's chain
/// for every pixel (A curves, the CLUT's two tetrahedral steps and a linear one, M and B
/// curves, Lab to XYZ, the matrix to linear sRGB, the encoding) costs several hundred
/// instructions; LittleCMS's default 8-bit transform instead samples the chain once on a
/// 17-point grid per input and interpolates that grid, and so does this type: a pixel is
/// one 4-D interpolation (tetrahedral among M, Y and K at C's two neighbouring nodes, then
/// linear along C, as `ICCCLUT.interpolate` orders a 4-input grid), already in sRGB codes.
///
/// Nodes are evaluated when a pixel first falls in one of their cells (`fill`), so a
/// thumbnail pays for the part of the ink space its picture covers, not all 83,521 nodes.
/// The price is the grid's: between nodes, the chain's curvature is approximated linearly
/// in sRGB codes. Where a profile's own grid bends hard between its nodes (ghostscript's
/// `ps_cmyk.icc`, 5 points), the two evaluations differ by up to 15 codes in deep shadows,
/// as LittleCMS's own exact and precalculated transforms do; `Tests/cli/lut-compare.sh`
/// measures both against LittleCMS's. The plain per-pixel evaluation stays beside it
/// (`LUTRowConverter.exactCMYK`) as its oracle.
struct CMYKCodeGrid: Sendable {
    /// Nodes per ink (LittleCMS's default for four inputs).
    static let points = 17
    static let nodeCount = points * points * points * points
    /// 1.5 · 2^23: added to a Float of 0…2^22, it leaves the value rounded to an integer in
    /// the low bits of the mantissa.
    static let roundingBias = SIMD4<Float>(repeating: 12_582_912)
    /// What the grid holds once its first row arrives: the nodes and the two sets of flags.
    static let bytes = nodeCount * (MemoryLayout<SIMD4<Float>>.stride + 2 * MemoryLayout<Bool>.stride)
    /// Nodes between neighbours along C, M, Y and K (C varies slowest).
    static let strides = (points * points * points, points * points, points, 1)

    /// Per ink (C, M, Y, K, 256 entries each): for each code, the offset of its lower node
    /// along that ink (kept below the last node, so the upper one exists) and the fraction
    /// past it. Code v lies at v · 16 / 255 nodes.
    let cells: [Int32]
    let fractions: [Float]
    /// The nodes' sRGB codes, 0…255 as Float (lane 3 unused); empty until the first row.
    var nodes: [SIMD4<Float>] = []
    /// Whether each node is evaluated, and whether each cell (named by its lowest node)
    /// has all sixteen of its corners evaluated.
    var nodeDone: [Bool] = []
    var cellDone: [Bool] = []

    init() {
        var cells: [Int32] = [], fractions: [Float] = []
        cells.reserveCapacity(4 * 256)
        fractions.reserveCapacity(4 * 256)
        let stride = [Self.strides.0, Self.strides.1, Self.strides.2, Self.strides.3]
        for ink in 0 ..< 4 {
            for v in 0 ..< 256 {
                let cell = ICCCLUT.cell(Double(v) / 255, points: Self.points)
                cells.append(Int32(cell.index * stride[ink]))
                fractions.append(Float(cell.fraction))
            }
        }
        self.cells = cells
        self.fractions = fractions
    }

    /// Makes sure every cell the row's pixels fall in has its corners evaluated, by
    /// `evaluate(node)` (the chain at inks i/16, j/16, k/16, l/16, as sRGB codes).
    mutating func fill(row s: UnsafePointer<UInt8>, width: Int, evaluate: (Int, Int, Int, Int) -> SIMD4<Float>) {
        if nodes.isEmpty {
            nodes = [SIMD4<Float>](repeating: .zero, count: Self.nodeCount)
            nodeDone = [Bool](repeating: false, count: Self.nodeCount)
            cellDone = [Bool](repeating: false, count: Self.nodeCount)
        }
        var x = 0
        while let cell = firstCellToFill(s, from: x, width) {
            fill(cell: cell.offset, evaluate: evaluate)
            x = cell.pixel
        }
    }

    /// The first pixel from `start` on whose cell is not filled yet, and that cell.
    private func firstCellToFill(_ s: UnsafePointer<UInt8>, from start: Int, _ width: Int) -> (pixel: Int, offset: Int)? {
        cells.withUnsafeBufferPointer { cellTable in
            cellDone.withUnsafeBufferPointer { done in
                // SAFETY: start ≤ x < width, the pixel count the caller checked the row holds
                // (4 bytes each); a cell offset is below the node count `done` holds.
                for x in start ..< width {
                    let p = s + 4 &* x
                    let o = Int(cellTable[Int(p[0])] &+ cellTable[256 &+ Int(p[1])] &+ cellTable[512 &+ Int(p[2])]
                        &+ cellTable[768 &+ Int(p[3])])
                    if !done[o] { return (x, o) }
                }
                return nil
            }
        }
    }

    private mutating func fill(cell: Int, evaluate: (Int, Int, Int, Int) -> SIMD4<Float>) {
        let n = Self.points
        for corner in 0 ..< 16 {
            let node = cell + (corner >> 3) * Self.strides.0 + (corner >> 2 & 1) * Self.strides.1
                + (corner >> 1 & 1) * Self.strides.2 + (corner & 1)
            if nodeDone[node] { continue }
            nodes[node] = evaluate(node / Self.strides.0, node / Self.strides.1 % n, node / n % n, node % n)
            nodeDone[node] = true
        }
        cellDone[cell] = true
    }

    /// Converts `width` CMYK pixels (4 bytes each) to RGB (3 bytes each); `fill` has
    /// evaluated every cell they fall in.
    func convert(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ width: Int) {
        cells.withUnsafeBufferPointer { cellTable in
            fractions.withUnsafeBufferPointer { fractionTable in
                nodes.withUnsafeBufferPointer { grid in
                    let bias = Self.roundingBias
                    // Bounds: a cell offset is at most 15 nodes along each ink, so the cell's
                    // highest corner (one stride more per ink) is within the 17^4 nodes; a
                    // table index is 256 · ink + a byte.
                    @inline(__always) func pixel(_ x: Int) -> SIMD4<UInt8> {
                        let (s0, s1, s2, s3) = Self.strides
                        let p = s + 4 &* x
                        let c = Int(p[0]), m = 256 &+ Int(p[1]), y = 512 &+ Int(p[2]), k = 768 &+ Int(p[3])
                        let o = Int(cellTable[c] &+ cellTable[m] &+ cellTable[y] &+ cellTable[k])
                        let (first, second, w) = ICCCLUT.tetrahedron(fractionTable[m], fractionTable[y],
                                                                     fractionTable[k], s1, s2, s3)
                        let last = s1 &+ s2 &+ s3
                        // Weights as whole vectors: a vector times a scalar here leads the
                        // optimiser to split the lanes apart.
                        let w0 = SIMD4<Float>(repeating: w.0), w1 = SIMD4<Float>(repeating: w.1)
                        let w2 = SIMD4<Float>(repeating: w.2), fc = SIMD4<Float>(repeating: fractionTable[c])
                        // Linear along C between its two neighbouring nodes, then tetrahedral
                        // among M, Y and K (the same as the other way round: both are linear).
                        let o1 = o &+ s0
                        let a0 = grid[o], a1 = grid[o &+ first], a2 = grid[o &+ second], a3 = grid[o &+ last]
                        let b0 = grid[o1], b1 = grid[o1 &+ first], b2 = grid[o1 &+ second], b3 = grid[o1 &+ last]
                        let c0 = a0 + (b0 - a0) * fc, c1 = a1 + (b1 - a1) * fc
                        let c2 = a2 + (b2 - a2) * fc, c3 = a3 + (b3 - a3) * fc
                        // The nodes are 0…255, so is any weighted mean of them: no clamp. Adding
                        // 1.5 · 2^23 makes the ulp 1, so the low mantissa bits are the value
                        // rounded to the nearest code: a vector add, not three checked
                        // conversions.
                        let v = c0 + (c1 - c0) * w0 + (c2 - c1) * w1 + (c3 - c2) * w2 + bias
                        return SIMD4<UInt8>(truncatingIfNeeded: unsafeBitCast(v, to: SIMD4<UInt32>.self))
                    }
                    // All four lanes stored, the fourth landing on the next pixel's first byte
                    // (written over next): a vector whose every lane is used stays a vector.
                    // SAFETY: x < width − 1: pixel x's four bytes end at 3x + 4 ≤ 3 · width.
                    for x in 0 ..< width &- 1 {
                        UnsafeMutableRawPointer(d + 3 &* x).storeBytes(of: unsafeBitCast(pixel(x), to: UInt32.self),
                                                                      as: UInt32.self)
                    }
                    // SAFETY: width ≥ 1 (checked by `SRGBRowConverter.convert`): the last pixel.
                    let code = pixel(width &- 1), q = d + 3 &* (width &- 1)
                    q[0] = code[0]
                    q[1] = code[1]
                    q[2] = code[2]
                }
            }
        }
    }
}
