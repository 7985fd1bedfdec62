import PareCore

/// The quantised DCT coefficients of a progressive frame (T.81 G.1.1: the scans refine them
/// in bands and bit planes, so every block must be kept until the last scan), held per
/// component for the whole image, but only as many as the chosen scale reads.
///
/// What is kept, per component, k being its IDCT size from `ScalePlan`:
/// - exact: every coefficient the transform reads. Full size reads all 64; 1×1 only DC (2
///   bytes a block); the reduced transforms of `InverseDCT` (libjpeg's, so that outputs match
///   `djpeg -scale` bit for bit) read more than the k×k corner: 4×4 reads rows and columns
///   0–3 and 5–7 (49 coefficients), 2×2 reads 0, 1, 3, 5 and 7 (25).
/// - corner: only the k×k low-frequency corner (16 or 4 coefficients). The output then differs
///   from djpeg by the dropped frequencies' share of each 2×2 or 4×4 mean, a few levels on
///   photographs but far more on noise-like content; in exchange the store is three to six
///   times smaller and AC bands above the corner need no decoding at all, so scans are
///   skipped and the file is cut short.
/// The store is exact when the exact sets of all components fit
/// `JPEGOptions.maxExactCoefficientBytes` (8 MiB), and keeps corners otherwise. Photos up to
/// a few megapixels therefore decode exactly as djpeg does at every scale, and a 24 MP 4:2:0
/// photo at 1/8 (luma DC, chroma 2×2 corners) needs 2.25 MB instead of 10.
///
/// Refinement scans (T.81 G.1.2.3) must know which coefficients of their band are already
/// nonzero, kept or not, to parse the bits; a 64-bit map per block records that for the
/// coefficients outside the corner, allocated only once a component gets an AC scan with
/// successive approximation (Al > 0) that touches its corner.
///
/// Under `ProgressiveFidelity.preview` (thumbnails), when the exact sets do not fit, every
/// component keeps the scale's k×k corner, chroma included (at 1/4 a 4:2:0 chroma block is
/// still transformed 4×4, from its 2×2 corner), but never less than 2×2 where its own IDCT
/// is that large (at 1/8, DC alone would leave 4:2:0 chroma at a sixteenth of the picture's
/// resolution), and AC refinement scans are not read: a kept
/// AC coefficient is settled by its first scan, at the midpoint of the interval its missing
/// bits leave, so no nonzero map is ever made. A 12 MP 4:2:0 photo at 1/4 then needs 2.25 MB
/// instead of 4.5 MB of corners and 2.25 MB of maps, and half its scans are passed over.
final class CoefficientStore {
    /// One component's blocks.
    final class Plane {
        /// IDCT size: 1, 2, 4 or 8.
        let size: Int
        /// Coefficients kept per block.
        let kept: Int
        /// The natural index (T.81 Figure A.6) of each kept coefficient, in slot order.
        let positions: [Int]
        /// Blocks per row and rows of blocks, whole MCUs (T.81 A.2.4).
        let blocksWide: Int
        let blocksHigh: Int
        /// Blocks of the component proper (T.81 A.2.2: a non-interleaved scan codes only these).
        let codedWide: Int
        let codedHigh: Int
        /// `kept` coefficients per block, in slot order.
        let values: LedgerBuffer<Int16>
        /// Per block, bit k set when zig-zag coefficient k (one not kept) is nonzero.
        var nonzero: LedgerBuffer<UInt64>?
        /// Zig-zag index k (0…79; runs may overshoot 63, which libjpeg lands on 63) → slot of
        /// the kept coefficient, or −1 for one not kept.
        let slots: LedgerBuffer<Int32>
        /// Per zig-zag index: the bit position the last decoded scan left it at (T.81 G.1.1.1.2),
        /// −1 before any scan. 0 means final.
        var bitPosition = [Int](repeating: -1, count: 64)
        /// Bit position of zig-zag 0…9 after every scan header seen, decoded or passed over,
        /// and the same before the last scan that coded this component: what `BlockSmoothing`
        /// judges an unfinished progression by.
        var scanBits = [Int](repeating: -1, count: 10)
        var bitsBeforeLastScan = [Int](repeating: -1, count: 10)
        /// The quantisers latched at the component's first scan (T.81 B.2.4.1), natural order.
        let quantizers: LedgerBuffer<Int32>
        var latched = false
        /// AC coefficients are settled by their first scan (`ProgressiveFidelity.preview`).
        let firstScansOnly: Bool

