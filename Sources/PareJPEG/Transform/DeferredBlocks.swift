@_spi(Codec) import PareCore

/// Blocks entropy-decoded on one thread and transformed on another
/// (`JPEGDecoder.decodePipelined`): `ScanDecoder` writes each block of an MCU row as a
/// record instead of transforming it, and `replay` later transforms the records, in the
/// same order, exactly as `ScanDecoder.reconstruct` would have.
///
/// A record is `recordSize` Int16: the natural-order coefficients in entries 0–63 (entry 0
/// the DC value; the AC entries written only when the block has some), then the flags. A
/// block transformed 1×1 (1/8 scale) needs only its DC value: its record is that alone
/// (`dcRecordSize`; a flat block, whose data ran out, is DC 0, mid-gray as well). One
/// transformed 2×2 (chroma at 1/8, luma at 1/4) reads 25 coefficients (rows and columns 0,
/// 1, 3, 5 and 7: `InverseDCT.transform2`), few of them nonzero: its record is the DC value,
/// the flags with the count n of nonzero others in the high byte (`pairsShift`), then n
/// pairs of natural index and value, at most `largestCornerRecord` entries. Records are
/// therefore walked in order (`length`), and a buffer for them is sized by `largestRecord`.
///
/// Where the transforms are the longer half (a full-scale decode resampled to a thumbnail:
/// the consumer also upsamples, converts colour and resamples), the entropy decoding's
/// thread takes some of them back: `transform` turns a row's records of blocks with AC
/// coefficients into records of samples (`samplesFlag`: rows of `sampleStride` bytes from
/// the record's start, 64 bytes at most, inside the record's 132), which `replay` only copies
/// into place. Which thread transforms a block changes nothing in its samples: the same
/// transform of the same coefficients.
enum DeferredBlocks {
    static let recordSize = 66
    static let flagsIndex = 64
    static let dcRecordSize = 1
    /// A 2×2 block's DC value and flags, before its pairs.
    static let cornerHeaderSize = 2
    /// A 2×2 block's record with all 24 of its AC coefficients nonzero.
    static let largestCornerRecord = cornerHeaderSize + 2 * 24
    /// Where a 2×2 block's record keeps its count of pairs, in its flags entry.
    static let pairsShift: Int16 = 8

    /// The most entries a block transformed at `blockSize` records.
    static func largestRecord(blockSize: Int) -> Int {
        blockSize == 1 ? dcRecordSize : blockSize == 2 ? largestCornerRecord : recordSize
    }

    /// The entries of the record at `record`, of a block transformed at `blockSize`.
    @inline(__always)
    static func length(of record: UnsafePointer<Int16>, blockSize: Int) -> Int {
        if blockSize == 1 { return dcRecordSize }
        if blockSize == 2 { return cornerHeaderSize + 2 * Int(record[1] &>> pairsShift) }
        return recordSize
    }

    /// Where a record's flags are (a 1×1 block's record has none).
    @inline(__always)
    static func flagsIndex(blockSize: Int) -> Int { blockSize == 2 ? 1 : flagsIndex }
    static let storedFlag: Int16 = 1
    static let belowFirstRowFlag: Int16 = 2
    /// A block of an interval whose data ran out: mid-gray (`ScanDecoder.fillMCU`).
    static let flatFlag: Int16 = 4
    /// A block already transformed (`transform`): the record holds its samples.
    static let samplesFlag: Int16 = 8
    /// The distance between the rows of a record's samples: the largest block's row, at
    /// every block size.
    static let sampleStride = 8

    /// Where the next record goes, advanced by each block the scan decoder records.
    // A class with a plain stored pointer, and `recordFlat` inlined: the serial decode's
    // block loop, which holds the calls, measured 6% more instructions with the pointer in a
    // cell, with `recordFlat` out of line, or with the property's exclusivity unchecked. The
    // scan holds it unmanaged (`ScanDecoder.deferral`), which left that loop as it was.
    final class Cursor {
        /// Unchecked: only the producer's thread uses the cursor, and each access is a single
        /// read or write; the dynamic exclusivity check was a runtime call for every block.
        @exclusivity(unchecked) var next: UnsafeMutablePointer<Int16>

        init(_ start: UnsafeMutablePointer<Int16>) { next = start }

