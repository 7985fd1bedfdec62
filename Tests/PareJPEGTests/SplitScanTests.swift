@_spi(Pipeline) import PareCore
import Testing
import TestSupport
@_spi(Pipeline) @testable import PareJPEG

/// `JPEGDecoder.decodeSplit` (`SplitScan`: the second thread decodes from the middle of the
/// scan's data, the first meets it there): `decode`'s rows, warnings and errors, byte for
/// byte, wherever the split falls, whichever thread is done first, on the fixtures, the
/// corpus, and cut and damaged photographs. The handoff here runs the two halves one after
/// the other on the test's thread, so that which one finishes first is fixed: the second
/// part first (the first thread meets it as early as the snapshots allow, and takes the most
/// from it), the same with its publications handed over one at a time (the first thread meets
/// it as if it were still decoding, and waits for each of the rest), or the first part first
/// (it never sees the second, and decodes everything).
/// `PipelinedDecodeTests` runs the same decode on two threads.
@Suite struct SplitScanTests {
    /// A handoff whose "threads" run one after the other on the caller's.
    final class OneAfterOther: DecodePipelineHandoff {
        enum Order: CaseIterable {
            case secondPartFirst, secondPartTrickling, firstPartFirst
        }
        let order: Order
        var published = 0
        var stop = false
        /// Trickling: whether the last question `rowIsWaiting` answered was answered yes.
        var saidYes = false

        init(_ order: Order) { self.order = order }

        func run(producer: () -> Void, consumer: () -> Void) {
            if order == .firstPartFirst {
                consumer()
                producer()
            } else {
                producer()
                consumer()
            }
        }

        var slots: Int { 2 }
        func acquireSlot() {}
        func releaseSlot() {}
        func publishRow() { published += 1 }
        func awaitRow() { published -= 1 }
        /// Trickling, every other question is answered no: the first part takes one
        /// publication a row without waiting, then `awaitRow` for each once it has met.
        var rowIsWaiting: Bool {
            guard order == .secondPartTrickling else { return published > 0 }
            saidYes = !saidYes && published > 0
            return saidYes
        }
        func requestStop() { stop = true }
        var stopRequested: Bool { stop }
        var consumerIsBehind: Bool { false }
        var forcedShare: Bool? { nil }
    }

    struct Outcome: Equatable {
        var pixels: UInt64 = 0
        var rows = 0
        var warnings: [String] = []
        var error: String?
        var bytesRead = 0
    }

