import PareCore
import TestSupport
import Testing
@_spi(Bands) @testable import PareJPEG

/// Band decoding from restart intervals (`JPEGDecoder.restartIndex`, `decodeBand`): bands
/// decoded on their own and put end to end must be the serial decode, byte for byte.
@Suite struct RestartBandTests {
    /// Keeps every row with its y, in arrival order.
    struct RowCollector: RowSink {
        var bytes: [UInt8] = []
        var ys: [Int] = []
        var header: RowStreamHeader?

        mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
            self.header = header
        }

        mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
            bytes.append(contentsOf: row)
            ys.append(placement.y)
        }
    }

    static let fixtureNames = ["fx-scene-420-rst1", "fx-scene-422-rst2", "fx-scene-420-rst3b", "fx-scene-444-rst1b",
                               "fx-scene-gray-rst7b", "fx-17x33-422-rst1b", "fx-7x9-411-rst1b"]

    static func synthetic() -> [(String, [UInt8])] {
        let c = SyntheticJPEG.Component.init
        return [("synthetic 4:2:0 101x67 every MCU", SyntheticJPEG.make(width: 101, height: 67, restartInterval: 1)),
                ("synthetic 4:2:2 77x45 every 5 MCUs",
                 SyntheticJPEG.make(width: 77, height: 45, components: [c(2, 1), c(1, 1), c(1, 1)], restartInterval: 5)),
                ("synthetic 4:4:0 33x70 every 2 MCUs",
                 SyntheticJPEG.make(width: 33, height: 70, components: [c(1, 2), c(1, 1), c(1, 1)], restartInterval: 2)),
                ("synthetic gray 9x200 every MCU row",
                 SyntheticJPEG.make(width: 9, height: 200, components: [c(1, 1)], restartInterval: 2))]
    }

    /// Splits `rows` MCU rows into bands: one row each, two halves, and uneven thirds.
    static func partitions(_ rows: Int) -> [[Range<Int>]] {
        var result: [[Range<Int>]] = [(0 ..< rows).map { $0 ..< $0 + 1 }]
        result.append([0 ..< rows / 2, rows / 2 ..< rows])
        let a = rows / 5, b = max(a, rows - 2)
        result.append([0 ..< a, a ..< b, b ..< rows])
        return result
    }

    /// Serial and banded decodes at every scale; returns how many comparisons were made.
    func checkBands(_ bytes: [UInt8], name: String) throws -> Int {
        var compared = 0
        for scale in JPEGScale.allCases {
            var serial = RowCollector()
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
            let headerWarnings = decoder.warnings.count
            try decoder.decode(scale: scale, into: &serial)
            #expect(decoder.warnings.count == headerWarnings, "\(name): the file itself needs repairs")
            let ledger = MemoryLedger()
            var banded = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger)
            let index = try #require(try banded.restartIndex(), "\(name): no restart index")
            #expect(index.mcuRows > 0)
            for partition in Self.partitions(index.mcuRows) {
                var collector = RowCollector()
                var expectedStart = 0
                for band in partition {
                    let rows = try banded.outputRows(ofBand: band, scale: scale)
                    #expect(rows.lowerBound == expectedStart, "\(name) \(scale.name) band \(band)")
                    expectedStart = rows.upperBound
                    let before = collector.ys.count
                    try banded.decodeBand(scale: scale, mcuRows: band, index: index, into: &collector)
                    #expect(collector.ys.count - before == rows.count, "\(name) \(scale.name) band \(band)")
                    #expect(banded.warnings.count == headerWarnings, "\(name) \(scale.name) band \(band)")
                }
                #expect(collector.ys == Array(0 ..< serial.ys.count), "\(name) \(scale.name) \(partition)")
                #expect(collector.bytes == serial.bytes, "\(name) \(scale.name) \(partition)")
                compared += 1
            }
            // A band holds one MCU row per component, as the serial decode does, plus the index.
            #expect(ledger.peakBytes < 1 << 20, "\(name) \(scale.name): \(ledger.peakBytes) bytes")
        }
        return compared
    }

    @Test func fixtureBandsMatchSerialDecode() throws {
        var compared = 0
        for name in Self.fixtureNames {
            let bytes = try #require(FileSystem.read(Corpus.fixtures + "/jpeg/\(name).jpg"), "missing fixture \(name)")
            compared += try checkBands(bytes, name: name)
        }
        #expect(compared == Self.fixtureNames.count * 4 * 3)
    }

    @Test func syntheticBandsMatchSerialDecode() throws {
        for (name, bytes) in Self.synthetic() {
            #expect(try checkBands(bytes, name: name) == 12)
        }
    }

    /// Every corpus JPEG that has a restart index (real camera files among them) bands exactly.
    @Test(.requiresCorpus) func corpusBandsMatchSerialDecode() throws {
        let root = Corpus.path
        var indexed = 0
        for folder in ["jpeg/conformance", "exif/cameras", "exif/edge"] {
            for name in FileSystem.list(root + "/" + folder) where name.hasSuffix(".jpg") {
                guard let bytes = FileSystem.read(root + "/\(folder)/" + name),
                      var decoder = try? JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger()),
                      (try? decoder.restartIndex()) != nil else { continue }
                var serial = RowCounter()
                guard (try? decoder.decode(scale: .full, into: &serial)) != nil,
                      decoder.warnings.isEmpty else { continue }
                indexed += 1
                _ = try checkBands(bytes, name: name)
            }
        }
        print("restart-indexed corpus files compared: \(indexed)")
        #expect(indexed > 0)
    }

    /// The top band can start before the index exists (the parallel decoder's first band),
    /// and one decoder can index and then decode bands at several scales in any order.
    @Test func topBandNeedsNoIndex() throws {
        for (name, bytes) in Self.synthetic() {
            var indexing = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
            let index = try #require(try indexing.restartIndex())
            let top = 0 ..< max(1, index.mcuRows / 2)
            for scale in [JPEGScale.eighth, .full, .half, .eighth] {
                var withIndex = RowCollector(), withoutIndex = RowCollector()
                try indexing.decodeBand(scale: scale, mcuRows: top, index: index, into: &withIndex)
                var fresh = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
                try fresh.decodeBand(scale: scale, mcuRows: top, index: nil, into: &withoutIndex)
                #expect(withIndex.ys == withoutIndex.ys && !withIndex.ys.isEmpty, "\(name) \(scale.name)")
                #expect(withIndex.bytes == withoutIndex.bytes, "\(name) \(scale.name)")
            }
        }
    }

    /// Index entries point just past each RST marker, at the interval holding the row's first MCU.
    @Test func indexFindsEveryInterval() throws {
        let bytes = SyntheticJPEG.make(width: 64, height: 48, restartInterval: 3)
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
        let index = try #require(try decoder.restartIndex())
        #expect(index.mcusPerLine == 4 && index.mcuRows == 3 && index.restartInterval == 3)
        var markers: [Int] = []
        for i in 1 ..< bytes.count where bytes[i - 1] == 0xFF && bytes[i] >= 0xD0 && bytes[i] <= 0xD7 {
            markers.append(i + 1)
        }
        #expect(markers.count == 3)
        // Row 1 starts at MCU 4 (interval 1), row 2 at MCU 8 (interval 2).
        #expect(index.start(ofRow: 0).interval == 0)
        #expect(index.start(ofRow: 1) == (1, markers[0]))
        #expect(index.start(ofRow: 2) == (2, markers[1]))
    }

    /// Damaged restart sequences give no index, so callers keep the serial decode's repairs.
    @Test func damagedRestartsGiveNoIndex() throws {
        let good = SyntheticJPEG.make(width: 64, height: 64, restartInterval: 2)
        var rst: [Int] = []
        for i in 1 ..< good.count where good[i - 1] == 0xFF && good[i] >= 0xD0 && good[i] <= 0xD7 { rst.append(i) }
        #expect(rst.count == 7)
        var wrongNumber = good
        wrongNumber[rst[3]] = 0xD5
        var missing = good
        missing.removeSubrange(rst[2] - 1 ... rst[2])
        var extra = good
        extra.insert(contentsOf: [0xFF, 0xD7], at: rst[6] + 1)
        let truncated = Array(good[..<(rst[5] + 10)])
        let noDRI = SyntheticJPEG.make(width: 64, height: 64)
        for (name, bytes) in [("wrong number", wrongNumber), ("missing", missing), ("extra", extra),
                              ("truncated", truncated), ("no DRI", noDRI)] {
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
            #expect(try decoder.restartIndex() == nil, "\(name)")
            // The index pass leaves the decoder ready for a serial decode.
            var rows = RowCounter()
            try decoder.decode(scale: .full, into: &rows)
            #expect(rows.rows == 64 && rows.inOrder, "\(name)")
        }
        var decoder = try JPEGDecoder(source: MemoryByteSource(good), ledger: MemoryLedger())
        #expect(try decoder.restartIndex() != nil)
        var rows = RowCounter()
        try decoder.decode(scale: .full, into: &rows)
        #expect(rows.rows == 64 && decoder.warnings.isEmpty)
    }
}
