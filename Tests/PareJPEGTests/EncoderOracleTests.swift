import PareCore
import Testing
import TestSupport
@testable import PareJPEG

/// Each encoder option against libjpeg-turbo's `cjpeg -dct int` (Debian libjpeg-turbo-progs,
/// which .ci/run installs) from the same pixels, as a PPM or PGM: the whole file must be the
/// same bytes, so the tables, the scan script, the restart markers and the entropy-coded
/// data are all cjpeg's. Without cjpeg the tests fail, saying what to install.
@Suite struct EncoderOracleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var gray = false
        var quality = 75
        var sampling = ChromaSampling.s420
        var optimize = false
        var progressive = false
        var restart: RestartInterval?
        var baseline = false
        var testDescription: String { name }

        var cjpegArguments: [String] {
            var arguments = ["-dct", "int", "-quality", "\(quality)"]
            if !gray {
                arguments += ["-sample", sampling == .s420 ? "2x2" : sampling == .s422 ? "2x1" : "1x1"]
            }
            if optimize { arguments.append("-optimize") }
            if progressive { arguments.append("-progressive") }
            if baseline { arguments.append("-baseline") }
            switch restart {
            case let .mcuRows(n)?: arguments += ["-restart", "\(n)"]
            case let .mcus(n)?: arguments += ["-restart", "\(n)B"]
            case nil: break
            }
            return arguments
        }
    }

    static let cases: [Case] = [
        Case(name: "quality 75, 4:2:0"),
        Case(name: "quality 50, 4:2:2", quality: 50, sampling: .s422),
        Case(name: "quality 95, 4:4:4", quality: 95, sampling: .s444),
        Case(name: "quality 100", quality: 100),
        Case(name: "quality 10 (16-bit tables)", quality: 10),
        Case(name: "quality 24 (16-bit tables)", quality: 24, sampling: .s444),
        Case(name: "quality 10, baseline", quality: 10, baseline: true),
        Case(name: "quality 1, baseline, 4:2:2", quality: 1, sampling: .s422, baseline: true),
        Case(name: "optimized tables", optimize: true),
        Case(name: "progressive", progressive: true),
        Case(name: "progressive 4:4:4, quality 90", quality: 90, sampling: .s444, progressive: true),
        Case(name: "restart every MCU row", restart: .mcuRows(1)),
        Case(name: "restart every 5 MCUs, optimized", optimize: true, restart: .mcus(5)),
        Case(name: "gray, quality 75", gray: true),
        Case(name: "gray, progressive, restart 3 MCUs", gray: true, progressive: true, restart: .mcus(3)),
    ]

    /// A 37×29 picture (odd sizes: partial MCUs on both edges) of gradients and noise.
    static func picture(gray: Bool) -> Image {
        let width = 37, height = 29, channels = gray ? 1 : 3
        var rng = SplitMix(state: 0xC1FE)
        var pixels: [UInt8] = []
        for y in 0 ..< height {
            for x in 0 ..< width {
                for c in 0 ..< channels {
                    pixels.append(UInt8(truncatingIfNeeded: x * (5 + c) + y * (3 + 2 * c) + Int(rng.next() % 40)))
                }
            }
        }
        return Image(width: width, height: height, format: gray ? .gray8 : .rgb8, pixels: pixels)
    }

    @Test(arguments: cases) func sameBytesAsCjpeg(_ test: Case) throws {
        let cjpeg = try #require(CommandRunner.tool("cjpeg"), "cjpeg is not installed (Debian: apt-get install libjpeg-turbo-progs)")
        let image = Self.picture(gray: test.gray)
        var options = JPEGEncoderOptions(quality: test.quality, sampling: test.sampling)
        options.optimizeHuffmanTables = test.optimize
        options.progressive = test.progressive
        options.restartInterval = test.restart
        options.forceBaseline = test.baseline
        var encoder = try JPEGEncoder(options: options, ledger: MemoryLedger(), sink: ByteArraySink())
        try encoder.encode(image)
        let ours = encoder.sink.bytes

        let folder = CommandRunner.temporaryFolder()
        let input = folder + (test.gray ? "/in.pgm" : "/in.ppm"), output = folder + "/out.jpg"
        let header = Array("\(test.gray ? "P5" : "P6")\n\(image.width) \(image.height)\n255\n".utf8)
        try #require(CommandRunner.write(header + image.pixels, to: input))
        let run = try #require(CommandRunner.run(cjpeg, test.cjpegArguments + ["-outfile", output, input]))
        #expect(run.status == 0, "\(run.standardError)")
        let theirs = try #require(FileSystem.read(output))
        CommandRunner.removeFolder(folder)
        let firstDifference = (0 ..< min(ours.count, theirs.count)).first { ours[$0] != theirs[$0] } ?? min(ours.count, theirs.count)
        let same = ours == theirs
        #expect(same, "\(test.name): \(ours.count) vs cjpeg's \(theirs.count) bytes, first difference at byte \(firstDifference)")
    }
}
