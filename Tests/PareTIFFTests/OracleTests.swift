import PareCore
import PareTIFF
import Testing
import TestSupport

/// Every fixture (Fixtures/tiff, made by Fixtures/make-tiff-fixtures.py) against what
/// tiff2rgba made of it.
@Suite struct TIFFOracleTests {
    static var fixtureFolder: String { Corpus.fixtures + "/tiff" }

    static var fixtures: [String] {
        FileSystem.list(fixtureFolder).filter { $0.hasSuffix(".tif") }.sorted()
    }

    /// Differences allowed against the oracle, by file: 16-bit gray (libtiff keeps the high
    /// byte, Pare rounds: 1), associated alpha (divided out and multiplied back: 1), YCbCr
    /// without JPEG (TIFF 6.0 §21's equations in floating point against libtiff's fixed point: 1).
    static func tolerance(_ name: String, _ info: TIFFInfo) -> Int {
        if info.alpha == .associated { return 1 }
        if info.photometric == 6 && info.compression != 7 { return 1 }
        if info.bitsPerSample == 16 && info.photometric <= 1 { return 1 }
        return 0
    }

    /// Compares every file in `folder` with its `.rgba.png`; returns the files checked by
    /// compression and by photometric, and the failures.
    static func compareAll(in folder: String, names: [String]) throws
        -> (byCompression: [Int: Int], byPhotometric: [Int: Int], failures: [String], inexact: [String]) {
        var byCompression: [Int: Int] = [:], byPhotometric: [Int: Int] = [:]
        var failures: [String] = [], inexact: [String] = []
        for name in names {
            let path = folder + "/" + name
            let bytes = try #require(FileSystem.read(path))
            let reference = try #require(try referenceRGBA(String(path.dropLast(4)) + ".rgba.png"), "no reference for \(name)")
            do {
                var decoder = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: testOptions())
                let image = try decoder.decodeImage()
                let ours = oracleRGBA(image, alpha: decoder.info.alpha)
                let difference = maxDifference(ours, reference)
                if difference > 0 && difference <= tolerance(name, decoder.info) { inexact.append(name) }
                if difference <= tolerance(name, decoder.info) {
                    byCompression[decoder.info.compression, default: 0] += 1
                    byPhotometric[decoder.info.photometric, default: 0] += 1
                } else {
                    failures.append("\(name): differs by \(difference) (\(image.format))")
                }
            } catch {
                failures.append("\(name): \(error)")
            }
        }
        return (byCompression, byPhotometric, failures, inexact)
    }

    @Test func everyFixtureMatchesTiff2rgba() throws {
        let names = Self.fixtures
        #expect(names.count >= 50)
        let result = try Self.compareAll(in: Self.fixtureFolder, names: names)
        #expect(result.failures == [])
        // Per compression: none, RLE, T.4, T.6, LZW, JPEG, Deflate, PackBits, Deflate (old).
        print("TIFF fixtures matching tiff2rgba by compression: \(result.byCompression.sorted { $0.key < $1.key })")
        print("TIFF fixtures matching tiff2rgba by photometric: \(result.byPhotometric.sorted { $0.key < $1.key })")
        print("TIFF fixtures within 1 of tiff2rgba rather than identical: \(result.inexact)")
        #expect(result.inexact.count <= 6)
    }
}
