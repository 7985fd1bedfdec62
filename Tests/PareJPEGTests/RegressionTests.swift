import PareCore
import Testing
import TestSupport
@testable import PareJPEG

/// Replays every input under `Fixtures/regressions/jpeg/` (files that once broke or stalled
/// the decoder) the way `Fuzz/jpeg.swift` runs them: default options, a 64 MiB ledger, every
/// scale, rows into a sink that checks their order and length. Each must end in a typed error
/// or a whole image; an image from damaged data must say so with a warning. (The PNG and EXIF
/// regressions are replayed by the ParePNGTests and PareEXIFTests suites of the same name.)
@Suite struct JPEGRegressionTests {
    static let ledgerLimit = 64 << 20
    static var folder: String { Corpus.fixtures + "/regressions/jpeg" }

    /// Checks rows arrive once each, top to bottom, at the announced length.
    struct CheckingSink: RowSink {
        var header: RowStreamHeader?
        var rows = 0
        var problems: [String] = []
        var lastRowFirstSample: UInt8 = 0

        mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
            self.header = header
        }

        mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
            guard let header else { return problems.append("row before begin") }
            if placement.y != rows || placement.xOrigin != 0 || placement.xStep != 1 || placement.width != header.width {
                problems.append("row \(rows) placed at \(placement)")
            }
            if row.count != header.width * header.format.bytesPerPixel {
                problems.append("row \(rows): \(row.count) bytes for width \(header.width)")
            }
            if let first = row.first { lastRowFirstSample = first }
            rows += 1
        }
    }

    enum Outcome {
        case image(JPEGDecoder<MemoryByteSource>, CheckingSink)
        case error(JPEGError)
    }

    static func replay(_ bytes: [UInt8], scale: JPEGScale) -> Outcome {
        do {
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(limit: ledgerLimit))
            var sink = CheckingSink()
            try decoder.decode(scale: scale, into: &sink)
            return .image(decoder, sink)
        } catch {
            return .error(error)
        }
    }

    @Test func everyRegressionEndsInAnErrorOrAnImageWithWarnings() throws {
        let inputs = Regressions.inputs("jpeg")
        try #require(!inputs.isEmpty, "no inputs in \(Self.folder)")
        for input in inputs {
            // A file kept by Fuzz/keep.sh starts with the fuzzer's request byte; every scale
            // is replayed whatever it asked for.
            let name = input.name, bytes = input.isFuzzerInput ? Array(input.bytes.dropFirst()) : input.bytes
            for scale in JPEGScale.allCases {
                switch Self.replay(bytes, scale: scale) {
                case let .image(decoder, sink):
                    #expect(sink.problems.isEmpty, "\(name) at \(scale.name): \(sink.problems.prefix(3))")
                    #expect(sink.rows == sink.header?.height, "\(name) at \(scale.name)")
                    #expect(!decoder.warnings.isEmpty, "\(name) at \(scale.name): damaged input decoded without a warning")
                case let .error(error):
                    #expect(error.description.hasPrefix("JPEG: ") && error.description.contains("byte"),
                            "\(name) at \(scale.name): \(error.description)")
                }
            }
        }
    }

    /// RobustnessTests decodes the corpus's damaged files at 1/1 and 1/8; the scales between
    /// run other IDCT sizes and upsampling paths over the same damage.
    @Test(.requiresCorpus) func malformedCorpusAtTheMiddleScales() throws {
        let root = Corpus.path
        var images = 0, errors = 0
        for name in FileSystem.list(root + "/jpeg/malformed") {
            let bytes = try #require(FileSystem.read(root + "/jpeg/malformed/" + name))
            for scale in [JPEGScale.half, .quarter] {
                switch Self.replay(bytes, scale: scale) {
                case let .image(_, sink):
                    images += 1
                    #expect(sink.problems.isEmpty && sink.rows == sink.header?.height, "\(name) at \(scale.name)")
                case let .error(error):
                    errors += 1
                    #expect(error.description.hasPrefix("JPEG: ") && error.description.contains("byte"),
                            "\(name) at \(scale.name): \(error.description)")
                }
            }
        }
        #expect(images + errors >= 200)
    }

    /// Replays one file of the folder at every scale; `check` gets each decoded image.
    static func replayAtEveryScale(_ name: String,
                                   _ check: (JPEGScale, JPEGDecoder<MemoryByteSource>, CheckingSink) -> Void) throws {
        let bytes = try #require(FileSystem.read(Self.folder + "/" + name))
        for scale in JPEGScale.allCases {
            guard case let .image(decoder, sink) = Self.replay(bytes, scale: scale) else {
                Issue.record("\(name): no image at \(scale.name)")
                continue
            }
            check(scale, decoder, sink)
        }
    }

    /// A 1×1 file whose SOF was patched to 16384×16384 (1,048,576 MCUs of 4:2:0): the data
    /// covers one MCU. The decode must cost what the data holds, not what the header claims:
    /// two MCUs entropy decoded (the real one and the one the zero padding runs out in), a few
    /// MCU rows filled flat, and every later row a copy of one mid-gray row.
    @Test func sofLargerThanItsDataStopsDecodingWhereTheDataEnds() throws {
        let name = "slow-sof-16384x16384-1x1-data.jpg"
        let size = try #require(FileSystem.read(Self.folder + "/" + name)).count
        try Self.replayAtEveryScale(name) { scale, decoder, sink in
            let height = 2048 * scale.rawValue
            #expect(sink.header?.width == height && sink.header?.height == height)
            #expect(sink.rows == height && sink.problems.isEmpty)
            #expect(decoder.decodedMCUs <= 2, "\(decoder.decodedMCUs) MCUs entropy decoded at \(scale.name)")
            // Rows built from decoded or filled MCU rows: at most three MCU rows' worth (16 luma rows each at 1/1).
            #expect(decoder.repeatedRows >= height - 3 * 2 * scale.rawValue, "\(decoder.repeatedRows) rows repeated")
            #expect(decoder.bytesRead <= size)
            #expect(sink.lastRowFirstSample == 128)
            #expect(decoder.warnings.contains { if case .truncated(scan: 1, _) = $0 { return true } else { return false } })
        }
    }

    /// A 738-byte progressive file (found by fuzzing) whose SOF claims 193×31423 and whose
    /// first DC scan ends after a few MCU rows: the MCU rows no scan reached are flat, and the
    /// decode repeats one row for them instead of transforming and converting 6 megapixels.
    @Test func progressiveFileCutShortRepeatsItsFlatTail() throws {
        try Self.replayAtEveryScale("slow-progressive-193x31423-truncated-dc.jpg") { scale, decoder, sink in
            let height = (31423 * scale.rawValue + 7) / 8
            #expect(sink.rows == height && sink.problems.isEmpty)
            #expect(decoder.repeatedRows >= height - height / 8, "\(decoder.repeatedRows) of \(height) rows repeated")
            #expect(sink.lastRowFirstSample == 128)
        }
    }

    /// The shortcut must not change what comes out: a file cut short decodes row for row as
    /// it did when every flat block was converted (mid-gray after the data ends), and a file
    /// whose restart markers let decoding resume after a gap is not cut off at the gap.
    @Test func flatTailMatchesAFullConversion() throws {
        let whole = SyntheticJPEG.make(width: 96, height: 400, components: [SyntheticJPEG.Component(2, 2),
                                                                              SyntheticJPEG.Component(1, 1),
                                                                              SyntheticJPEG.Component(1, 1)])
        let cut = Array(whole.prefix(whole.count / 3))
        for scale in JPEGScale.allCases {
            var decoder = try JPEGDecoder(source: MemoryByteSource(cut), ledger: MemoryLedger())
            var builder = ImageBuilder(ledger: MemoryLedger())
            try decoder.decode(scale: scale, into: &builder)
            let image = try #require(builder.image)
            #expect(decoder.repeatedRows > 0)
            let tail = image.height - decoder.repeatedRows
            // Every repeated row is RGB mid-gray, as a converted flat row is.
            for y in tail ..< image.height { #expect(image.withRow(y) { $0.allSatisfy { $0 == 128 } }, "row \(y) at \(scale.name)") }
            // The decoded part matches the whole file's decode above the cut.
            var full = try JPEGDecoder(source: MemoryByteSource(whole), ledger: MemoryLedger())
            var fullBuilder = ImageBuilder(ledger: MemoryLedger())
            try full.decode(scale: scale, into: &fullBuilder)
            let reference = try #require(fullBuilder.image)
            #expect(full.repeatedRows == 0 && full.decodedMCUs == 6 * 25)
            #expect(image.width == reference.width && image.height == reference.height)
            // The MCU rows the data covered in full, less the last one (whose bottom rows the
            // upsampler blends with the row below, cut or not), are the whole file's rows.
            let mcuRowHeight = 16 * scale.rawValue / 8
            let matching = max(0, decoder.decodedMCUs / 6 - 1) * mcuRowHeight
            #expect(matching >= image.height / 5, "only \(matching) rows before the cut")
            for y in 0 ..< matching {
                #expect(Array(image.row(y)) == Array(reference.row(y)), "row \(y) at \(scale.name)")
            }
        }
    }

    @Test func restartMarkersAfterAGapResumeDecoding() throws {
        // Restart interval 1: drop the data of one interval; the following RST lets decoding
        // resume, so the scan is not given up at the gap.
        var bytes = SyntheticJPEG.make(width: 64, height: 64, restartInterval: 1)
        var markers: [Int] = []
        for i in 0 ..< bytes.count - 1 where bytes[i] == 0xFF && Marker.isRestart(bytes[i + 1]) { markers.append(i) }
        try #require(markers.count > 4)
        bytes.removeSubrange(markers[1] + 2 ..< markers[2])
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
        var sink = CheckingSink()
        try decoder.decode(scale: .full, into: &sink)
        #expect(sink.rows == 64 && decoder.repeatedRows == 0)
        // The emptied interval's MCU runs on zero bits (libjpeg's padding), the rest on data.
        #expect(decoder.decodedMCUs == 16)
        #expect(decoder.warnings.contains { if case .truncated(scan: 1, _) = $0 { return true } else { return false } })
    }
}
