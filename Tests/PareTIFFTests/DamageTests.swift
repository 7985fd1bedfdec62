import PareCore
import PareEXIF
import PareTIFF
import Testing
import TestSupport

/// Cut-off files, bombs and malformed directories: each a typed error naming the place, or
/// (lenient) the rows before the damage and a warning.
@Suite struct TIFFDamageTests {
    func fixture(_ name: String) throws -> [UInt8] {
        try #require(FileSystem.read(Corpus.fixtures + "/tiff/" + name))
    }

    func decode(_ bytes: [UInt8], options: TIFFOptions = testOptions(), ledger: MemoryLedger = MemoryLedger())
        throws(TIFFError) -> (Image, [TIFFError]) {
        var decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
        let image = try decoder.decodeImage()
        return (image, decoder.warnings)
    }

    @Test func truncatedStripIsAnErrorOrTheRowsBeforeIt() throws {
        for name in ["rgb8-lzw-strips.tif", "rgb8-deflate-strips.tif", "rgb8-packbits-strips.tif", "rgb8-none-strips.tif"] {
            let bytes = try fixture(name)
            let decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: testOptions())
            let third = decoder.info.segments[2]
            let cut = Array(bytes[..<(third.offset + third.count / 2)])
            // Strict (the default): the damage is the error, in strip 2 (rows 14…20), after
            // the rows of its first half.
            var decodedRows = -1
            #expect {
                _ = try decode(cut)
            } throws: { error in
                guard let error = error as? TIFFError, case let .truncatedData(index, rows, offset) = error else { return false }
                decodedRows = rows
                return index == 2 && offset == cut.count && error.kind == .damaged
            }
            #expect(decodedRows >= 14 && decodedRows < 21, "\(name)")
            // Lenient: those rows, as a whole decode has them, and the error as a warning.
            let ledger = MemoryLedger()
            var lenient = try TIFFDecoder(source: MemoryByteSource(cut), ledger: ledger, options: testOptions(strict: false))
            var rows = RowCollector()
            try lenient.decode(into: &rows)
            #expect(rows.rows.count == decodedRows, "\(name)")
            #expect(lenient.warnings.count == 1 && lenient.warnings.first?.isImageDataDamage == true)
            let (whole, _) = try decode(bytes)
            for y in 0 ..< rows.rows.count { #expect(Array(whole.row(y)) == rows.rows[y], "\(name) row \(y)") }
            #expect(ledger.currentBytes == 0)
        }
    }

    @Test func stripPastTheEndIsNamedWithItsOffsets() throws {
        var t = TinyTIFF.gray(width: 8, height: 8, rowsPerStrip: 4)
        let size = t.bytes.count
        t.set(273, .long, [UInt32(t.dataOffset), 1_000_000])
        let bytes = t.bytes
        #expect(bytes.count == size)
        #expect(throws: TIFFError.segmentOutOfBounds(index: 1, pointer: 1_000_000, fileSize: size, offset: 8 + 2 + 12 * 8 + 4)) {
            _ = try decode(bytes)
        }
        // The first strip past the end: nothing decodable, refused by init.
        t.set(273, .long, [2_000_000, 1_000_000])
        #expect(throws: TIFFError.segmentOutOfBounds(index: 0, pointer: 2_000_000, fileSize: size, offset: 8 + 2 + 12 * 8 + 4)) {
            _ = try TIFFDecoder(source: MemoryByteSource(t.bytes), ledger: MemoryLedger())
        }
    }

    @Test func hugeDimensionsAreRefusedBeforeAnyAllocation() throws {
        var t = TinyTIFF.gray(width: 8, height: 8, rowsPerStrip: 8)
        t.set(256, .long, [0xFFFF_FFFF])
        let ledger = MemoryLedger(limit: 1 << 20)
        #expect(throws: TIFFError.invalidTag(tag: 256, name: "ImageWidth", offset: 8 + 2 + 8, reason: "not an unsigned integer below 2^31")) {
            _ = try TIFFDecoder(source: MemoryByteSource(t.bytes), ledger: ledger)
        }
        t.set(256, .long, [65536])
        t.set(257, .long, [65536])
        #expect(throws: TIFFError.limitExceeded(what: "pixel count", value: 1 << 32, limit: 1 << 28, offset: 8 + 2 + 8)) {
            _ = try TIFFDecoder(source: MemoryByteSource(t.bytes), ledger: ledger)
        }
        #expect(ledger.peakBytes == 0)
    }

    @Test func deflateBombStopsAtTheStripSize() throws {
        // 4096×4096 gray in one Deflate strip of 16 MiB of zeros compressed to a few KB,
        // followed by 16 MiB more in the same stream: the strip's size bounds the output,
        // and a ledger below the strip refuses it before inflating.
        var t = TinyTIFF.gray(width: 1, height: 1, rowsPerStrip: 1)
        let zeros = [UInt8](repeating: 0, count: 32 << 20)
        let stream = try #require(zlibCompress(zeros))
        t.data = stream
        t.set(256, .long, [4096]); t.set(257, .long, [4096]); t.set(278, .long, [4096])
        t.set(259, .short, [8])
        t.set(273, .long, [UInt32(t.dataOffset)]); t.set(279, .long, [UInt32(stream.count)])
        let small = MemoryLedger(limit: 4 << 20)
        #expect {
            _ = try decode(t.bytes, ledger: small)
        } throws: { error in (error as? TIFFError)?.kind == .memoryLimit }
        #expect(small.peakBytes <= 4 << 20)
        let (image, warnings) = try decode(t.bytes)
        #expect(image.width == 4096 && image.height == 4096 && warnings.isEmpty)
    }

    @Test func malformedDirectoriesGiveTypedErrors() throws {
        #expect(throws: TIFFError.structure(.notTIFF(offset: 0))) {
            _ = try TIFFDecoder(source: MemoryByteSource(Array("GIF89a-not-a-tiff".utf8)), ledger: MemoryLedger())
        }
        var t = TinyTIFF.gray(width: 8, height: 8, rowsPerStrip: 8)
        t.entries.removeAll { $0.tag == 273 }
        #expect(throws: TIFFError.missingTag(tag: 273, name: "StripOffsets", offset: 8)) {
            _ = try TIFFDecoder(source: MemoryByteSource(t.bytes), ledger: MemoryLedger())
        }
        var float = TinyTIFF.gray(width: 8, height: 8, rowsPerStrip: 8)
        float.set(339, .short, [3])
        #expect {
            _ = try TIFFDecoder(source: MemoryByteSource(float.bytes), ledger: MemoryLedger())
        } throws: { error in
            guard let error = error as? TIFFError, case let .unsupported(what, value, _) = error else { return false }
            return value == 3 && "\(what)".contains("floating-point") && error.kind == .unsupported
        }
        var lab = TinyTIFF.gray(width: 8, height: 8, rowsPerStrip: 8)
        lab.set(262, .short, [8])
        lab.set(277, .short, [3])
        #expect {
            _ = try TIFFDecoder(source: MemoryByteSource(lab.bytes), ledger: MemoryLedger())
        } throws: { error in
            guard let error = error as? TIFFError, case let .unsupported(what, value, _) = error else { return false }
            return value == 8 && "\(what)".contains("CIELab")
        }
        var oldJPEG = TinyTIFF.gray(width: 8, height: 8, rowsPerStrip: 8)
        oldJPEG.set(259, .short, [6])
        #expect(throws: TIFFError.unsupported(what: "old-style JPEG compression", value: 6, offset: 8 + 2 + 12 * 3 + 8)) {
            _ = try TIFFDecoder(source: MemoryByteSource(oldJPEG.bytes), ledger: MemoryLedger())
        }
        // Deflate is PareCore's own: a Deflate directory reads with the default options.
        var deflate = TinyTIFF.gray(width: 8, height: 8, rowsPerStrip: 8)
        deflate.set(259, .short, [8])
        #expect(try TIFFDecoder(source: MemoryByteSource(deflate.bytes), ledger: MemoryLedger()).info.width == 8)
    }

    @Test func badLZWCodeIsCompressedDataError() throws {
        var t = TinyTIFF.gray(width: 8, height: 8, rowsPerStrip: 8)
        // Clear (256), then code 300: beyond the table (next free 258).
        t.data = [0x80, 0x4B, 0x00, 0x00]
        t.set(259, .short, [5])
        t.set(273, .long, [UInt32(t.dataOffset)]); t.set(279, .long, [4])
        #expect {
            _ = try decode(t.bytes)
        } throws: { error in
            guard let error = error as? TIFFError, case let .compressedDataError(index, rows, offset, _) = error else { return false }
            return index == 0 && rows == 0 && offset == t.dataOffset
        }
    }

    @Test func faxCodesThatNeverMoveAreRefused() throws {
        // T.6, 64 pixels wide: VL3 (0000010) over and over keeps a0 where it is.
        var t = TinyTIFF.gray(width: 64, height: 4, rowsPerStrip: 4)
        var bits: [Bool] = []
        for _ in 0 ..< 2000 { bits += [false, false, false, false, false, true, false] }
        t.data = stride(from: 0, to: bits.count - 7, by: 8).map { i in
            (0 ..< 8).reduce(UInt8(0)) { $0 << 1 | (bits[i + $1] ? 1 : 0) }
        }
        t.set(258, .short, [1]); t.set(259, .short, [4]); t.set(262, .short, [0])
        t.set(273, .long, [UInt32(t.dataOffset)]); t.set(279, .long, [UInt32(t.data.count)])
        #expect {
            _ = try decode(t.bytes)
        } throws: { error in
            guard let error = error as? TIFFError, case let .compressedDataError(_, rows, _, reason) = error else { return false }
            return rows == 0 && reason.contains("more colour changes than pixels")
        }
    }

    @Test func jpegStreamLargerThanItsStripIsRefused() throws {
        var t = TinyTIFF.gray(width: 16, height: 16, rowsPerStrip: 16)
        t.data = BombFiles.jpeg(width: 4096, height: 4096, dataBytes: 64)
        t.set(259, .short, [7])
        t.set(273, .long, [UInt32(t.dataOffset)]); t.set(279, .long, [UInt32(t.data.count)])
        let ledger = MemoryLedger()
        #expect {
            _ = try decode(t.bytes, ledger: ledger)
        } throws: { error in
            guard let error = error as? TIFFError, case let .compressedDataError(_, _, _, reason) = error else { return false }
            return reason.contains("JPEG stream of 4096x4096 in a 16x16")
        }
        #expect(ledger.peakBytes < 1 << 20)
    }

    @Test func pageChainLoopEndsTheCountWithAWarning() throws {
        var t = TinyTIFF.gray(width: 4, height: 4, rowsPerStrip: 4)
        t.nextIFD = 8
        var decoder = try TIFFDecoder(source: MemoryByteSource(t.bytes), ledger: MemoryLedger())
        #expect(decoder.info.pageCount == 1)
        #expect(decoder.warnings == [.structure(.ifdLoop(ifd: "IFD1", offset: 8))])
        let image = try decoder.decodeImage()
        #expect(image.width == 4)
    }
}

/// Keeps every row handed to it.
struct RowCollector: RowSink {
    var rows: [[UInt8]] = []
    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}
    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        rows.append(Array(row))
    }
}
