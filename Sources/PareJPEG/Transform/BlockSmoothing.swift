import PareCore

/// Interblock smoothing of an unfinished progression (T.81 K.8): when a progressive image
/// ends before its low-frequency AC coefficients are complete (a truncated download, a scan
/// script that never refines them), each block's first nine AC coefficients, zig-zag 1…9, are
/// estimated from the DC values of the 5×5 blocks around it, and when a component received
/// no AC data at all its DC is re-estimated too.
///
/// K.8 describes a 3×3 neighbourhood; libjpeg-turbo 2.1 and later use 5×5 kernels, and
/// `djpeg`'s output of such a file depends on them, so the weights here are those. A
/// coefficient is estimated only when it is still zero and not known to be final, and the
/// estimate is rounded to the nearest multiple of its quantiser and capped below 2^Al, the
/// step the missing bit planes could still add.
///
/// Which coefficients count as unfinished follows the scans that were read: each scan
/// header moves its band to bit position Al (T.81 G.1.1.1.2), decoded or not. When the last
/// scan stopped short (the data ended), the MCU rows after the last one it reached use the
/// state from before that scan.
struct BlockSmoothing {
    /// The coefficients the kernels estimate, by zig-zag index 0…9, in natural order
    /// (T.81 Figure A.6).
    static let natural = [0, 1, 8, 16, 9, 2, 3, 10, 17, 24]

    /// Per component: what `CoefficientStore.Plane` records of the progression.
    struct Component {
        /// Bit position of zig-zag 0…9 after every scan (−1: none received).
        var bits: [Int]
        /// The same before the last scan that coded this component (−1 if there was none).
        var bitsBefore: [Int]
        /// Which of the ten the store keeps, bit k for zig-zag k (the others are never read by
        /// the IDCT).
        var kept: Int
    }

    let components: [Component]
    /// The last MCU row the final scan reached; later rows use `bitsBefore`.
    let lastGoodRow: Int

    /// Nil when smoothing does not apply: the progression is complete, some component has no
    /// DC yet, or a quantiser it would divide by is zero. Also when the decode stopped early,
    /// once every kept coefficient was final: the rest of the file is then never seen, so it is
    /// taken to complete the progression, as every encoder's scan script does. (A script that
    /// sends no AC band at all for a component, decoded at 1/8, is where this differs from
    /// `djpeg`, which reads on and re-estimates that component's DC.)
    init?(store: CoefficientStore) {
        guard !store.stoppedEarly else { return nil }
        var useful = false
        var components: [Component] = []
        for plane in store.planes {
            guard plane.latched, plane.scanBits[0] >= 0 else { return nil }
            // `apply` divides by the plane's quantisers of the ten coefficients (1 … 65535:
            // DQT's 8- or 16-bit values), latched before the first scan and fixed since.
            for n in Self.natural where plane.quantizers[n] == 0 { return nil }
            for k in 1 ..< 10 where plane.scanBits[k] != 0 { useful = true }
            let before = store.scansSeen > 1 ? plane.bitsBeforeLastScan : [Int](repeating: -1, count: 10)
            components.append(Component(bits: plane.scanBits, bitsBefore: before,
                                        kept: (0 ..< 10).reduce(0) {
                                            plane.positions.contains(Self.natural[$1]) ? $0 | 1 << $1 : $0
                                        }))
        }
        guard useful else { return nil }
        self.components = components
        lastGoodRow = store.lastGoodRow ?? Int.max
    }

