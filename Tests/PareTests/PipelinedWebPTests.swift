@testable import Pare
@_spi(Pipeline) import PareCore
@_spi(Pipeline) import PareWebP
import TestSupport
import Testing

/// `WebPDecoder.decodePipelined` (a lossy frame's modes and coefficients read on a second
/// thread, reconstructed, filtered and converted on the caller's): the serial decode's rows,
/// warnings and errors, byte for byte, with rings of 2 and 4 macroblock rows, on the
/// fixtures, the made corpus, files cut short, and when cancelled.
@Suite struct PipelinedWebPTests {
    typealias Result = ParallelDecodeTests.Result

    static func decode(_ bytes: [UInt8], slots: Int?, cancellation: CancellationCheck = CancellationCheck()) -> Result {
        var rows = ParallelDecodeTests.RowCollector()
        do {
            var decoder = try WebPDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: WebPOptions())
            decoder.cancellation = cancellation
            do {
                if let slots {
                    try decoder.decodePipelined(handoff: DecodePipelineThreads(slots: slots), into: &rows)
                } else {
                    try decoder.decode(into: &rows)
                }
            } catch {
                return Result(rows: rows, warnings: decoder.warnings.map { "\($0)" }, error: "\(error)")
            }
            return Result(rows: rows, warnings: decoder.warnings.map { "\($0)" }, error: nil)
        } catch {
            return Result(rows: rows, warnings: [], error: "\(error)")
        }
    }

    static func expectSame(_ bytes: [UInt8], _ what: String) {
        let serial = decode(bytes, slots: nil)
        for slots in [2, 4] {
            let piped = decode(bytes, slots: slots)
            ParallelDecodeTests.expectSame(serial, piped, "\(what), \(slots) slots")
            #expect(serial.warnings == piped.warnings, "\(what), \(slots) slots")
        }
    }

    static func files(_ folder: String) -> [(String, [UInt8])] {
        FileSystem.list(folder).filter { $0.hasSuffix(".webp") }.sorted().compactMap { name in
            FileSystem.read(folder + "/" + name).map { (name, $0) }
        }
    }

    @Test func fixturesMatchTheSerialDecode() {
        let files = Self.files(Corpus.fixtures + "/webp")
        #expect(files.count >= 15)
        for (name, bytes) in files { Self.expectSame(bytes, name) }
    }

    @Test(.requiresMadeCorpus("webp", script: "Fixtures/webp/make-corpus.sh")) func madeCorpusMatchesTheSerialDecode() throws {
        let folder = try #require(Corpus.made("webp"))
        // The two 12 MP files take seconds in a debug build; the rest cover every feature.
        let files = Self.files(folder).filter { $0.1.count < 400_000 }
        #expect(files.count >= 20)
        for (name, bytes) in files { Self.expectSame(bytes, name) }
    }

    /// Lossy files cut at several points: the rows before the cut, the same truncation warning.
    @Test func cutFilesMatchTheSerialDecode() throws {
        for name in ["fx-lossy-segments.webp", "fx-lossy-wide.webp", "fx-alpha-best.webp"] {
            let bytes = try #require(FileSystem.read(Corpus.fixtures + "/webp/" + name))
            for fraction in [20, 50, 80, 95] {
                let cut = Array(bytes.prefix(bytes.count * fraction / 100))
                Self.expectSame(cut, "\(name) cut at \(fraction) %")
            }
        }
    }

    /// Cancelled after a few rows: it stops with the cancellation, having handed out no more
    /// rows than the serial decode cancelled at the same check.
    @Test func cancellationStopsThePipelinedDecode() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/webp/fx-lossy-tall.webp"))
        final class Countdown: @unchecked Sendable { var left = 3 }
        let countdown = Countdown()
        let result = Self.decode(bytes, slots: 2, cancellation: CancellationCheck {
            countdown.left -= 1
            return countdown.left < 0
        })
        #expect(result.error == "\(WebPError.core(.cancelled))")
        let full = Self.decode(bytes, slots: nil)
        #expect(result.rows.ys.count < full.rows.ys.count)
    }
}
