import PareCore
import Testing
import TestSupport
@testable import PareJPEG

/// The marker walk behind `pare inspect` (T.81 Annex B).
@Suite struct JPEGStructureTests {
    @Test func walksASyntheticFileMarkerByMarker() {
        let bytes = SyntheticJPEG.make(width: 64, height: 64, restartInterval: 2)
        let structure = JPEGStructure.walk(MemoryByteSource(bytes), ledger: MemoryLedger())
        #expect(structure.failure == nil)
        #expect(structure.warnings.isEmpty)
        #expect(structure.markers.map(\.name) == ["SOI", "DQT", "SOF0", "DHT", "DHT", "DRI", "SOS", "EOI"])
        #expect(structure.markers[1].offset == 2 && structure.markers[1].length == 67)

        let frame = try! #require(structure.frames.first)
        #expect(frame.process == .baseline && frame.precision == 8 && frame.width == 64 && frame.height == 64)
        #expect(frame.components.map { [$0.id, $0.horizontal, $0.vertical] } == [[1, 2, 2], [2, 1, 1], [3, 1, 1]])

        guard case let .quantizationTables(tables) = structure.markers[1].content else {
            Issue.record("DQT not decoded")
            return
        }
        #expect(tables.count == 1 && tables[0].id == 0 && tables[0].bits == 8)
        #expect(tables[0].values == [UInt16](repeating: 1, count: 64))
        guard case let .huffmanTables(ac) = structure.markers[4].content else {
            Issue.record("DHT not decoded")
            return
        }
        #expect(ac.map(\.tableClass) == [1] && ac[0].counts == [0, 0, 0, 1] + [Int](repeating: 0, count: 12))

        // 4:2:0 at 64×64 is 4×4 MCUs; a restart every 2 MCUs puts 7 RSTn between them.
        let scan = try! #require(structure.scans.first)
        #expect(scan.components.map(\.id) == [1, 2, 3])
        #expect(scan.band.spectralStart == 0 && scan.band.spectralEnd == 63 && scan.band.approximationHigh == 0)
        #expect(scan.restartInterval == 2 && scan.restartMarkers == 7)
        let sos = structure.markers[6]
        #expect(scan.dataOffset == sos.offset + 2 + (sos.length ?? 0))
        #expect(scan.dataOffset + scan.dataLength == structure.endOfImage)
        #expect(structure.trailingBytes == 0)
    }

    @Test func quantisationTablesAreShownInNaturalOrder() {
        // Values 0…63 sent in zig-zag order (T.81 Figure A.6): natural index 8 is the third sent.
        var bytes = SyntheticJPEG.make(width: 8, height: 8)
        for k in 0 ..< 64 { bytes[7 + k] = UInt8(k) }
        let structure = JPEGStructure.walk(MemoryByteSource(bytes), ledger: MemoryLedger())
        guard case let .quantizationTables(tables) = structure.markers[1].content else {
            Issue.record("DQT not decoded")
            return
        }
        #expect(Array(tables[0].values[0 ..< 8]) == [0, 1, 5, 6, 14, 15, 27, 28])
        #expect(tables[0].values[8] == 2 && tables[0].values[63] == 63)
    }

    @Test func endOfFileInsideEntropyDataIsAWarning() {
        let bytes = SyntheticJPEG.make(width: 64, height: 64)
        let full = JPEGStructure.walk(MemoryByteSource(bytes), ledger: MemoryLedger())
        let cut = Array(bytes[0 ..< full.scans[0].dataOffset + 10])
        let structure = JPEGStructure.walk(MemoryByteSource(cut), ledger: MemoryLedger())
        #expect(structure.failure == nil)
        #expect(structure.warnings == [.truncated(scan: 1, offset: cut.count)])
        #expect(structure.scans[0].dataLength == 10 && structure.endOfImage == nil)
    }

    @Test func aSegmentCutShortIsAFailureWithItsOffset() {
        let bytes = Array(SyntheticJPEG.make(width: 8, height: 8)[0 ..< 40])
        let structure = JPEGStructure.walk(MemoryByteSource(bytes), ledger: MemoryLedger())
        #expect(structure.failure == .core(.outOfBounds(offset: 6, needed: 65, available: 34)))
        #expect(structure.markers.map(\.name) == ["SOI"])
        let notJPEG = JPEGStructure.walk(MemoryByteSource([0x89, 0x50]), ledger: MemoryLedger())
        #expect(notJPEG.failure == .notJPEG(offset: 0))
    }

    @Test(.requiresCorpus) func progressiveScanScriptAndApplicationSegments() throws {
        let root = Corpus.path
        let bytes = try #require(FileSystem.read(root + "/jpeg/conformance/go-video-001.progressive.truncated.jpg"))
        let structure = JPEGStructure.walk(MemoryByteSource(bytes), ledger: MemoryLedger())
        #expect(structure.failure == nil)
        #expect(structure.frames.first?.process == .progressive)
        let script = structure.scans.map { [$0.band.spectralStart, $0.band.spectralEnd, $0.band.approximationHigh, $0.band.approximationLow] }
        #expect(script.first == [0, 0, 0, 1])
        #expect(script.count > 1 && script.dropFirst().allSatisfy { $0[0] >= 1 })

        let sample = try #require(FileSystem.read(Corpus.fixtures + "/sample.jpg"))
        let walked = JPEGStructure.walk(MemoryByteSource(sample), ledger: MemoryLedger())
        guard case let .application(app) = walked.markers[1].content else {
            Issue.record("APP1 not decoded")
            return
        }
        #expect(app.kind == .exif && app.details == .exif(tiffHeaderOffset: 12, byteOrder: "II"))
        #expect(walked.frames.first.map { [$0.width, $0.height] } == [1536, 2048])
    }
}
