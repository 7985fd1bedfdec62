@testable import Pare
@_spi(Pipeline) import PareCore
@_spi(Pipeline) import PareTIFF
import TestSupport
import Testing

/// `TIFFDecoder.decodePipelined` (odd bands decompressed on a second thread, even ones and
/// the output on the caller's): the serial decode's rows, warnings and errors, byte for
/// byte, with rings of 2 and 4 bands, on the fixtures, the made corpus, files cut short, in
/// lenient and strict mode, and when cancelled.
@Suite struct PipelinedTIFFTests {
    typealias Result = ParallelDecodeTests.Result

    static func decode(_ bytes: [UInt8], slots: Int?, strict: Bool = true,
                       cancellation: CancellationCheck = CancellationCheck()) -> Result {
        var rows = ParallelDecodeTests.RowCollector()
        var options = TIFFOptions()
        options.strict = strict
        do {
            var decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: options)
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

    static func expectSame(_ bytes: [UInt8], _ what: String, strict: Bool = true) {
        let serial = decode(bytes, slots: nil, strict: strict)
        for slots in [2, 4] {
            let piped = decode(bytes, slots: slots, strict: strict)
            ParallelDecodeTests.expectSame(serial, piped, "\(what), \(slots) slots")
            #expect(serial.warnings == piped.warnings, "\(what), \(slots) slots")
        }
    }

    static func files(_ folder: String) -> [(String, [UInt8])] {
        FileSystem.list(folder).filter { $0.hasSuffix(".tif") }.sorted().compactMap { name in
            FileSystem.read(folder + "/" + name).map { (name, $0) }
        }
    }

    @Test func fixturesMatchTheSerialDecode() {
        let files = Self.files(Corpus.fixtures + "/tiff")
        #expect(files.count >= 20)
        for (name, bytes) in files { Self.expectSame(bytes, name) }
    }

    @Test(.requiresMadeCorpus("tiff", script: "Fixtures/make-tiff-corpus.sh")) func madeCorpusMatchesTheSerialDecode() throws {
        // The made files sit a folder a picture; the three 12 MP bench files beside them take
        // seconds and are left to the benchmarks.
        let root = try #require(Corpus.made("tiff"))
        var files: [(String, [UInt8])] = []
        for folder in FileSystem.list(root).sorted() where FileSystem.isDirectory(root + "/" + folder) {
            files += Self.files(root + "/" + folder).map { ("\(folder)/\($0.0)", $0.1) }
        }
        #expect(!files.isEmpty)
        for (name, bytes) in files { Self.expectSame(bytes, name) }
    }

    /// Strip files cut inside their data: strict, the same error after the same rows;
    /// lenient, the same rows and warning.
    @Test func cutFilesMatchTheSerialDecode() throws {
        for name in ["rgb8-lzw-strips.tif", "rgb8-deflate-strips.tif", "rgb8-packbits-strips.tif", "rgb8-none-strips.tif"] {
            let bytes = try #require(FileSystem.read(Corpus.fixtures + "/tiff/" + name))
            let decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: TIFFOptions())
            for segment in decoder.info.segments.prefix(7) {
                let cut = Array(bytes[..<(segment.offset + segment.count / 2)])
                Self.expectSame(cut, "\(name) cut at \(cut.count)")
                Self.expectSame(cut, "\(name) cut at \(cut.count), lenient", strict: false)
            }
        }
    }

    @Test func cancellationStopsThePipelinedDecode() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/tiff/rgb8-lzw-strips.tif"))
        final class Countdown: @unchecked Sendable { var left = 2 }
        let countdown = Countdown()
        let result = Self.decode(bytes, slots: 2, cancellation: CancellationCheck {
            countdown.left -= 1
            return countdown.left < 0
        })
        #expect(result.error == "\(TIFFError.core(.cancelled))")
        #expect(result.rows.ys.count < Self.decode(bytes, slots: nil).rows.ys.count)
    }
}