    static func decode(_ bytes: [UInt8], scale: JPEGScale, split: (percent: Int, order: OneAfterOther.Order)?,
                       interval: Int = SplitScan.snapshotInterval, dataEnd: Int? = nil) -> (Outcome, SplitScanReport?) {
        var sink = EntropyPathTests.HashingSink()
        var outcome = Outcome()
        var report: SplitScanReport?
        do {
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: JPEGOptions())
            do {
                // Only the split runs on this handoff: the pipelined decode needs real threads.
                if let split, decoder.splitsScan(at: scale) {
                    decoder.dataEnd = dataEnd
                    decoder.splitPercent = split.percent
                    decoder.splitSnapshotInterval = interval
                    try decoder.decodePipelined(scale: scale, handoff: OneAfterOther(split.order),
                                                into: &sink)
                } else {
                    try decoder.decode(scale: scale, into: &sink)
                }
            } catch {
                outcome.error = "\(error)"
            }
            outcome.warnings = decoder.warnings.map { "\($0)" }
            outcome.bytesRead = decoder.bytesRead
            report = decoder.lastSplit
        } catch {
            outcome.error = "\(error)"
        }
        outcome.pixels = sink.hash
        outcome.rows = sink.rows
        return (outcome, report)
    }

    /// Every split and order against `decode`; the reports of the splits that ran with the
    /// second part first.
    @discardableResult
    static func expectSame(_ bytes: [UInt8], _ what: String, scales: [JPEGScale] = [.eighth],
                           percents: [Int] = [10, 50, 90], interval: Int = SplitScan.snapshotInterval)
        -> [SplitScanReport] {
        var reports: [SplitScanReport] = []
        for scale in scales {
            let serial = decode(bytes, scale: scale, split: nil).0
            for percent in percents {
                for order in OneAfterOther.Order.allCases {
                    let (split, report) = decode(bytes, scale: scale, split: (percent, order), interval: interval)
                    #expect(split == serial, "\(what) at \(scale.blockSize)/8, split at \(percent) %, \(order), snapshots every \(interval)")
                    if let report, order == .secondPartFirst { reports.append(report) }
                }
            }
        }
        return reports
    }

    static func files(_ folder: String) -> [(String, [UInt8])] {
        FileSystem.list(folder).filter { $0.hasSuffix(".jpg") }.sorted().compactMap { name in
            FileSystem.read(folder + "/" + name).map { (name, $0) }
        }
    }

    /// A photograph: the decodes meet within the first snapshots after the split (Huffman
    /// codes fall into step within a few dozen codes), and all of the rest but the last
    /// snapshot interval or two comes from the second part's records, whether the second
    /// part was done at the meeting or published the rest one piece at a time after it.
    @Test(arguments: [20, 50, 80], [OneAfterOther.Order.secondPartFirst, .secondPartTrickling])
    func photographMeetsSoonAfterTheSplit(percent: Int, order: OneAfterOther.Order) throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/sample.jpg"))
        let serial = Self.decode(bytes, scale: .eighth, split: nil).0
        let (split, report) = Self.decode(bytes, scale: .eighth, split: (percent, order))
        #expect(split == serial)
        let r = try #require(report)
        let meeting = try #require(r.meetingBits)
        let mcu = try #require(r.meetingMCU)
        #expect(meeting < (r.end - r.split) * 8 / 25, "\(r)")
        #expect(r.mcusTaken >= r.mcus - mcu - 2 * SplitScan.snapshotInterval, "\(r)")
    }

    /// A photograph followed by as many bytes again (a gain map or a preview after its EOI):
    /// without a hint the split lies near the end of its data and the decodes never meet;
    /// told where the data ends (`dataEnd`, from a Multi-Picture index), the split lies in
    /// the middle of the data and they meet soon after it. The rows are `decode`'s either way,
    /// and with a hint past the input's end or before the scan.
    @Test func dataEndPlacesTheSplitBeforeATrailer() throws {
        let photo = try #require(FileSystem.read(Corpus.fixtures + "/sample.jpg"))
        let bytes = photo + photo.map { $0 == 0xFF ? 0x7F : $0 }
        let serial = Self.decode(bytes, scale: .eighth, split: nil).0
        let blind = try #require(Self.decode(bytes, scale: .eighth, split: (50, .secondPartFirst)).1)
        #expect(blind.split > photo.count * 9 / 10, "\(blind)")
        #expect(blind.meetingMCU == nil, "\(blind)")
        let (split, report) = Self.decode(bytes, scale: .eighth, split: (50, .secondPartFirst), dataEnd: photo.count)
        #expect(split == serial)
        let r = try #require(report)
        let scanStart = try JPEGDecoder(source: MemoryByteSource(photo), ledger: MemoryLedger(), options: JPEGOptions())
            .scanStart
        let middle = scanStart + (photo.count - scanStart) / 2
        #expect(abs(r.split - middle) <= 4, "\(r), middle \(middle)")
        let mcu = try #require(r.meetingMCU)
        #expect(r.mcusTaken >= r.mcus - mcu - 2 * SplitScan.snapshotInterval, "\(r)")
        for hint in [bytes.count * 2, 0, scanStart] {
            #expect(Self.decode(bytes, scale: .eighth, split: (50, .secondPartFirst), dataEnd: hint).0 == serial,
                    "data end \(hint)")
        }
    }

    /// Sample sizes and samplings of the fixtures, at 1/8 and at 1/4 (the split runs at 1/4
    /// only without subsampling, where every block is 2×2).
    @Test func fixturesMatchTheSerialDecode() throws {
        let files = Self.files(Corpus.fixtures + "/jpeg")
        #expect(files.count >= 5)
        for (name, bytes) in files { Self.expectSame(bytes, name, scales: [.eighth, .quarter]) }
    }

    /// The conformance and malformed corpus, with snapshots every 16 MCUs and after every
    /// MCU. With every MCU a snapshot, the meeting point is where the two decodes first agree:
    /// the figures of how far that lies from the split, over the images with at least 64
    /// MCUs after it (smaller ones leave the second thread too little to meet in).
    @Test(.requiresCorpus) func corpusMatchesTheSerialDecode() throws {
        var reports: [SplitScanReport] = []
        var count = 0
        for folder in ["conformance", "malformed"] {
            for (name, bytes) in Self.files(Corpus.path + "/jpeg/" + folder) {
                Self.expectSame(bytes, "\(folder)/\(name)", percents: [50])
                reports += Self.expectSame(bytes, "\(folder)/\(name)", percents: [50], interval: 1)
                count += 1
            }
        }
        #expect(count > 50)
        let large = reports.filter { $0.mcus >= 128 }
        let met = large.compactMap(\.meetingBits).sorted()
        let median = met.isEmpty ? 0 : met[met.count / 2]
        print("SplitScanTests: \(large.count) splits at 1/8 of images with 128 MCUs or more, \(met.count) met "
              + "(bits from the split: median \(median), 90th percentile \(met.isEmpty ? 0 : met[met.count * 9 / 10]), "
              + "largest \(met.last ?? 0)), \(large.count - met.count) decoded whole by the first thread")
        // Those that never meet: a blank image whose every MCU is the same few bits, a
        // four-component file, damaged and cut ones.
        #expect(met.count * 4 >= large.count * 3)
    }

    /// Cut and damaged photographs: data that ends, or turns bad, before the split, after it,
    /// and right where the second part would meet the first.
    @Test func damageMatchesTheSerialDecode() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/sample.jpg"))
        for fraction in [30, 50, 51, 52, 60, 75, 90, 99] {
            Self.expectSame(Array(bytes.prefix(bytes.count * fraction / 100)), "sample.jpg cut at \(fraction) %",
                            percents: [50])
        }
        let report = try #require(Self.decode(bytes, scale: .eighth, split: (50, .secondPartFirst)).1)
        for offset in [report.split / 2, report.split - 1, report.split, report.split + 16, report.split + 4096,
                       (report.split + report.end) / 2, report.end - 600] {
            var damaged = bytes
            damaged[offset] ^= 0x5A
            damaged[offset + 1] = 0xFF
            Self.expectSame(damaged, "sample.jpg damaged at \(offset)", percents: [50])
            // A bad Huffman code alone, without a marker.
            var flipped = bytes
            flipped[offset] = 0xFF
            flipped[offset + 1] = 0x00
            flipped[offset + 2] = 0xFF
            flipped[offset + 3] = 0x00
            Self.expectSame(flipped, "sample.jpg with ones at \(offset)", percents: [50])
        }
    }
}