        /// Out of line: the serial decode's blocks never come here, and its loop stays small.
        @inline(never)
        func record(dc: Int16, _ decoded: ScanDecoder.DecodedBlock, coefficients: UnsafeMutablePointer<Int16>,
                    blockSize: Int) {
            // One read and one write of `next`, each an instant: no access held across the store.
            let start = next
            DeferredBlocks.store(dc: dc, decoded, coefficients: coefficients, blockSize: blockSize, into: start)
            next = start + DeferredBlocks.length(of: start, blockSize: blockSize)
        }

        func recordFlat(blockSize: Int) {
            DeferredBlocks.storeFlat(blockSize: blockSize, into: next)
            next += DeferredBlocks.length(of: next, blockSize: blockSize)
        }
    }

    /// Records a decoded block and leaves `coefficients` all zero again, as
    /// `ScanDecoder.reconstruct` does.
    @inline(__always)
    static func store(dc: Int16, _ decoded: ScanDecoder.DecodedBlock, coefficients: UnsafeMutablePointer<Int16>,
                      blockSize: Int, into record: UnsafeMutablePointer<Int16>) {
        if blockSize == 1 {
            record[0] = dc
            return
        }
        var pairs: Int16 = 0
        if decoded.stored && blockSize == 2 {
            // The coefficients the 2×2 transform reads (`InverseDCT.frequencyMask`), the only
            // ones the scan's `keep` map stored: rows and columns 0, 1, 3, 5 and 7. A row at a
            // time, skipping the rows that are all zero (most of them).
            for row in 0 ..< 8 where row == 0 || row & 1 == 1 {
                // SAFETY: row < 8: the row's 16 bytes lie in the 65 coefficients.
                let bytes = UnsafeRawPointer(coefficients + row &* 8)
                guard bytes.loadUnaligned(as: UInt64.self) | bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self) != 0
                else { continue }
                for column in 0 ..< 8 where (column == 0 || column & 1 == 1) && row | column != 0 {
                    let index = row &* 8 &+ column
                    let value = coefficients[index]
                    if value != 0 {
                        // SAFETY: at most 24 pairs after the header: `largestCornerRecord`.
                        record[cornerHeaderSize &+ 2 &* Int(pairs)] = Int16(index)
                        record[cornerHeaderSize &+ 1 &+ 2 &* Int(pairs)] = value
                        pairs &+= 1
                        coefficients[index] = 0
                    }
                }
            }
        } else if decoded.stored && blockSize != 1 {
            record.update(from: coefficients, count: 64)
            coefficients.update(repeating: 0, count: 64)
        }
        record[0] = dc
        record[flagsIndex(blockSize: blockSize)] = (decoded.stored ? storedFlag : 0)
            | (decoded.belowFirstRow ? belowFirstRowFlag : 0) | pairs &<< pairsShift
    }

    static func storeFlat(blockSize: Int, into record: UnsafeMutablePointer<Int16>) {
        record[0] = 0
        if blockSize != 1 { record[flagsIndex(blockSize: blockSize)] = flatFlag }
    }

    /// Transforms the blocks with AC coefficients of one MCU row of records, each into its
    /// own record (`samplesFlag`), on the producer's thread; blocks with a DC value only,
    /// flat blocks and 1×1 and 2×2 blocks cost `replay` little more than a copy would (and a
    /// 2×2 block's samples need not fit in its record), and stay as they are.
    /// `samples` holds 64 bytes.
    static func transform(_ records: UnsafeMutablePointer<Int16>, mcusPerLine: Int, units: [ScanUnit],
                          scratch: ScanScratch, samples: UnsafeMutablePointer<UInt8>) {
        var record = records
        let lanes = scratch.lanes.baseAddress, workspace = scratch.workspace.baseAddress
        for _ in 0 ..< mcusPerLine {
            for unit in units {
                let size = unit.blockSize
                for _ in 0 ..< unit.horizontal * unit.vertical {
                    if size >= 4 && record[flagsIndex] & (flatFlag | storedFlag) == storedFlag {
                        let flags = record[flagsIndex]
                        let decoded = ScanDecoder.DecodedBlock(stored: true,
                                                               belowFirstRow: flags & belowFirstRowFlag != 0)
                        // The transform reads the record's coefficients; its samples go to
                        // `samples` first, and then over the coefficients they came from.
                        var unit = unit
                        unit.stride = sampleStride
                        ScanDecoder.reconstruct(dc: record[0], decoded, unit, coefficients: record, lanes: lanes,
                                                workspace: workspace, into: samples)
                        // SAFETY: `size` rows of `sampleStride` bytes, at most 64 bytes, inside
                        // the record's 132.
                        UnsafeMutableRawPointer(record).copyMemory(from: samples, byteCount: size * sampleStride)
                        record[flagsIndex] = samplesFlag
                    }
                    record += length(of: record, blockSize: size)
                }
            }
        }
    }

    /// Transforms the records of the MCUs `columns` of one MCU row (`records` holds the
    /// first one's) into the units' planes (at each unit's `rowStart`), walking the blocks in
    /// `ScanDecoder.decodeRow`'s order (T.81 A.2.3). Returns where the next record starts.
    @discardableResult
    static func replay(_ records: UnsafeMutablePointer<Int16>, columns: Range<Int>, units: [ScanUnit],
                       scratch: ScanScratch) -> UnsafeMutablePointer<Int16> {
        var record = records
        let lanes = scratch.lanes.baseAddress, workspace = scratch.workspace.baseAddress
        // All zero between blocks, as the scan decoder's own coefficients.
        let corner = scratch.coefficients.baseAddress
        for column in columns {
            ScanDecoder.forEachBlock(ofMCU: column, units: units) { unit, block in
                let size = unit.blockSize
                if size == 1 {
                    ScanDecoder.reconstruct(dc: record[0], ScanDecoder.DecodedBlock(), unit, coefficients: corner,
                                            lanes: lanes, workspace: workspace, into: block)
                    record += dcRecordSize
                    return
                }
                let flags = record[flagsIndex(blockSize: size)]
                if size == 2 && flags & (flatFlag | storedFlag) == storedFlag {
                    // The 2×2 transform reads a block in natural order: the pairs into place.
                    let pairs = Int(flags &>> pairsShift)
                    for p in 0 ..< pairs {
                        corner[Int(record[cornerHeaderSize &+ 2 &* p]) & 63] = record[cornerHeaderSize &+ 1 &+ 2 &* p]
                    }
                    let decoded = ScanDecoder.DecodedBlock(stored: true, belowFirstRow: flags & belowFirstRowFlag != 0)
                    ScanDecoder.reconstruct(dc: record[0], decoded, unit, coefficients: corner, lanes: lanes,
                                            workspace: workspace, into: block)
                    corner[0] = 0
                    for p in 0 ..< pairs { corner[Int(record[cornerHeaderSize &+ 2 &* p]) & 63] = 0 }
                } else if flags & (flatFlag | samplesFlag) == 0 {
                    let decoded = ScanDecoder.DecodedBlock(stored: flags & storedFlag != 0,
                                                           belowFirstRow: flags & belowFirstRowFlag != 0)
                    ScanDecoder.reconstruct(dc: record[0], decoded, unit, coefficients: record, lanes: lanes,
                                            workspace: workspace, into: block)
                } else if flags & flatFlag != 0 {
                    InverseDCT.fill(128, size: size, output: block, stride: unit.stride)
                } else {
                    // SAFETY: `size` rows of `sampleStride` bytes lie in the record (`transform`);
                    // the block's `size` rows of `size` samples lie in the plane.
                    StridedCopy.copy(size, bytes: size, from: UnsafeRawPointer(record), step: sampleStride,
                                     to: UnsafeMutableRawPointer(block), step: unit.stride)
                }
                record += length(of: record, blockSize: size)
            }
        }
        return record
    }

    /// Adds `offsets[i]` to the DC value of every block of unit i in the records of `mcus`
    /// MCUs from `records`: blocks decoded from a point whose DC predictors (T.81
    /// F.2.1.3.1) were not known get the true ones (`SplitScan`). Wrapping, as the
    /// predictor itself.
    static func addToDC(_ records: UnsafeMutablePointer<Int16>, mcus: Int, units: [ScanUnit], offsets: [Int16]) {
        var record = records
        for _ in 0 ..< mcus {
            for (i, unit) in units.enumerated() {
                for _ in 0 ..< unit.horizontal * unit.vertical {
                    record[0] &+= offsets[i]
                    record += length(of: record, blockSize: unit.blockSize)
                }
            }
        }
    }
}
