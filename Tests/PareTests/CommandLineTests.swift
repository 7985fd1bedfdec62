import Testing
@testable import Pare
import TestSupport

/// What `pare` prints and returns, run as a user runs it: the executable `swift test` builds.
@Suite struct CommandLineTests {
    static func run(_ arguments: [String]) throws -> CommandRunner.Outcome {
        let pare = try #require(CommandRunner.pare, "the pare executable beside the test bundle")
        return try #require(CommandRunner.run(pare, arguments))
    }

    /// An output that cannot be opened is blamed, not the input, for JPEG and PNG input.
    @Test func decodeBlamesAnOutputItCannotOpen() throws {
        let output = "/nonexistent-folder/out.pnm"
        for input in [Corpus.fixtures + "/sample.jpg", Corpus.fixtures + "/exif/fx-letterbox.s8.png"] {
            let outcome = try Self.run(["decode", input, "-o", output])
            #expect(outcome.status == 1, "\(input)")
            #expect(outcome.standardError == "pare: \(output): cannot open the file for writing\n", "\(input)")
        }
    }

    /// A file that is no image gets the library's one line from every command.
    @Test func notAnImageIsTheCommonErrorLine() throws {
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        let input = folder + "/image.jpg"
        try #require(CommandRunner.write(Array("not a pic!".utf8), to: input))
        let line = "pare: \(input): \(PareError.unknownFormat)\n"
        #expect(line == "pare: \(input): Pare: not a format Pare reads (JPEG, PNG, TIFF, WebP, GIF, Netpbm) at byte 0\n")
        for arguments in [["decode", input, "-o", folder + "/out.ppm"], ["exif", input, "--json"], ["inspect", input]] {
            let outcome = try Self.run(arguments)
            #expect(outcome.status == 1, "\(arguments[0])")
            #expect(outcome.standardError == line, "\(arguments[0])")
        }
        // Nothing is left where the output would have gone.
        #expect(FileSystem.list(folder) == ["image.jpg"])
    }

    /// `pare decode` and the library sniff alike: SOI `FF D8` is a JPEG, whatever follows, and
    /// the JPEG decoder says what is wrong after it.
    @Test func decodeSniffsAsTheLibraryDoes() throws {
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        let input = folder + "/soi-then-zeros.jpg"
        let bytes: [UInt8] = [0xFF, 0xD8, 0x00, 0x00, 0x00, 0x00]
        try #require(CommandRunner.write(bytes, to: input))
        #expect(ImageFormat(sniffing: bytes) == .jpeg)
        let library: String
        do {
            _ = try ImageSource(bytes: bytes).thumbnail(options: ThumbnailOptions(maxPixelSize: 8))
            library = "no error"
        } catch {
            library = "\(error)"
        }
        #expect(library.hasPrefix("JPEG: "))
        let outcome = try Self.run(["decode", input, "-o", folder + "/out.ppm"])
        #expect(outcome.status == 1)
        #expect(outcome.standardError == "pare: \(input): \(library)\n")
    }

    /// `pare exif --json` on BigTIFF in both byte orders: ExifTool's orientation and size
    /// (Fixtures/bigtiff/*.json).
    @Test func exifReadsBigTIFF() throws {
        for (stem, order, orientation, width, height) in [("fx-bigtiff-II", "II", 8, 48, 32), ("fx-bigtiff-MM", "MM", 6, 40, 24)] {
            let outcome = try Self.run(["exif", Corpus.fixtures + "/bigtiff/\(stem).tif", "--json"])
            #expect(outcome.status == 0 && outcome.standardError.isEmpty, "\(stem)")
            let expected = "{\"format\":\"tiff\",\"byteOrder\":\"\(order)\",\"orientation\":\(orientation),\"rawOrientation\":\(orientation),"
            #expect(outcome.standardOutput.hasPrefix(expected), "\(stem)")
            #expect(outcome.standardOutput.contains("\"pixelWidth\":\(width),\"pixelHeight\":\(height),"), "\(stem)")
            #expect(outcome.standardOutput.contains("\"warnings\":[]"), "\(stem)")
        }
    }

    /// `pare convert` to JPEG composites an input with alpha over `--background` (white by
    /// default); a colour that is not RRGGBB is a usage error.
    @Test func convertFlattensAlphaOverTheBackground() throws {
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        let input = folder + "/clear.pam"
        let header = "P7\nWIDTH 16\nHEIGHT 16\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
        try #require(CommandRunner.write(Array(header.utf8) + [UInt8](repeating: 0, count: 16 * 16 * 4), to: input))
        for (arguments, expected) in [([String](), [255, 255, 255]), (["--background", "#2080C0"], [0x20, 0x80, 0xC0])] {
            let output = folder + "/out.jpg"
            let outcome = try Self.run(["convert", input, "-o", output, "--sampling", "4:4:4"] + arguments)
            #expect(outcome.status == 0 && outcome.standardError.isEmpty, "\(arguments)")
            let image = try ImageSource(path: output).thumbnail(options: ThumbnailOptions(maxPixelSize: 16)).image
            let centre = (0 ..< 3).map { Int(image.row(8)[8 * 3 + $0]) }
            #expect(zip(centre, expected).allSatisfy { abs($0 - $1) <= 2 }, "\(arguments): \(centre)")
        }
        let bad = try Self.run(["convert", input, "-o", folder + "/bad.jpg", "--background", "white"])
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("--background takes a colour as RRGGBB"))
    }

    /// The one sniffer: what names each format, and nothing more.
    @Test func sniffer() {
        #expect(ImageFormat(sniffing: [0xFF, 0xD8]) == .jpeg)
        #expect(ImageFormat(sniffing: [0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ImageFormat(sniffing: [0xFF]) == nil)
        #expect(ImageFormat(sniffing: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == .png)
        // A damaged signature is the PNG decoder's to report ("bad signature").
        #expect(ImageFormat(sniffing: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0D, 0x1A, 0x0D]) == .png)
        #expect(ImageFormat(sniffing: [0x49, 0x49, 0x2A, 0x00]) == .tiff)
        #expect(ImageFormat(sniffing: [0x4D, 0x4D, 0x00, 0x2A]) == .tiff)
        #expect(ImageFormat(sniffing: [0x49, 0x49, 0x2B, 0x00]) == .tiff)
        #expect(ImageFormat(sniffing: [0x4D, 0x4D, 0x00, 0x2B]) == .tiff)
        #expect(ImageFormat(sniffing: [0x49, 0x49, 0x2C, 0x00]) == nil)
        #expect(ImageFormat(sniffing: Array("GIF89a".utf8)) == .gif)
    }
}
