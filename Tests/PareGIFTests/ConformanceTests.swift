import PareCore
import PareGIF
import Testing
import TestSupport

/// Every GIF of Fixtures/gif (and of the corpus's gif folder, when there) against Pillow's
/// frame-0 RGBA, byte for byte, through its digest; frame and loop counts against Pillow's.
@Suite struct GIFConformanceTests {
    static func check(folder: String) throws -> (exact: Int, failures: [String]) {
        let expected = ExpectedGIF.read(folder)
        var exact = 0
        var failures: [String] = []
        for file in expected {
            let bytes = try #require(FileSystem.read(folder + "/" + file.name))
            do {
                let ledger = MemoryLedger()
                var decoder = try GIFDecoder(source: MemoryByteSource(bytes), ledger: ledger)
                let image = try decoder.decodeImage()
                let info = decoder.info
                var problems: [String] = []
                if image.width != file.width || image.height != file.height {
                    problems.append("size \(image.width)x\(image.height), Pillow \(file.width)x\(file.height)")
                }
                if fnv1a64(rgbaPixels(image)) != file.digest { problems.append("pixels differ") }
                if info.frameCount != file.frames { problems.append("frames \(info.frameCount), Pillow \(file.frames)") }
                if info.loopCount != file.loop { problems.append("loop \(String(describing: info.loopCount))") }
                if info.hasTransparency != file.transparent { problems.append("transparency") }
                if image.format != (file.transparent ? .rgba8 : .rgb8) { problems.append("format \(image.format)") }
                if !decoder.warnings.isEmpty { problems.append("warnings \(decoder.warnings)") }
                if problems.isEmpty { exact += 1 } else { failures.append("\(file.name): \(problems)") }
            } catch {
                failures.append("\(file.name): \(error)")
            }
        }
        return (exact, failures)
    }

    @Test func everyFixtureMatchesPillowByteForByte() throws {
        let (exact, failures) = try Self.check(folder: gifFixtures)
        #expect(failures.isEmpty, "\(failures)")
        #expect(exact == 34)
    }

    @Test(.requiresMadeCorpus("gif", script: "python3 Fixtures/make-gif-fixtures.py --corpus"))
    func everyCorpusFileMatchesPillowByteForByte() throws {
        let (exact, failures) = try Self.check(folder: gifCorpus)
        #expect(failures.isEmpty, "\(failures)")
        #expect(exact == ExpectedGIF.read(gifCorpus).count)
        #expect(exact >= 6)
    }

    @Test func rgba8OutputMatchesToo() throws {
        var options = GIFOptions()
        options.output = .rgba8
        for file in ExpectedGIF.read(gifFixtures) {
            let bytes = try #require(FileSystem.read(gifFixtures + "/" + file.name))
            let image = try GIFDecoder.decodeImage(bytes, ledger: MemoryLedger(), options: options)
            #expect(image.format == .rgba8)
            #expect(fnv1a64(image.pixels) == file.digest, "\(file.name)")
        }
    }
}
