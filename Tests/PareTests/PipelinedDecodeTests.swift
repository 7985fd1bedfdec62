@testable import Pare
import PareCore
@_spi(Pipeline) import PareJPEG
import TestSupport
import Testing

/// `JPEGDecoder.decodePipelined` (entropy decoding on a second thread, the transforms and the
/// output on the caller's; for a progressive file, the transforms on the second thread once
/// the scans are read): the serial decode's rows, warnings and errors, byte for byte, at
/// every scale, with rings of 2, 5 and 8 MCU rows and the sequential files' transforms on
/// either thread, on the corpus, on cut and damaged files, and when cancelled.
@Suite struct PipelinedDecodeTests {
    typealias Result = ParallelDecodeTests.Result

    static func pipelined(_ bytes: [UInt8], scale: JPEGScale, slots: Int,
                          share: DecodePipelineThreads.Share = .adaptive,
                          cancellation: CancellationCheck = CancellationCheck()) -> Result {
        var rows = ParallelDecodeTests.RowCollector()
        do {
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: JPEGOptions())
            decoder.cancellation = cancellation
            do {
                try decoder.decodePipelined(scale: scale, handoff: DecodePipelineThreads(slots: slots, share: share),
                                             into: &rows)
            } catch {
                return Result(rows: rows, warnings: decoder.warnings.map { "\($0)" }, error: "\(error)")
            }
            return Result(rows: rows, warnings: decoder.warnings.map { "\($0)" }, error: nil)
        } catch {
            return Result(rows: rows, warnings: [], error: "\(error)")
        }
    }

    static func files(_ folder: String) -> [(String, [UInt8])] {
        FileSystem.list(folder).filter { $0.hasSuffix(".jpg") }.sorted().compactMap { name in
            FileSystem.read(folder + "/" + name).map { (name, $0) }
        }
    }

    /// Rings of 2, 5 and 8 rows, with the transforms on the consumer's thread, on the
    /// producer's, and shared as the threads' pace says.
    static func expectSame(_ bytes: [UInt8], _ what: String) {
        for scale in JPEGScale.allCases {
            let serial = ParallelDecodeTests.serial(bytes, scale: scale)
            for (slots, share) in [(2, DecodePipelineThreads.Share.consumer), (5, .producer), (8, .adaptive)] {
                let piped = pipelined(bytes, scale: scale, slots: slots, share: share)
                let label = "\(what) at \(scale.blockSize)/8, \(slots) slots, transforms: \(share)"
                ParallelDecodeTests.expectSame(serial, piped, label)
                #expect(serial.warnings == piped.warnings, "\(label)")
            }
        }
    }

    @Test func fixturesMatchTheSerialDecode() throws {
        let files = Self.files(Corpus.fixtures + "/jpeg")
        #expect(files.count >= 5)
        for (name, bytes) in files { Self.expectSame(bytes, name) }
    }

    /// Progressive fixtures (every sampling, successive approximation, restart intervals,
    /// files cut inside a refinement scan, whose blocks are smoothed) through the ring of
    /// transformed rows.
    @Test func progressiveFixturesMatchTheSerialDecode() throws {
        let files = Self.files(Corpus.fixtures + "/progressive")
        #expect(files.count == 42)
        for (name, bytes) in files { Self.expectSame(bytes, name) }
    }

    @Test(.requiresCorpus) func corpusMatchesTheSerialDecode() throws {
        var count = 0
        for folder in ["conformance", "malformed"] {
            for (name, bytes) in Self.files(Corpus.path + "/jpeg/" + folder) {
                Self.expectSame(bytes, "\(folder)/\(name)")
                count += 1
            }
        }
        #expect(count > 50)
    }

    /// A photograph cut at many points: the rows before the cut, the flat rows after it (and
    /// the serial decode's shortcut of repeating one), the same warnings.
    @Test func cutFilesMatchTheSerialDecode() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/sample.jpg"))
        for fraction in [3, 10, 25, 50, 75, 97] {
            let cut = Array(bytes.prefix(bytes.count * fraction / 100))
            Self.expectSame(cut, "sample.jpg cut at \(fraction) %")
        }
        // A corrupt byte in the middle of the entropy-coded data.
        var damaged = bytes
        damaged[bytes.count / 2] ^= 0x5A
        damaged[bytes.count / 2 + 1] = 0xFF
        Self.expectSame(damaged, "sample.jpg damaged")
        // A progressive photograph cut in its scans: the MCU rows no scan reached are flat,
        // and the serial decode repeats a row from three below the last one reached.
        let progressive = try #require(FileSystem.read(Corpus.fixtures + "/progressive/px-q95-photo.jpg"))
        for fraction in [5, 20, 40, 60, 90] {
            Self.expectSame(Array(progressive.prefix(progressive.count * fraction / 100)),
                            "px-q95-photo.jpg cut at \(fraction) %")
        }
    }

    /// Cancelled after a few MCU rows: the typed error, fewer rows than the image has, and
    /// no thread left waiting (the test would hang). The last case cancels three checks
    /// before the end, which for a progressive file is in its rows, after the scans.
    @Test(arguments: ["sample.jpg", "progressive/px-q95-photo.jpg"])
    func cancellationStopsBothThreads(_ file: String) throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/" + file))
        final class Counter: @unchecked Sendable { var calls = 0 }
        let all = Counter()
        let whole = Self.pipelined(bytes, scale: .full, slots: 2, cancellation: CancellationCheck {
            all.calls += 1
            return false
        })
        #expect(whole.error == nil && all.calls > 6)
        for after in [0, 1, 3, all.calls - 3] {
            let counter = Counter()
            let check = CancellationCheck {
                counter.calls += 1
                return counter.calls > after
            }
            let result = Self.pipelined(bytes, scale: .full, slots: 2, cancellation: check)
            #expect(result.error == "\(JPEGError.core(.cancelled))", "after \(after)")
            #expect(result.rows.ys.count < (result.rows.header?.height ?? 0), "after \(after)")
        }
    }
}
