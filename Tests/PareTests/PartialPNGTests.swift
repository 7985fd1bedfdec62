import Testing
@testable import Pare
import PareCore
import ParePNG
import TestSupport

/// A PNG cut off or damaged in its image data gives, unless strict, the rows decoded before
/// the damage, the rest zeros (transparent with alpha, black without), and a warning with
/// the offset; strict refuses it with the `PNGError` naming the damage. JPEG's policy, for
/// PNG (README, "Damaged input").
@Suite struct PartialPNGTests {
    /// The full decode of `bytes` and a non-strict decode of `damaged`, row by row.
    static func decode(_ bytes: [UInt8], strict: Bool = true) throws -> (Image, [PNGWarning]) {
        var options = PNGOptions()
        options.strict = strict
        var decoder = try PNGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: options)
        let image = try decoder.decodeImage()
        return (image, decoder.warnings)
    }

    static func rows(_ image: Image) -> [[UInt8]] { (0 ..< image.height).map { Array(image.row($0)) } }

    /// Cut in the middle of the IDAT run: rows before the cut equal the full decode's, those
    /// after are zeros, and the warning names the end of the file.
    @Test(arguments: [3, 4]) func cutFileKeepsTheRowsItHas(channels: Int) throws {
        let file = SyntheticPNG.make(width: 300, height: 200, channels: channels, interlaced: false)
        let (full, clean) = try Self.decode(file)
        #expect(clean.isEmpty)
        let cut = Array(file.prefix(file.count / 2))
        #expect(throws: PNGError.self) { try Self.decode(cut) }
        let (partial, warnings) = try Self.decode(cut, strict: false)
        let warning = try #require(warnings.first)
        #expect(warnings.count == 1)
        guard case let .truncated(offset, _, what) = warning.damage else {
            Issue.record("expected the end of the file, got \(warning.damage)")
            return
        }
        #expect(offset == cut.count && warning.offset == cut.count && what == "chunk IDAT")
        let decoded = warning.scanlinesDecoded
        #expect(decoded > 50 && decoded < 150, "about half the rows: \(decoded)")
        #expect(warning.scanlinesFilled == 200 - decoded)
        #expect(warning.filledTransparent == (channels == 4))
        let fullRows = Self.rows(full), partialRows = Self.rows(partial)
        #expect(Array(partialRows.prefix(decoded)) == Array(fullRows.prefix(decoded)))
        #expect(partialRows.dropFirst(decoded).allSatisfy { $0.allSatisfy { $0 == 0 } })
        #expect(warning.description.hasPrefix("PNG: unexpected end of file in chunk IDAT"))
        #expect(warning.description.hasSuffix("; \(decoded) of 200 scanlines decoded, the rest filled "
            + (channels == 4 ? "transparent" : "black") + " at byte \(cut.count)"))
    }

    /// Adam7 cut off: the passes that were complete, and the start of the one cut, keep
    /// their pixels; every other pixel is zero.
    @Test func cutInterlacedFileKeepsItsEarlyPasses() throws {
        let file = SyntheticPNG.make(width: 160, height: 120, channels: 3, interlaced: true)
        let (full, _) = try Self.decode(file)
        let cut = Array(file.prefix(file.count * 3 / 5))
        let (partial, warnings) = try Self.decode(cut, strict: false)
        let warning = try #require(warnings.first)
        #expect(warning.scanlinesDecoded + warning.scanlinesFilled == 15 + 15 + 15 + 30 + 30 + 60 + 60)
        var kept = 0, zero = 0, wrong = 0
        for y in 0 ..< 120 {
            for x in 0 ..< 160 {
                let at = (y * 160 + x) * 3
                let got = Array(partial.pixels[at ..< at + 3]), want = Array(full.pixels[at ..< at + 3])
                if got == want { kept += 1 } else if got == [0, 0, 0] { zero += 1 } else { wrong += 1 }
                // Pass 1 (every eighth pixel of every eighth row) is always complete here.
                if x % 8 == 0 && y % 8 == 0 { #expect(got == want, "pass 1 pixel \(x), \(y)") }
            }
        }
        #expect(wrong == 0)
        #expect(zero > 0 && kept > 160 * 120 / 4, "kept \(kept), zero \(zero)")
    }

    /// The thumbnail of an interlaced PNG cut in its last pass averages the pixels that
    /// arrived (the missing scanlines are not sent as zeros), so it stays close to the whole
    /// file's thumbnail; the full decode of the same cut file is zero between them.
    @Test func cutInterlacedThumbnailAveragesWhatArrived() throws {
        let file = SyntheticPNG.make(width: 400, height: 300, channels: 3, interlaced: true)
        let cut = Array(file.prefix(file.count * 3 / 4))
        let (partial, warnings) = try Self.decode(cut, strict: false)
        let warning = try #require(warnings.first)
        // Cut in pass 7 (the last 150 of 15·7 + … scanlines are its rows).
        #expect(warning.scanlinesDecoded > warning.scanlinesDecoded + warning.scanlinesFilled - 150)
        #expect(partial.pixels.filter { $0 == 0 }.count > partial.pixels.count / 8)
        let options = ThumbnailOptions(maxPixelSize: 40)
        let whole = try ImageSource(bytes: file).thumbnail(options: options)
        let thumbnail = try ImageSource(bytes: cut).thumbnail(options: options)
        #expect(thumbnail.warnings == [.png(warning)])
        let difference = zip(whole.image.pixels, thumbnail.image.pixels).map { abs(Int($0) - Int($1)) }
        let mean = Double(difference.reduce(0, +)) / Double(difference.count)
        print("interlaced cut in pass 7: mean difference from the whole thumbnail \(mean) levels")
        #expect(mean < 4, "\(mean)")
    }

    /// A bad CRC on the second IDAT: the rows inflated from the first are kept, and the
    /// warning points at the chunk whose CRC failed.
    @Test func badIDATCRCAfterSomeRows() throws {
        let file = SyntheticPNG.make(width: 1000, height: 700, channels: 3, interlaced: false)
        let idats = chunks(of: file).enumerated().filter { $0.element.0 == "IDAT" }
        try #require(idats.count >= 3, "the file needs several IDAT chunks")
        // Offsets of each chunk: signature, then length + type + data + CRC.
        var offset = 8, offsets: [Int] = []
        for (_, body) in chunks(of: file) {
            offsets.append(offset)
            offset += 12 + body.count
        }
        let second = idats[1].offset
        var damaged = file
        damaged[offsets[second] + 8 + idats[1].element.1.count] ^= 0x55
        #expect(throws: PNGError.crcMismatch(chunk: "IDAT", offset: offsets[second])) { try Self.decode(damaged) }
        let (full, _) = try Self.decode(file)
        let (partial, warnings) = try Self.decode(damaged, strict: false)
        let warning = try #require(warnings.first)
        #expect(warning.damage == .crcMismatch(chunk: "IDAT", offset: offsets[second]))
        #expect(warning.offset == offsets[second])
        let decoded = warning.scanlinesDecoded
        #expect(decoded > 0 && decoded < 700)
        #expect(Array(Self.rows(partial).prefix(decoded)) == Array(Self.rows(full).prefix(decoded)))
        #expect(Self.rows(partial).dropFirst(decoded).allSatisfy { $0.allSatisfy { $0 == 0 } })
    }

    /// Through the thumbnail (not strict by default): at the source's size the thumbnail is
    /// the partial decode itself, its warning `.png`, damage; strict throws the PNG error.
    @Test func thumbnailOfACutFile() throws {
        let file = SyntheticPNG.make(width: 120, height: 80, channels: 4, interlaced: false)
        let cut = Array(file.prefix(file.count * 2 / 3))
        let options = ThumbnailOptions(maxPixelSize: 120)
        #expect(options.png.strict == false && options.strict == false)
        let thumbnail = try ImageSource(bytes: cut).thumbnail(options: options)
        let (partial, warnings) = try Self.decode(cut, strict: false)
        #expect(thumbnail.image == partial)
        #expect(thumbnail.warnings == warnings.map(ThumbnailWarning.png))
        #expect(thumbnail.isDamaged)
        var strict = options
        strict.strict = true
        #expect(strict.png.strict && strict.jpeg.strict)
        let expected = try #require(warnings.first?.damage)
        #expect(throws: PareError.png(expected)) { try ImageSource(bytes: cut).thumbnail(options: strict) }
        #expect(PareError.png(expected).kind == .damaged)
    }

    /// Damage before the image data is structure, not survived: a bad IHDR CRC throws with
    /// strict off too.
    @Test func structureErrorsStillThrow() throws {
        var file = SyntheticPNG.make(width: 20, height: 10, channels: 3, interlaced: false)
        file[29] ^= 1
        #expect(throws: PNGError.crcMismatch(chunk: "IHDR", offset: 8)) { try Self.decode(file, strict: false) }
        #expect(throws: PareError.png(.crcMismatch(chunk: "IHDR", offset: 8))) {
            try ImageSource(bytes: file).thumbnail(options: ThumbnailOptions(maxPixelSize: 8))
        }
    }

    /// The command line: a cut-off PNG gives a thumbnail, exit 0 and a warning line on
    /// stderr; with `--strict`, exit 1, the error line, and no output file.
    @Test func commandLine() throws {
        let pare = try #require(CommandRunner.pare, "the pare executable beside the test bundle")
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        let file = SyntheticPNG.make(width: 300, height: 200, channels: 3, interlaced: false)
        let cut = Array(file.prefix(file.count / 2))
        let input = folder + "/cut.png"
        try #require(CommandRunner.write(cut, to: input))
        let (_, warnings) = try Self.decode(cut, strict: false)
        let warning = try #require(warnings.first)

        let made = try #require(CommandRunner.run(pare, ["thumbnail", input, "--size", "64", "-o", folder + "/t.png"]))
        #expect(made.status == 0)
        #expect(made.standardError == "pare: warning: \(input): \(warning)\n")
        let thumbnail = try PNGDecoder.decodeImage(try #require(FileSystem.read(folder + "/t.png")), ledger: MemoryLedger())
        #expect(thumbnail.width == 64 && thumbnail.height == 43)
        // The bottom row lies below the cut: black.
        #expect(Array(thumbnail.row(42)).allSatisfy { $0 == 0 })
        #expect(Array(thumbnail.row(0)).contains { $0 != 0 })

        let refused = try #require(CommandRunner.run(pare, ["thumbnail", input, "--size", "64", "-o", folder + "/s.png",
                                                            "--strict"]))
        #expect(refused.status == 1)
        #expect(refused.standardError == "pare: \(input): \(warning.damage)\n")
        #expect(!FileSystem.list(folder).contains("s.png"))
    }
}
