import PareCore
import ParePNG
import Testing
import TestSupport

/// The chunk walk behind `pare inspect` (PNG 3rd ed. §5, §9.2, §10.1).
@Suite struct PNGStructureTests {
    @Test func listsChunksAndCountsFilterTypes() {
        let bytes = SyntheticPNG.make(width: 40, height: 30, channels: 3, interlaced: false)
        let structure = PNGStructure.walk(MemoryByteSource(bytes), ledger: MemoryLedger())
        #expect(structure.failure == nil)
        #expect(structure.chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        #expect(structure.chunks.allSatisfy { $0.crcMatches && $0.isCritical })
        #expect(structure.chunks[0].offset == 8 && structure.chunks[0].length == 13)
        #expect(structure.chunks[1].offset == 33)
        let header = structure.header
        #expect(header?.width == 40 && header?.height == 30 && header?.bitDepth == 8 && header?.colorType == 2)
        #expect(header?.interlaced == false)
        #expect(structure.filterCounts == [30, 0, 0, 0, 0])
        #expect(structure.inflatedBytes == 30 * (40 * 3 + 1))
        #expect(structure.streamComplete)
        #expect(structure.zlib?.method == 8 && structure.zlib?.windowSize == 32768 && structure.zlib?.checkMatches == true)
        #expect(structure.zlib?.presetDictionary == false)
    }

    @Test func interlacedImagesCountEveryPass() {
        // Adam7 on 32×32: passes of 4, 4, 4, 8, 8, 16 and 16 rows.
        let bytes = SyntheticPNG.make(width: 32, height: 32, channels: 1, interlaced: true)
        let structure = PNGStructure.walk(MemoryByteSource(bytes), ledger: MemoryLedger())
        #expect(structure.failure == nil)
        #expect(structure.scanlines == 60)
    }

    @Test func ancillaryCRCIsReportedCriticalCRCFails() {
        let bytes = SyntheticPNG.make(width: 8, height: 8, channels: 1, interlaced: false)
        var text = chunk("tEXt", Array("Title\0Pare".utf8))
        text[text.count - 1] ^= 1
        let withText = Array(bytes[0 ..< 33]) + text + Array(bytes[33...])
        let tolerated = PNGStructure.walk(MemoryByteSource(withText), ledger: MemoryLedger())
        #expect(tolerated.failure == nil)
        #expect(tolerated.chunks.map { "\($0.type) \($0.crcMatches)" } == ["IHDR true", "tEXt false", "IDAT true", "IEND true"])

        var broken = bytes
        let idat = 33
        let idatLength = Int(bytes[idat]) << 24 | Int(bytes[idat + 1]) << 16 | Int(bytes[idat + 2]) << 8 | Int(bytes[idat + 3])
        broken[idat + 8 + idatLength] ^= 0xFF
        let structure = PNGStructure.walk(MemoryByteSource(broken), ledger: MemoryLedger())
        #expect(structure.failure == .crcMismatch(chunk: "IDAT", offset: idat))
        #expect(structure.chunks.last?.crcMatches == false)
    }

    @Test func imageDataCutShortFailsWithRowsMissing() {
        let rows = zlibCompress([0, 1, 2, 3, 4] + [0, 1, 2, 3, 4])
        let bytes = pngSignature + ihdr(width: 4, height: 3, depth: 8, colorType: 0) + chunk("IDAT", rows) + chunk("IEND", [])
        let structure = PNGStructure.walk(MemoryByteSource(bytes), ledger: MemoryLedger())
        #expect(structure.failure == .notEnoughImageData(offset: 33 + 12 + rows.count, rowsMissing: 1))
        #expect(structure.filterCounts == [2, 0, 0, 0, 0])
    }

    @Test(.requiresCorpus) func pngSuiteFilterFiles() throws {
        let root = Corpus.path
        for (name, filter) in [("f00n0g08", 0), ("f01n2c08", 1), ("f02n2c08", 2), ("f03n2c08", 3), ("f04n2c08", 4)] {
            let bytes = try #require(FileSystem.read(root + "/png/pngsuite/\(name).png"))
            let structure = PNGStructure.walk(MemoryByteSource(bytes), ledger: MemoryLedger())
            var expected = [0, 0, 0, 0, 0]
            expected[filter] = 32
            #expect(structure.failure == nil && structure.filterCounts == expected, "\(name)")
        }
        let bad = try #require(FileSystem.read(root + "/png/pngsuite/xcsn0g01.png"))
        #expect(PNGStructure.walk(MemoryByteSource(bad), ledger: MemoryLedger()).failure
                == .crcMismatch(chunk: "IDAT", offset: 49))
    }
}
