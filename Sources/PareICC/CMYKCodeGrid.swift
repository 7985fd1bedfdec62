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

    /// The cell of a CMYK pixel: the sum of its inks' lower-node offsets.
    @inline(__always)
    func cell(_ c: UInt8, _ m: UInt8, _ y: UInt8, _ k: UInt8) -> Int {
        Int(cells[Int(c)] &+ cells[256 &+ Int(m)] &+ cells[512 &+ Int(y)] &+ cells[768 &+ Int(k)])
    }

    /// Makes sure every cell the row's pixels fall in has its corners evaluated, by
    /// `evaluate(node)` (the chain at inks i/16, j/16, k/16, l/16, as sRGB codes).
    mutating func fill(row s: UnsafePointer<UInt8>, width: Int, evaluate: (Int, Int, Int, Int) -> SIMD4<Float>) {
        if nodes.isEmpty {
            nodes = [SIMD4<Float>](repeating: .zero, count: Self.nodeCount)
            nodeDone = [Bool](repeating: false, count: Self.nodeCount)
            cellDone = [Bool](repeating: false, count: Self.nodeCount)
        }
        // SAFETY: x < width, the pixel count the caller checked the row holds (4 bytes each).
        for x in 0 ..< width {
            let p = s + 4 &* x
            let cell = cell(p[0], p[1], p[2], p[3])
            if cellDone[cell] { continue }
            fill(cell: cell, evaluate: evaluate)
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
                    let (s0, s1, s2, s3) = Self.strides
                    // Bounds: a cell offset is at most 15 nodes along each ink, so the cell's
                    // highest corner (one stride more per ink) is within the 17^4 nodes; a
                    // table index is 256 · ink + a byte.
                    let lastPixel = width &- 1
                    var tail = SIMD4<UInt8>()
                    // SAFETY: x < width, the pixel count both rows were checked to hold at entry.
                    for x in 0 ..< width {
                        let p = s + 4 &* x
                        let c = Int(p[0]), m = 256 &+ Int(p[1]), y = 512 &+ Int(p[2]), k = 768 &+ Int(p[3])
                        let o = Int(cellTable[c] &+ cellTable[m] &+ cellTable[y] &+ cellTable[k])
                        let (first, second, w) = ICCCLUT.tetrahedron(fractionTable[m], fractionTable[y],
                                                                     fractionTable[k], s1, s2, s3)
                        let last = s1 &+ s2 &+ s3
                        // Tetrahedral among M, Y and K at C's two neighbouring nodes, then
                        // linear between them.
                        @inline(__always) func corner(_ at: Int) -> SIMD4<Float> {
                            let c0 = grid[at], c1 = grid[at &+ first], c2 = grid[at &+ second], c3 = grid[at &+ last]
                            return c0 + (c1 - c0) * w.0 + (c2 - c1) * w.1 + (c3 - c2) * w.2
                        }
                        let near = corner(o), far = corner(o &+ s0)
                        // The nodes are 0…255, so is any weighted mean of them: no clamp. Adding
                        // 1.5 · 2^23 makes the ulp 1, so the low mantissa bits are the value
                        // rounded to the nearest code: a vector add, not three checked
                        // conversions.
                        let v = near + (far - near) * fractionTable[c] + Self.roundingBias
                        // All four lanes stored, the fourth landing on the next pixel's first
                        // byte (written over next; the row's last pixel is stored after the loop): a
                        // vector whose every lane is used stays a vector.
                        let code = SIMD4<UInt8>(truncatingIfNeeded: unsafeBitCast(v, to: SIMD4<UInt32>.self))
                        let q = d + 3 &* x
                        if x == lastPixel { tail = code } else {
                            UnsafeMutableRawPointer(q).storeBytes(of: unsafeBitCast(code, to: UInt32.self), as: UInt32.self)
                        }
                    }
                    let q = d + 3 &* lastPixel
                    q[0] = tail[0]
                    q[1] = tail[1]
                    q[2] = tail[2]
                }
            }
        }
    }
}