        init(size: Int, positions: [Int], blocksWide: Int, blocksHigh: Int, codedWide: Int, codedHigh: Int,
             firstScansOnly: Bool, ledger: MemoryLedger) throws(JPEGError) {
            self.size = size
            self.positions = positions
            self.firstScansOnly = firstScansOnly
            kept = positions.count
            self.blocksWide = blocksWide
            self.blocksHigh = blocksHigh
            self.codedWide = codedWide
            self.codedHigh = codedHigh
            let (count, overflow) = Self.blockCount(blocksWide, blocksHigh).multipliedReportingOverflow(by: kept)
            guard !overflow else { throw .core(.sizeOverflow) }
            values = try core { () throws(CoreError) in try ledger.allocate(Int16.self, count: count, initialValue: 0) }
            slots = try core { () throws(CoreError) in try ledger.allocate(Int32.self, count: 80, initialValue: -1) }
            quantizers = try core { () throws(CoreError) in try ledger.allocate(Int32.self, count: 64, initialValue: 0) }
            let order = ZigZag.naturalOrder
            for k in 0 ..< 80 {
                if let slot = positions.firstIndex(of: k < 64 ? order[k] : 63) { slots[k] = Int32(slot) }
            }
        }

        static func blockCount(_ wide: Int, _ high: Int) -> Int {
            let (count, overflow) = wide.multipliedReportingOverflow(by: high)
            return overflow ? Int.max : count
        }

        /// The natural indices an IDCT of `size` reads (exact), or its size×size corner.
        static func positions(size: Int, exact: Bool) -> [Int] {
            let mask = InverseDCT.frequencyMask(size: size, exact: exact)
            var result: [Int] = []
            for natural in 0 ..< 64 where InverseDCT.reads(natural, mask: mask) { result.append(natural) }
            return result
        }

        /// True when zig-zag index k is kept.
        func keeps(_ k: Int) -> Bool { slots[k] >= 0 }

        /// True when some coefficient of the band Ss…Se is kept.
        func needs(_ ss: Int, _ se: Int) -> Bool {
            for k in ss ... se where keeps(k) { return true }
            return false
        }

        /// True when every kept coefficient has reached bit position 0, or, for AC coefficients
        /// settled by their first scan, has had that scan.
        var isFinal: Bool {
            for k in 0 ..< 64 where keeps(k) {
                let settled = k > 0 && firstScansOnly ? bitPosition[k] >= 0 : bitPosition[k] == 0
                if !settled { return false }
            }
            return true
        }

        /// Puts each kept AC coefficient that lacks its last Al bits at the middle of what those
        /// bits could add. The first scan sends |c| >> Al with the sign (T.81 G.1.2.2's point
        /// transform truncates toward zero), so a nonzero value v stands for |c| in
        /// |v| … |v| + 2^Al − 1; a zero stays zero, its interval being centred on it.
        func settleFirstScans() {
            guard firstScansOnly else { return }
            let count = Self.blockCount(blocksWide, blocksHigh)
            for k in 1 ..< 64 where keeps(k) && bitPosition[k] > 0 {
                let half = Int16((1 << bitPosition[k]) >> 1), slot = Int(slots[k])
                var index = slot
                for _ in 0 ..< count {
                    let v = values[index]
                    if v > 0 { values[index] = v &+ half } else if v < 0 { values[index] = v &- half }
                    index += kept
                }
            }
        }

        /// Makes sure the nonzero map exists, seeding it from nothing: coefficients outside the
        /// corner that earlier scans made nonzero are only recorded once the map exists, which is
        /// from the first successive-approximation AC scan on (the only scans that need it).
        func ensureNonzeroMap(ledger: MemoryLedger) throws(JPEGError) {
            guard nonzero == nil else { return }
            let count = blocksWide * blocksHigh
            nonzero = try core { () throws(CoreError) in try ledger.allocate(UInt64.self, count: count, initialValue: 0) }
        }
    }

    let planes: [Plane]
    /// Scan headers seen so far.
    private(set) var scansSeen = 0
    /// The last MCU row the final decoded scan reached before its data ended, nil when it
    /// reached them all.
    var lastGoodRow: Int?
    /// MCU rows from the top that some decoded scan reached; the blocks below hold no data
    /// (all zero), so they decode to flat mid-gray.
    var rowsReached = 0
    /// True when reading stopped because every kept coefficient was final, so later scans
    /// (and whether the file completes its progression) were never seen.
    var stoppedEarly = false
    /// `ProgressiveFidelity.preview` at a reduced scale, the exact sets not fitting: corners
    /// of the scale's size, AC refinement scans passed over.
    let preview: Bool