    /// 5×5 kernels over the neighbours' DC values, rows top to bottom, one after another by
    /// zig-zag index. `withAC`: some AC data arrived, only zig-zag 1…5 are estimated (its
    /// first kernel is zig-zag 1's). `dcOnly`: none did, zig-zag 0…9 are, keeping the local
    /// DC average. (16-bit entries in one array each: the tables are constants in flash,
    /// 3.5 KB smaller than as 64-bit ones, and one array is one constant, not one a kernel.)
    static let withAC: [Int16] = [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -7, 50, 0, -50, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, -7, 0, 0, 0, 0, 50, 0, 0, 0, 0, 0, 0, 0, 0, 0, -50, 0, 0, 0, 0, 7, 0, 0,
        0, 0, -1, 0, 0, 0, 0, 13, 0, 0, 0, 0, -24, 0, 0, 0, 0, 13, 0, 0, 0, 0, -1, 0, 0,
        0, -1, 0, 1, 0, -1, 10, 0, -10, 1, 0, 0, 0, 0, 0, 1, -10, 0, 10, -1, 0, 1, 0, -1, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 13, -24, 13, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ]
    static let dcOnly: [Int16] = [
        -2, -6, -8, -6, -2, -6, 6, 42, 6, -6, -8, 42, 152, 42, -8, -6, 6, 42, 6, -6, -2, -6, -8, -6, -2,
        -1, -1, 0, 1, 1, -3, 13, 0, -13, 3, -3, 38, 0, -38, 3, -3, 13, 0, -13, 3, -1, -1, 0, 1, 1,
        -1, -3, -3, -3, -1, -1, 13, 38, 13, -1, 0, 0, 0, 0, 0, 1, -13, -38, -13, 1, 1, 3, 3, 3, 1,
        0, 0, 1, 0, 0, 0, 2, 7, 2, 0, 0, -5, -14, -5, 0, 0, 2, 7, 2, 0, 0, 0, 1, 0, 0,
        -1, 0, 0, 0, 1, 0, 9, 0, -9, 0, 0, 0, 0, 0, 0, 0, -9, 0, 9, 0, 1, 0, 0, 0, -1,
        0, 0, 0, 0, 0, 0, 2, -5, 2, 0, 1, 7, -14, 7, 1, 0, 2, -5, 2, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 1, 0, -1, 0, 0, 2, 0, -2, 0, 0, 1, 0, -1, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 1, -3, 1, 0, 0, 0, 0, 0, 0, 0, -1, 3, -1, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 1, 0, -1, 0, 0, -3, 0, 3, 0, 0, 1, 0, -1, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 1, 2, 1, 0, 0, 0, 0, 0, 0, 0, -1, -2, -1, 0, 0, 0, 0, 0, 0,
    ]

    /// Where the block of a component sits: its MCU row, its block row within that MCU row,
    /// and its block column.
    struct Position {
        var mcuRow: Int
        var rowInMCU: Int
        var column: Int
    }

