import PareCore
import PareTIFF
import Testing
import TestSupport

/// Each `TIFFOptions` limit crossed, with the error naming it (or, for the counting limits,
/// the count stopping there).
@Suite struct TIFFLimitTests {
    func refusal(_ bytes: [UInt8], _ options: TIFFOptions) -> TIFFError? {
        do {
            var decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: options)
            _ = try decoder.decodeImage()
            return nil
        } catch {
            return error
        }
    }

    @Test func sizeLimits() throws {
        let t = TinyTIFF.gray(width: 40, height: 30, rowsPerStrip: 10)
        let sizeAt = 8 + 2 + 8
        var options = TIFFOptions()
        options.maxWidth = 39
        #expect(refusal(t.bytes, options) == .limitExceeded(what: "width", value: 40, limit: 39, offset: sizeAt))
        options = TIFFOptions()
        options.maxHeight = 29
        #expect(refusal(t.bytes, options) == .limitExceeded(what: "height", value: 30, limit: 29, offset: sizeAt))
        options = TIFFOptions()
        options.maxPixels = 1199
        #expect(refusal(t.bytes, options) == .limitExceeded(what: "pixel count", value: 1200, limit: 1199, offset: sizeAt))
        #expect(refusal(t.bytes, TIFFOptions()) == nil)
    }

    @Test func segmentLimits() throws {
        let t = TinyTIFF.gray(width: 40, height: 30, rowsPerStrip: 10)
        let offsetsAt = t.dataOffset - 2 * 3 * 4
        var options = TIFFOptions()
        options.maxSegments = 2
        #expect(refusal(t.bytes, options) == .limitExceeded(what: "strip/tile count", value: 3, limit: 2, offset: offsetsAt))
        options = TIFFOptions()
        options.maxSegmentBytes = 399
        #expect(refusal(t.bytes, options) == .limitExceeded(what: "strip/tile bytes", value: 400, limit: 399, offset: offsetsAt))
    }

    @Test func tagBytesLimitDropsTheValue() throws {
        let t = TinyTIFF.gray(width: 40, height: 30, rowsPerStrip: 10)
        var options = TIFFOptions()
        options.maxTagBytes = 8
        // StripOffsets' 12 bytes are dropped with a warning: the tag is then unreadable.
        #expect {
            _ = try TIFFDecoder(source: MemoryByteSource(t.bytes), ledger: MemoryLedger(), options: options)
        } throws: { error in
            guard let error = error as? TIFFError, case let .invalidTag(tag, _, _, _) = error else { return false }
            return tag == 273
        }
    }

    @Test func pageCountStopsAtMaxPages() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/tiff/pages2-orientation6.tif"))
        var options = TIFFOptions()
        options.maxPages = 1
        #expect(try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: options).info.pageCount == 1)
        #expect(try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger()).info.pageCount == 2)
    }

    @Test func warningsStopAtMaxWarnings() throws {
        var t = TinyTIFF.gray(width: 4, height: 4, rowsPerStrip: 4)
        t.nextIFD = 8
        var options = TIFFOptions()
        options.maxWarnings = 0
        #expect(try TIFFDecoder(source: MemoryByteSource(t.bytes), ledger: MemoryLedger(), options: options).warnings.isEmpty)
    }

    @Test func ledgerLimitRefusesBeforeAllocating() throws {
        let t = TinyTIFF.gray(width: 1024, height: 64, rowsPerStrip: 64)
        let ledger = MemoryLedger(limit: 32 * 1024)
        #expect {
            var decoder = try TIFFDecoder(source: MemoryByteSource(t.bytes), ledger: ledger)
            _ = try decoder.decodeImage()
        } throws: { error in (error as? TIFFError)?.kind == .memoryLimit }
        #expect(ledger.peakBytes <= 32 * 1024 && ledger.currentBytes == 0)
    }
}
