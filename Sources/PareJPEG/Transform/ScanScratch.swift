import PareCore

/// Working memory of the block decoder, allocated once per decode.
final class ScanScratch {
    /// One block of coefficients in natural order, plus a scratch slot at 64.
    let coefficients: LedgerBuffer<Int16>
    /// The IDCT's intermediate 8×8 values: scalar for the reduced transforms, lanes for the full one.
    let workspace: LedgerBuffer<Int32>
    let lanes: LedgerBuffer<InverseDCT.Lanes>
    /// For each IDCT size 8, 4, 2 (rows 0, 1, 2): zig-zag index → natural index if the
    /// reduced transform reads that coefficient, else 64. Indices 64…79 stand for runs past the block's end, which libjpeg
    /// lands on coefficient 63. Above the index (`KeepEntry`), what storing there tells the
    /// transform, so that the fast path ORs the flags of a block's entries instead of
    /// comparing each index.
    let keep: LedgerBuffer<Int32>

    /// The parts of a `keep` entry.
    enum KeepEntry {
        /// The natural index, 0…64.
        static let indexMask: Int32 = 0xFF
        /// The transform reads the coefficient (index < 64).
        static let stored: Int32 = 0x100
        /// It also lies below the block's first row (8 ≤ index < 64).
        static let belowFirstRow: Int32 = 0x200
    }

    init(ledger: MemoryLedger) throws(JPEGError) {
        coefficients = try core { () throws(CoreError) in try ledger.allocate(Int16.self, count: 65, initialValue: 0) }
        workspace = try core { () throws(CoreError) in try ledger.allocate(Int32.self, count: 64, initialValue: 0) }
        lanes = try core { () throws(CoreError) in
            try ledger.allocate(InverseDCT.Lanes.self, count: 8, initialValue: InverseDCT.Lanes(repeating: 0))
        }
        keep = try core { () throws(CoreError) in try ledger.allocate(Int32.self, count: 3 * 80, initialValue: 64) }
        let order = ZigZag.naturalOrder
        // One row per transform size, 8, 4, 2: the coefficients each reads.
        for row in 0 ..< 3 {
            let mask = InverseDCT.frequencyMask(size: 8 >> row, exact: true)
            for k in 0 ..< 80 {
                let natural = k < 64 ? order[k] : 63
                if InverseDCT.reads(natural, mask: mask) {
                    keep[row * 80 + k] = Int32(natural) | KeepEntry.stored | (natural >= 8 ? KeepEntry.belowFirstRow : 0)
                }
            }
        }
    }

    func keepMap(blockSize: Int) -> UnsafePointer<Int32> {
        let row = blockSize == 8 ? 0 : (blockSize == 4 ? 1 : 2)
        return UnsafePointer(keep.baseAddress + row * 80)
    }
}