    /// Writes the estimates for one block into `coefficients` (natural order, already holding
    /// the block's kept values). Blocks outside the component's real blocks are left as they are.
    ///
    /// The neighbours are those libjpeg-turbo 2.1 reads, so that the output matches `djpeg`
    /// of that version: rows and columns past the edges repeat the edge, except that with two
    /// block rows to an MCU row the row two above is taken to be the row above in the second
    /// MCU row, and the row two below to be the row below in the next-to-last one; and in a
    /// component two blocks wide the column two to the right is taken from the first column
    /// (in the second column, also the one to the right). Later libjpeg-turbo versions fixed
    /// both; the difference is a fraction of a level in the rows concerned.
    func apply(component c: Int, plane: CoefficientStore.Plane, at position: Position, mcuRows: Int,
               rowsPerMCU: Int, coefficients: UnsafeMutablePointer<Int16>) {
        let info = components[c]
        let last = mcuRows - 1, mcuRow = position.mcuRow, y = position.rowInMCU
        var rowsHere = rowsPerMCU
        if mcuRow == last {
            rowsHere = plane.codedHigh % rowsPerMCU
            if rowsHere == 0 { rowsHere = rowsPerMCU }
        }
        guard y < rowsHere, position.column < plane.codedWide else { return }
        let bits = mcuRow > lastGoodRow ? info.bitsBefore : info.bits
        var dcOnly = true
        for k in 1 ..< 10 where bits[k] != -1 { dcOnly = false }

        let row = mcuRow * rowsPerMCU + y
        let up = y > 0 || mcuRow > 0 ? row - 1 : row
        let upUp = y > 1 || mcuRow > 1 ? row - 2 : up
        let down = y < rowsHere - 1 || mcuRow < last ? row + 1 : row
        let downDown = y < rowsHere - 2 || mcuRow + 1 < last ? row + 2 : down
        let x = position.column, lastColumn = plane.codedWide - 1
        // The neighbourhood's block rows and columns, edges repeated (and libjpeg-turbo 2.1's
        // columns in a component two blocks wide: see above), computed in place rather than
        // kept in arrays, since this runs for every block.
        func neighbourRow(_ i: Int) -> Int {
            let r = i == 0 ? upUp : i == 1 ? up : i == 2 ? row : i == 3 ? down : downDown
            return min(max(r, 0), plane.blocksHigh - 1)
        }
        func neighbourColumn(_ j: Int) -> Int {
            lastColumn == 1 && (j == 4 || (j == 3 && x == 1)) ? 0 : min(max(x + j - 2, 0), lastColumn)
        }
        var dc = [Int](repeating: 0, count: 25)
        let values = plane.values.baseAddress, kept = plane.kept, wide = plane.blocksWide
        for n in 0 ..< 25 { dc[n] = Int(values[(neighbourRow(n / 5) * wide + neighbourColumn(n % 5)) * kept]) }

        let kernels = dcOnly ? Self.dcOnly : Self.withAC
        // The zig-zag index of the first kernel: `withAC` starts at 1.
        let first = dcOnly ? 0 : 1
        let quantizers = plane.quantizers.baseAddress
        let q00 = Int(quantizers[0])
        for k in 1 ..< first + kernels.count / 25 {
            let al = bits[k], n = Self.natural[k]
            guard al != 0, info.kept & 1 << k != 0, coefficients[n] == 0 else { continue }
            coefficients[n] = Int16(truncatingIfNeeded: Self.estimate(kernels, k - first, dc, q00, Int(quantizers[n]),
                                                                      cap: al))
        }
        if dcOnly && info.kept & 1 != 0 {
            coefficients[0] = Int16(truncatingIfNeeded: Self.estimate(kernels, 0, dc, q00, q00, cap: 0))
        }
    }

    /// Σ kernel·DC, with kernel number `kernel` of `kernels`, scaled by Q00/Q, over 256 (the
    /// kernels' scale), rounded half away from zero; with `cap` = Al > 0 the magnitude stays
    /// below 2^Al. The caller keeps the low 16 bits, as libjpeg stores it in a JCOEF.
    static func estimate(_ kernels: [Int16], _ kernel: Int, _ dc: [Int], _ q00: Int, _ q: Int,
                         cap al: Int) -> Int {
        // The DC values are Int16 and a kernel's weights add up to at most 432 in magnitude
        // (`dcOnly`'s first), so |sum| ≤ 432 · 2^15 < 2^24: exact in a 32-bit Int.
        var sum = 0
        for i in 0 ..< 25 { sum += Int(kernels[kernel * 25 + i]) * dc[i] }
        // ⌊(Q00·|sum| + 128·Q) / (256·Q)⌋ without a 64-bit division (a library call on a 32-bit
        // target): it equals ⌊(⌊Q00·|sum| / Q⌋ + 128) / 256⌋, and with |sum| = a·Q + b (b < Q),
        // ⌊Q00·|sum| / Q⌋ = Q00·a + ⌊Q00·b / Q⌋, where Q00·b < 2^32 (both below 2^16) and
        // Q00·a < 2^40 is only multiplied, in 64 bits.
        let s = UInt32(sum.magnitude), divisor = UInt32(q)
        let a = s / divisor, b = s % divisor
        let quotient = UInt64(q00) &* UInt64(a) &+ UInt64(UInt32(q00) &* b / divisor)
        var magnitude = Int64((quotient &+ 128) >> 8)
        if al > 0 && magnitude >= Int64(1) << Int64(al) { magnitude = (Int64(1) << Int64(al)) - 1 }
        return Int(truncatingIfNeeded: sum < 0 ? -magnitude : magnitude)
    }
}
