import PareCore
import PareTIFF
import Testing
import TestSupport

/// What `init` tells before decoding, and the memory a decode holds: one strip, not the image.
@Suite struct TIFFStreamingTests {
    /// Counts rows and keeps none.
    struct CountingSink: RowSink {
        var rows = 0
        var header: RowStreamHeader?
        mutating func begin(_ header: RowStreamHeader) throws(CoreError) { self.header = header }
        mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
            #expect(placement.y == rows && row.count == placement.width * (header?.format.bytesPerPixel ?? 0))
            rows += 1
        }
    }

    @Test func stripStreamedDecodeHoldsOneStrip() throws {
        // 2048 × 2048 gray (4 MiB) in strips of 16 rows (32 KiB).
        let t = TinyTIFF.gray(width: 2048, height: 2048, rowsPerStrip: 16)
        let ledger = MemoryLedger()
        var decoder = try TIFFDecoder(source: MemoryByteSource(t.bytes), ledger: ledger)
        var sink = CountingSink()
        try decoder.decode(into: &sink)
        #expect(sink.rows == 2048)
        // The band (32 KiB), that strip's bytes as read (32 KiB), one row and the sample scratch.
        #expect(ledger.peakBytes < 2 * 32768 + 2048 * 3 + 1024)
        #expect(ledger.peakBytes * 50 < 2048 * 2048)
        #expect(ledger.currentBytes == 0)
    }

    @Test func tiledDecodeHoldsOneRowOfTiles() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/tiff/rgb8-lzw-tiles.tif"))
        let ledger = MemoryLedger()
        var decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        #expect(decoder.info.isTiled && decoder.info.segmentWidth == 16 && decoder.info.segmentHeight == 16)
        #expect(decoder.info.segments.count == 3 * 3)
        var sink = CountingSink()
        try decoder.decode(into: &sink)
        #expect(sink.rows == 37)
        // Three 16×16 RGB tiles (2304 bytes), one tile's compressed bytes, LZW's table (64 KiB), a row.
        #expect(ledger.peakBytes < 2304 + 2000 + 16 * 4096 + 45 * 3 * 3 + 64)
    }

    @Test func infoOfAMultiPageFile() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/tiff/pages2-orientation6.tif"))
        let decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
        let info = decoder.info
        #expect(info.pageCount == 2)
        #expect(info.orientation == .right)
        #expect(info.width == 45 && info.height == 37 && info.samplesPerPixel == 3 && info.bitsPerSample == 8)
        #expect(info.photometric == 2 && info.compression == 5 && info.planarConfiguration == 1 && !info.isTiled)
        #expect(decoder.outputFormat == .rgb8)
        #expect(info.byteOrder == .littleEndian && info.ifdOffset == 8)
        #expect(info.segments.allSatisfy { $0.offset > 8 && $0.offset + $0.count <= bytes.count })
    }

    @Test func iccProfileIsExposed() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/tiff/rgb8-icc-lzw.tif"))
        let decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
        let icc = try #require(decoder.info.iccProfile)
        // An ICC header: its size first, "acsp" at 36.
        #expect(icc.count > 128 && Array(icc[36 ..< 40]) == Array("acsp".utf8))
        #expect(Int(icc[0]) << 24 | Int(icc[1]) << 16 | Int(icc[2]) << 8 | Int(icc[3]) == icc.count)
        let plain = try #require(FileSystem.read(Corpus.fixtures + "/tiff/rgb8-lzw-strips.tif"))
        #expect(try TIFFDecoder(source: MemoryByteSource(plain), ledger: MemoryLedger()).info.iccProfile == nil)
    }

    /// TIFF 6.0 §21's subsampled YCbCr without JPEG is read (the fixtures ycbcr22-…
    /// against tiff2rgba); what libtiff's RGBA interface does not read either is refused:
    /// a factor other than 1, 2 or 4, and subsampled chroma in separate planes.
    @Test func subsampledYCbCrLimits() throws {
        var t = TinyTIFF.gray(width: 8, height: 8, rowsPerStrip: 8)
        t.set(262, .short, [6])
        t.set(277, .short, [3])
        t.set(258, .short, [8, 8, 8])
        t.set(530, .short, [3, 1])
        #expect {
            _ = try TIFFDecoder(source: MemoryByteSource(t.bytes), ledger: MemoryLedger())
        } throws: { error in
            guard let error = error as? TIFFError, case let .invalidTag(tag, _, _, reason) = error else { return false }
            return tag == 530 && "\(reason)".contains("3, not 1, 2 or 4")
        }
        t.set(530, .short, [2, 2])
        t.set(284, .short, [2])
        #expect {
            _ = try TIFFDecoder(source: MemoryByteSource(t.bytes), ledger: MemoryLedger())
        } throws: { error in
            guard let error = error as? TIFFError, case let .unsupported(what, value, _) = error else { return false }
            return value == 2 && "\(what)".contains("separate planes")
        }
    }

    /// A stored row of 2×2 blocks covers two image rows: a 45×37 picture in strips of 8 rows
    /// has 23 blocks of 6 bytes a stored row, 4 stored rows a strip.
    @Test func subsampledYCbCrLayout() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/tiff/ycbcr22-none-strips.tif"))
        let decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
        #expect(decoder.outputFormat == .rgb8)
        #expect(decoder.info.segments.count == 5)
        #expect(decoder.info.segments.map(\.count) == [552, 552, 552, 552, 414])
    }

    @Test func outputFormats() throws {
        let expected: [(String, PixelFormat, TIFFAlpha)] = [
            ("gray8-none-strips.tif", .gray8, .none), ("palette8-lzw.tif", .rgb8, .none),
            ("cmyk8-lzw.tif", .cmyk8, .none), ("rgba8-unassoc-lzw-strips.tif", .rgba8, .unassociated),
            ("rgba8-assoc-none-tiles.tif", .rgba8, .associated), ("grayalpha8-unassoc-packbits.tif", .grayAlpha8, .unassociated),
            ("rgb16-none-strips.tif", .rgb8, .none), ("jpeg-ycbcr-strips.tif", .rgb8, .none), ("fax-g4.tif", .gray8, .none),
            ("ycbcr-none-strips.tif", .rgb8, .none),
        ]
        for (name, format, alpha) in expected {
            let bytes = try #require(FileSystem.read(Corpus.fixtures + "/tiff/" + name))
            let decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: testOptions())
            #expect(decoder.outputFormat == format, "\(name)")
            #expect(decoder.info.alpha == alpha, "\(name)")
        }
    }

    @Test func cancellationStopsBetweenStrips() throws {
        let t = TinyTIFF.gray(width: 64, height: 64, rowsPerStrip: 8)
        let ledger = MemoryLedger()
        var decoder = try TIFFDecoder(source: MemoryByteSource(t.bytes), ledger: ledger)
        decoder.cancellation = CancellationCheck { true }
        var sink = CountingSink()
        #expect(throws: TIFFError.core(.cancelled)) { try decoder.decode(into: &sink) }
        #expect(sink.rows == 0 && ledger.currentBytes == 0)
    }
}
