@_spi(Codec) import PareCore

/// Blocks entropy-decoded on one thread and transformed on another
/// (`JPEGDecoder.decodePipelined`): `ScanDecoder` writes each block of an MCU row as a
/// record instead of transforming it, and `replay` later transforms the records, in the
/// same order, exactly as `ScanDecoder.reconstruct` would have.
///
/// A record is `recordSize` Int16: the natural-order coefficients in entries 0–63 (entry 0
/// the DC value; the AC entries written only when the block has some), then the flags. A
/// block transformed 1×1 (1/8 scale) needs only its DC value: its record is `dcRecordSize`,
/// the DC value and the flags.
enum DeferredBlocks {
    static let recordSize = 66
    static let flagsIndex = 64
    static let dcRecordSize = 2

    /// The record size of a block transformed at `blockSize`.
    static func recordSize(blockSize: Int) -> Int { blockSize == 1 ? dcRecordSize : recordSize }

    /// Where a record's flags are.
    @inline(__always)
    static func flagsIndex(blockSize: Int) -> Int { blockSize == 1 ? 1 : flagsIndex }
    static let storedFlag: Int16 = 1
    static let belowFirstRowFlag: Int16 = 2
    /// A block of an interval whose data ran out: mid-gray (`ScanDecoder.fillMCU`).
    static let flatFlag: Int16 = 4

    /// Where the next record goes, advanced by each block the scan decoder records.
    final class Cursor {
        var next: UnsafeMutablePointer<Int16>

        init(_ start: UnsafeMutablePointer<Int16>) { next = start }

        /// Out of line: the serial decode's blocks never come here, and its loop stays small.
        @inline(never)
        func record(dc: Int16, _ decoded: ScanDecoder.DecodedBlock, coefficients: UnsafeMutablePointer<Int16>,
                    blockSize: Int) {
            DeferredBlocks.store(dc: dc, decoded, coefficients: coefficients, blockSize: blockSize, into: next)
            next += DeferredBlocks.recordSize(blockSize: blockSize)
        }

        func recordFlat(blockSize: Int) {
            DeferredBlocks.storeFlat(blockSize: blockSize, into: next)
            next += DeferredBlocks.recordSize(blockSize: blockSize)
        }
    }

    /// Records a decoded block and leaves `coefficients` all zero again, as
    /// `ScanDecoder.reconstruct` does.
    @inline(__always)
    static func store(dc: Int16, _ decoded: ScanDecoder.DecodedBlock, coefficients: UnsafeMutablePointer<Int16>,
                      blockSize: Int, into record: UnsafeMutablePointer<Int16>) {
        if decoded.stored && blockSize != 1 {
            record.update(from: coefficients, count: 64)
            coefficients.update(repeating: 0, count: 64)
        }
        record[0] = dc
        record[flagsIndex(blockSize: blockSize)] = (decoded.stored ? storedFlag : 0)
            | (decoded.belowFirstRow ? belowFirstRowFlag : 0)
    }

    static func storeFlat(blockSize: Int, into record: UnsafeMutablePointer<Int16>) {
        record[0] = 0
        record[flagsIndex(blockSize: blockSize)] = flatFlag
    }

    /// Transforms one MCU row of records into the units' planes (at each unit's `rowStart`),
    /// walking the blocks in `ScanDecoder.decodeRow`'s order (T.81 A.2.3).
    static func replay(_ records: UnsafeMutablePointer<Int16>, mcusPerLine: Int, units: [ScanUnit],
                       scratch: ScanScratch) {
        var record = records
        let lanes = scratch.lanes.baseAddress, workspace = scratch.workspace.baseAddress
        for column in 0 ..< mcusPerLine {
            ScanDecoder.forEachBlock(ofMCU: column, units: units) { unit, block in
                let size = unit.blockSize
                let flags = record[flagsIndex(blockSize: size)]
                if flags & flatFlag != 0 {
                    InverseDCT.fill(128, size: size, output: block, stride: unit.stride)
                } else {
                    let decoded = ScanDecoder.DecodedBlock(stored: flags & storedFlag != 0,
                                                           belowFirstRow: flags & belowFirstRowFlag != 0)
                    ScanDecoder.reconstruct(dc: record[0], decoded, unit, coefficients: record, lanes: lanes,
                                            workspace: workspace, into: block)
                }
                record += recordSize(blockSize: size)
            }
        }
    }
}
