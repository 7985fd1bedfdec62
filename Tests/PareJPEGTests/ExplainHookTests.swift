import PareCore
import TestSupport
import Testing
@_spi(Explain) @testable import PareJPEG

/// The hooks `pare explain` reads internal stages through: the coefficient snapshot (the
/// plain block reader of sequential scans, the coefficient store of progressive ones), the
/// canonical Huffman codes and the IJG quality estimate. The snapshot is checked against
/// the streaming decoder, its oracle: for a gray file the plane the snapshot's blocks make
/// through the IDCT is the decoder's output at full size, and their DC terms are its output
/// at 1/8.
@Suite struct ExplainHookTests {
    func decoded(_ bytes: [UInt8], _ scale: JPEGScale) throws -> [UInt8] {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
        var builder = ImageBuilder(ledger: MemoryLedger())
        try decoder.decode(scale: scale, into: &builder)
        return try #require(builder.image).pixels
    }

    func snapshot(_ bytes: [UInt8], keepAll: Bool = true, chosen: [[Int]] = []) throws -> JPEGCoefficientSnapshot {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
        return try decoder.coefficientSnapshot(keepAll: keepAll, chosen: chosen)
    }

    @Test(arguments: ["jpeg/fx-scene-gray.jpg", "jpeg/fx-scene-gray-rst7b.jpg", "jpeg/fx-text-300x200-gray.jpg",
                      "progressive/px-gray.jpg", "progressive/px-scans-successive-gray.jpg", "cut"])
    func grayPlaneIsTheDecodedImage(_ name: String) throws {
        // "cut": a baseline file that ends in the middle of its data; the blocks past the end
        // are flat in both.
        let whole = try #require(FileSystem.read(Corpus.fixtures + "/" + (name == "cut" ? "jpeg/fx-scene-gray.jpg" : name)))
        let bytes = name == "cut" ? Array(whole.prefix(whole.count * 3 / 5)) : whole
        let snapshot = try snapshot(bytes)
        let plane = snapshot.components[0].plane()
        #expect(plane.samples == (try decoded(bytes, .full)))
        // DC terms alone: the 1/8 decode.
        let component = snapshot.components[0]
        let dcOnly = component.dc.map { InverseDCT.dcSample($0, component.quantizers[0], size: 1) }
        #expect(dcOnly == (try decoded(bytes, .eighth)))
    }

    @Test func chosenBlocksOnlyAreKeptWhole() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/jpeg/fx-scene-gray.jpg"))
        let all = try snapshot(bytes)
        let some = try snapshot(bytes, keepAll: false, chosen: [[5]])
        let component = some.components[0]
        #expect(component.coefficients(row: 0, column: 5) == all.components[0].coefficients(row: 0, column: 5))
        #expect(component.coefficients(row: 0, column: 4) == nil)
        #expect(component.dc == all.components[0].dc)
        // Without every block, the plane is drawn from DC terms: one sample per block.
        let plane = component.plane()
        #expect(plane.width == component.blocksWide && plane.height == component.blocksHigh)
    }

    @Test func colorSnapshotHasEachComponentAtItsOwnSize() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/progressive/px-420.jpg"))
        let snapshot = try snapshot(bytes)
        let info = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger()).info
        #expect(snapshot.components.count == 3)
        #expect(snapshot.components[0].width == info.width)
        #expect(snapshot.components[1].width == (info.width + 1) / 2)
        #expect(snapshot.components[1].height == (info.height + 1) / 2)
    }

    /// T.81 Table K.3: the example DC luminance table's codes.
    @Test func canonicalCodesOfTheExampleTable() {
        let record = JPEGHuffmanRecord(tableClass: 0, id: 0, counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
                                       symbols: Array(0 ... 11))
        let codes = record.canonicalCodes
        #expect(codes.count == 12)
        #expect(codes[0].length == 2 && codes[0].code == 0b00)
        #expect(codes[1].length == 3 && codes[1].code == 0b010)
        #expect(codes[5].length == 3 && codes[5].code == 0b110)
        #expect(codes[6].length == 4 && codes[6].code == 0b1110)
        #expect(codes[11].length == 9 && codes[11].code == 0b1_1111_1110)
    }

    /// The IJG tables scaled for Q are estimated as exactly Q; tables of no IJG quality get
    /// no estimate.
    @Test func qualityOfScaledTables() {
        for q in [10, 50, 75, 85, 90, 95, 100] {
            let tables: [[Int]?] = [JPEGQualityEstimate.scaled(IJGQuality.luminance, quality: q),
                                    JPEGQualityEstimate.scaled(IJGQuality.chrominance, quality: q), nil, nil]
            let estimate = JPEGQualityEstimate.estimate(tables)
            #expect(estimate == .init(quality: q, exact: true, identical: true), "quality \(q)")
            let gray = JPEGQualityEstimate.estimate([tables[0], nil, nil, nil])
            #expect(gray?.quality == q)
        }
        // Flat tables of 2 sit between qualities 96 and 97 of IJG's.
        let flat = JPEGQualityEstimate.estimate([[Int](repeating: 2, count: 64), [Int](repeating: 2, count: 64)])
        #expect(flat?.identical == false)
        // 16-bit tables far coarser than quality 1: no estimate.
        let coarse = JPEGQualityEstimate.estimate([[Int](repeating: 1000, count: 64), [Int](repeating: 1000, count: 64)])
        #expect(coarse?.quality == nil)
    }

    /// The sample fixture is libjpeg's quality 85 (see Fixtures/README.md).
    @Test func sampleQuality() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/sample.jpg"))
        let structure = JPEGStructure.walk(MemoryByteSource(bytes), ledger: MemoryLedger())
        let estimate = JPEGQualityEstimate.estimate(JPEGQualityEstimate.tablesInForce(structure))
        #expect(estimate?.quality == 85)
        #expect(estimate?.identical == true)
    }
}
