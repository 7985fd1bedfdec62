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
    /// A block already transformed (`transform`): the record holds its samples.
    static let samplesFlag: Int16 = 8
    /// The distance between the rows of a record's samples: the largest block's row, at
    /// every block size.
    static let sampleStride = 8

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

    /// Transforms the blocks with AC coefficients of one MCU row of records, each into its
    /// own record (`samplesFlag`), on the producer's thread; blocks with a DC value only,
    /// flat blocks and 1×1 blocks cost `replay` no more than a copy would, and stay as they are.
    /// `samples` holds 64 bytes.
    static func transform(_ records: UnsafeMutablePointer<Int16>, mcusPerLine: Int, units: [ScanUnit],
                          scratch: ScanScratch, samples: UnsafeMutablePointer<UInt8>) {
        var record = records
        let lanes = scratch.lanes.baseAddress, workspace = scratch.workspace.baseAddress
        for _ in 0 ..< mcusPerLine {
            for unit in units {
                let size = unit.blockSize
                for _ in 0 ..< unit.horizontal * unit.vertical {
                    let flags = record[flagsIndex(blockSize: size)]
                    if size != 1 && flags & (flatFlag | storedFlag) == storedFlag {
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
                    record += recordSize(blockSize: size)
                }
            }
        }
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
                if flags & (flatFlag | samplesFlag) == 0 {
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
                record += recordSize(blockSize: size)
            }
        }
    }
}
