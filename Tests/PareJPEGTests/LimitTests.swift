import PareCore
import PareJPEG
import Testing
import TestSupport

/// Every limit of `JPEGOptions` and the ledger's, each crossed by a small synthetic file and
/// answered with the typed error that names it; raising the limit lets the same file through.
/// (`maxExactCoefficientBytes` is a choice rather than a refusal: `ProgressiveTests`'s
/// `cornerStoreSkipsHighBands` crosses it.)
@Suite struct JPEGLimitTests {
    /// SyntheticJPEG's layout with three components: SOI, DQT at 2, SOF0 at 71, DHT at 90 and
    /// 123, SOS at 145.
    static let sofOffset = 71
    static let sosOffset = 145

    static func decode(_ bytes: [UInt8], _ options: JPEGOptions = JPEGOptions(), ledger: MemoryLedger = MemoryLedger(),
                       scale: JPEGScale = .full) throws(JPEGError) -> JPEGDecoder<MemoryByteSource> {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
        var sink = RowCounter()
        try decoder.decode(scale: scale, into: &sink)
        return decoder
    }

    /// The offsets of every marker 0xFF `code` (entropy-coded data never holds one: T.81
    /// B.1.1.5 stuffs a zero after each 0xFF).
    static func offsets(of code: UInt8, in bytes: [UInt8]) -> [Int] {
        (0 ..< bytes.count - 1).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == code }
    }

    @Test func dimensionLimit() throws {
        var options = JPEGOptions()
        options.maxDimension = 99
        #expect(throws: JPEGError.limitExceeded(what: "width", value: 100, limit: 99, offset: Self.sofOffset)) {
            try Self.decode(SyntheticJPEG.make(width: 100, height: 16), options)
        }
        #expect(throws: JPEGError.limitExceeded(what: "height", value: 100, limit: 99, offset: Self.sofOffset)) {
            try Self.decode(SyntheticJPEG.make(width: 16, height: 100), options)
        }
        options.maxDimension = 100
        #expect(try Self.decode(SyntheticJPEG.make(width: 100, height: 16), options).info.width == 100)
    }

    @Test func pixelLimit() throws {
        let bytes = SyntheticJPEG.make(width: 100, height: 10)
        var options = JPEGOptions()
        options.maxPixels = 999
        #expect(throws: JPEGError.limitExceeded(what: "pixel count", value: 1000, limit: 999, offset: Self.sofOffset)) {
            try Self.decode(bytes, options)
        }
        options.maxPixels = 1000
        #expect(try Self.decode(bytes, options).info.height == 10)
    }

    @Test func bombHeaderIsRefusedBeforeAnyBufferIsSized() throws {
        let ledger = MemoryLedger()
        for bomb in [BombFiles.jpeg(width: 65500, height: 65500, dataBytes: 64),
                     BombFiles.progressiveJPEG(width: 65500, height: 65500, dataBytes: 64)] {
            // SOI and DQT come first: SOF at 71.
            #expect(throws: JPEGError.limitExceeded(what: "pixel count", value: 65500 * 65500, limit: 1 << 28, offset: 71)) {
                try Self.decode(bomb, ledger: ledger)
            }
        }
        // Only the 64 KiB read window was ever allocated.
        #expect(ledger.peakBytes <= 64 * 1024 + 64)
    }

    @Test func segmentLimitBeforeTheFirstScan() throws {
        // DQT, SOF0, DHT, DHT, SOS.
        let bytes = SyntheticJPEG.make(width: 32, height: 32)
        var options = JPEGOptions()
        options.maxSegments = 4
        #expect(throws: JPEGError.limitExceeded(what: "marker segment count", value: 5, limit: 4, offset: Self.sosOffset)) {
            try Self.decode(bytes, options)
        }
        options.maxSegments = 5
        #expect(try Self.decode(bytes, options).info.segments.count == 5)
    }

    @Test func segmentLimitCountsTheSegmentsBetweenScans() throws {
        // Five segments up to the first SOS, then one SOS per later scan.
        let bytes = SyntheticProgressiveJPEG.make(width: 32, height: 32)
        let scans = Self.offsets(of: 0xDA, in: bytes)
        #expect(scans.count == 5)
        var options = JPEGOptions()
        options.maxSegments = 5
        #expect(throws: JPEGError.limitExceeded(what: "marker segment count", value: 6, limit: 5, offset: scans[1])) {
            try Self.decode(bytes, options)
        }
        options.maxSegments = 9
        #expect(try Self.decode(bytes, options).warnings.isEmpty)
    }

    @Test func scanLimit() throws {
        let bytes = SyntheticProgressiveJPEG.make(width: 32, height: 32)
        let scans = Self.offsets(of: 0xDA, in: bytes)
        var options = JPEGOptions()
        options.maxScans = 4
        #expect(throws: JPEGError.limitExceeded(what: "scan count", value: 5, limit: 4, offset: scans[4])) {
            try Self.decode(bytes, options)
        }
        options.maxScans = 5
        #expect(try Self.decode(bytes, options).warnings.isEmpty)

        // A sequential file whose components come in separate scans (T.81 A.2.2).
        let sequential = Self.nonInterleaved()
        let sequentialScans = Self.offsets(of: 0xDA, in: sequential)
        #expect(sequentialScans.count == 3)
        options.maxScans = 2
        #expect(throws: JPEGError.limitExceeded(what: "scan count", value: 3, limit: 2, offset: sequentialScans[2])) {
            try Self.decode(sequential, options)
        }
        options.maxScans = 3
        #expect(try Self.decode(sequential, options).warnings.isEmpty)
    }

    @Test func warningLimit() throws {
        // One stray byte before each DHT and before SOS: three "extraneous bytes" warnings.
        var bytes = SyntheticJPEG.make(width: 32, height: 32)
        for offset in [Self.sosOffset, 123, 90] { bytes.insert(0x12, at: offset) }
        var options = JPEGOptions()
        #expect(try Self.decode(bytes, options).warnings.count == 3)
        options.maxWarnings = 1
        let decoder = try Self.decode(bytes, options)
        #expect(decoder.warnings == [.extraneousBytes(count: 1, marker: 0xC4, offset: 91)])
        #expect(decoder.droppedWarnings == 2)
        options.strict = true
        #expect(throws: JPEGError.strict(.extraneousBytes(count: 1, marker: 0xC4, offset: 91))) {
            try Self.decode(bytes, options)
        }
    }

    @Test func ledgerLimit() throws {
        let bytes = SyntheticJPEG.make(width: 640, height: 480)
        let needed = MemoryLedger()
        _ = try Self.decode(bytes, ledger: needed)
        let peak = needed.peakBytes
        do {
            _ = try Self.decode(bytes, ledger: MemoryLedger(limit: peak - 1))
            Issue.record("decoded under a limit below its peak")
        } catch {
            guard case let .core(.limitExceeded(requested, inUse, limit)) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(limit == peak - 1 && inUse + requested > limit)
        }
        #expect(try Self.decode(bytes, ledger: MemoryLedger(limit: peak)).warnings.isEmpty)
    }

    /// `inputWindowBytes` is a size, not a refusal: a window of 64 bytes (and one below the
    /// minimum, raised to it) decodes the same pixels as the default 64 KiB, sequential and
    /// progressive. The ledger peak is lower by the window's difference and, for a sequential
    /// file, by the fast-path parts of each AC table (24,576 bytes), which a window too small
    /// for the fast path does not build; progressive scans never build them.
    @Test(arguments: [("sample.jpg", 2), ("progressive/px-411.jpg", 0)])
    func smallInputWindowDecodesTheSamePixels(_ name: String, acTablesWithFastParts: Int) throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/" + name))
        func decode(window: Int) throws -> (pixels: [UInt8], peak: Int) {
            var options = JPEGOptions()
            options.inputWindowBytes = window
            let ledger = MemoryLedger()
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
            var sink = ImageBuilder(ledger: MemoryLedger())
            try decoder.decode(scale: .full, into: &sink)
            return (try #require(sink.image).pixels, ledger.peakBytes)
        }
        let large = try decode(window: JPEGOptions().inputWindowBytes)
        let small = try decode(window: 64)
        #expect(small.pixels == large.pixels)
        #expect(large.peak - small.peak == 64 * 1024 - 64 + acTablesWithFastParts * 24_576)
        #expect(try decode(window: 1).pixels == large.pixels)
    }

    /// A 24×16 4:4:4 baseline file with one scan per component (T.81 A.2.2), all blocks
    /// zero, each scan with its own tables: the non-interleaved sequential case.
    static func nonInterleaved() -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ body: [UInt8]) { out += SyntheticJPEG.segment(marker, body) }
        segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))
        segment(0xC0, [8, 0, 16, 0, 24, 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])
        let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0]
        segment(0xC4, [0x00] + oneCode + [0x10] + oneCode)
        for id: UInt8 in 1 ... 3 {
            segment(0xDA, [1, id, 0x00, 0, 63, 0])
            // 6 blocks × 2 zero bits, padded with 1 bits.
            out += [0x00, 0x0F]
        }
        out += [0xFF, 0xD9]
        return out
    }
}