    init(frame: JPEGFrameRecord, plan: ScalePlan, options: JPEGOptions, ledger: MemoryLedger) throws(JPEGError) {
        // Exact sets for every component when they all fit the budget, else corners for all:
        // one rule for the whole picture, so chroma never differs in kind between components.
        // Wrapping arithmetic on sizes: the frame's are 16-bit and its sampling factors 1…4.
        var total = 0
        for p in plan.components {
            let blocks = Plane.blockCount(plan.mcusPerLine &* p.horizontal, plan.mcuRows &* p.vertical)
            let (bytes, o1) = blocks.multipliedReportingOverflow(by: 2 * Plane.positions(size: p.blockSize, exact: true).count)
            let (sum, o2) = total.addingReportingOverflow(bytes)
            total = o1 || o2 ? Int.max : sum
        }
        let exact = total <= options.maxExactCoefficientBytes
        var k = 8
        for p in plan.components { k = min(k, p.blockSize) }
        preview = !exact && options.progressiveFidelity == .preview && k < 8
        let preview = preview
        planes = try plan.components.indices.map { (c) throws(JPEGError) in
            let p = plan.components[c], component = frame.components[c]
            let single = frame.components.count == 1
            let hMax = single ? component.horizontal : frame.maxHorizontal
            let vMax = single ? component.vertical : frame.maxVertical
            let width = (frame.width &* component.horizontal &+ hMax &- 1) / hMax
            let height = (frame.height &* component.vertical &+ vMax &- 1) / vMax
            return try Plane(size: p.blockSize,
                             positions: Plane.positions(size: preview ? min(p.blockSize, max(k, 2)) : p.blockSize,
                                                        exact: exact),
                             blocksWide: plan.mcusPerLine &* p.horizontal, blocksHigh: plan.mcuRows &* p.vertical,
                             codedWide: (width &+ 7) / 8, codedHigh: (height &+ 7) / 8,
                             firstScansOnly: preview, ledger: ledger)
        }
    }

    /// True when no later scan can change a kept coefficient.
    var isFinal: Bool { planes.allSatisfy { $0.isFinal } }

    /// True when the scan must be entropy-decoded: it carries some kept coefficient, or it is
    /// an AC scan short of full precision (Al > 0) for a component that keeps AC coefficients.
    /// A later refinement of an overlapping band that does carry kept coefficients reads one
    /// correction bit per coefficient already nonzero (T.81 G.1.2.3), so the nonzero map must
    /// have seen this scan, or that refinement loses its place in the bit stream. Other scans
    /// are passed over without decoding.
    /// Under `preview`, AC refinement scans are never needed and no later refinement needs
    /// the first scans' nonzero coefficients.
    func needs(_ scan: ScanHeader) -> Bool {
        if preview {
            guard scan.band.spectralStart == 0 || scan.band.approximationHigh == 0 else { return false }
            return scan.components.contains { planes[$0.index].needs(scan.band.spectralStart, scan.band.spectralEnd) }
        }
        return scan.components.contains { component in
            let plane = planes[component.index]
            if plane.needs(scan.band.spectralStart, scan.band.spectralEnd) { return true }
            return scan.band.spectralStart > 0 && scan.band.approximationLow > 0 && plane.kept > 1
        }
    }

    /// Notes a scan header, decoded or not, as libjpeg's progression status does.
    func noteScan(_ scan: ScanHeader) {
        scansSeen += 1
        lastGoodRow = nil
        for component in scan.components {
            let plane = planes[component.index]
            for k in 1 ..< 10 { plane.bitsBeforeLastScan[k] = scansSeen > 1 ? plane.scanBits[k] : 0 }
            for k in stride(from: scan.band.spectralStart, through: min(scan.band.spectralEnd, 9), by: 1) {
                plane.scanBits[k] = scan.band.approximationLow
            }
        }
    }

    /// True when `scan` (just noted) is the first AC data of a component among zig-zag 1…9:
    /// then `BlockSmoothing` re-estimates DC in the MCU rows the scan does not reach, so how
    /// far it reaches matters even when it carries no kept coefficient.
    func smoothingDepends(on scan: ScanHeader) -> Bool {
        guard scan.band.approximationHigh == 0, scan.band.spectralStart >= 1, scan.band.spectralStart <= 9 else { return false }
        return scan.components.contains { component in
            planes[component.index].bitsBeforeLastScan[1...].allSatisfy { $0 == -1 }
        }
    }

    /// Notes that a scan was decoded: its band now stands at bit position Al.
    func record(_ scan: ScanHeader) {
        for component in scan.components {
            let plane = planes[component.index]
            for k in scan.band.spectralStart ... scan.band.spectralEnd { plane.bitPosition[k] = scan.band.approximationLow }
        }
    }

    /// Latches each component's quantisers at its first scan (T.81 B.2.4.1; libjpeg does the
    /// same, so a DQT between scans only affects components not yet seen).
    func latchQuantizers(_ scan: ScanHeader, frame: JPEGFrameRecord, tables: TableSet) throws(JPEGError) {
        for component in scan.components {
            let plane = planes[component.index]
            guard !plane.latched else { continue }
            let tq = frame.components[component.index].quantizationTable
            guard let q = tables.quantization[tq] else {
                throw .missingTable(kind: "quantization", id: tq, offset: scan.offset)
            }
            for i in 0 ..< 64 { plane.quantizers[i] = Int32(q.values[i]) }
            plane.latched = true
        }
    }
}
