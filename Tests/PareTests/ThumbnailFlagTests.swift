import Pare
import PareCore
import Testing
import TestSupport

/// The `pare thumbnail` flags, run as a user runs them: `--stats`, `--filter`, `--no-rotate`,
/// `--embedded` and `--quality`, each checked against what it must change (the library with
/// the same option, the orientation, the source chosen, cjpeg's quantisation tables).
@Suite struct ThumbnailFlagTests {
    static let letterbox = Corpus.fixtures + "/exif/fx-letterbox.jpg"

    /// Runs `pare thumbnail ARGUMENTS --json` and returns its one JSON line's fields.
    static func thumbnail(_ arguments: [String]) throws -> [String: String] {
        let pare = try #require(CommandRunner.pare, "the pare executable beside the test bundle")
        let outcome = try #require(CommandRunner.run(pare, ["thumbnail"] + arguments + ["--json"]))
        #expect(outcome.status == 0, "\(arguments): \(outcome.standardError)")
        var fields: [String: String] = [:]
        // The documented line: {"key": value, ...}, values without commas or quotes inside.
        let strip: (Substring) -> String = { String($0.filter { !" \"{}\n".contains($0) }) }
        for pair in outcome.standardOutput.split(separator: ",") {
            let parts = pair.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { fields[strip(parts[0])] = strip(parts[1]) }
        }
        return fields
    }

    static func ppm(_ path: String) throws -> ReferenceImage {
        let image = FileSystem.read(path).flatMap { ReferenceImage.readPNM($0) }
        return try #require(image, "\(path) is not a readable PPM")
    }

    /// A stored picture (3 samples a pixel) as EXIF orientation 3 (turn 180°), 6 (turn 90°
    /// clockwise) or 8 (90° counter-clockwise) displays it.
    static func turned(_ stored: ReferenceImage, orientation: Int) -> [UInt8] {
        let (w, h) = (stored.width, stored.height)
        var out = [UInt8](repeating: 0, count: stored.samples.count)
        for y in 0 ..< h {
            for x in 0 ..< w {
                let to: Int
                switch orientation {
                case 3: to = (h - 1 - y) * w + (w - 1 - x)
                case 6: to = x * h + (h - 1 - y)
                default: to = (w - 1 - x) * h + y
                }
                let from = (y * w + x) * 3
                out[to * 3 ..< to * 3 + 3] = stored.samples[from ..< from + 3]
            }
        }
        return out
    }

    /// The quantisation tables (DQT payloads) of a JPEG file, in order.
    static func quantisationTables(_ bytes: [UInt8]) -> [[UInt8]] {
        var tables: [[UInt8]] = [], i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF, bytes[i + 1] != 0xDA {
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if bytes[i + 1] == 0xDB { tables.append(Array(bytes[i + 4 ..< min(bytes.count, i + 2 + length)])) }
            i += 2 + length
        }
        return tables
    }

    @Test func statsAddsTheLedgerPeakAndAllocations() throws {
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        let plain = try Self.thumbnail([Self.letterbox, "--size", "64", "-o", folder + "/a.jpg"])
        #expect(plain["ledgerPeakBytes"] == nil && plain["allocations"] == nil)
        let stats = try Self.thumbnail([Self.letterbox, "--size", "64", "-o", folder + "/b.jpg", "--stats"])
        let library = try ImageSource(path: Self.letterbox).thumbnail(options: ThumbnailOptions(maxPixelSize: 64))
        #expect(stats["ledgerPeakBytes"] == "\(library.ledgerPeakBytes)")
        #expect(Int(stats["allocations"] ?? "") ?? 0 > 0)
    }

    /// Each filter gives the library's pixels for that filter, and the three differ.
    @Test func filterIsTheLibrarysFilter() throws {
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        var outputs: [[UInt8]] = []
        for (name, filter) in [("lanczos3", ResamplingFilter.lanczos3), ("triangle", .triangle), ("area", .area)] {
            let path = folder + "/\(name).ppm"
            _ = try Self.thumbnail([Self.letterbox, "--size", "50", "--format", "ppm", "--filter", name, "-o", path])
            var options = ThumbnailOptions(maxPixelSize: 50)
            options.filter = filter
            let library = try ImageSource(path: Self.letterbox).thumbnail(options: options).image
            let written = try Self.ppm(path)
            #expect(written.samples == library.pixels, "--filter \(name)")
            outputs.append(written.samples)
        }
        #expect(outputs[0] != outputs[1] && outputs[1] != outputs[2] && outputs[0] != outputs[2])
    }

    /// Orientation 6 (rotate 90° clockwise to display): upright 8×5 by default, the stored
    /// 5×8 with `--no-rotate`, and the one is the other turned clockwise.
    @Test func noRotateKeepsTheStoredOrientation() throws {
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        let input = Corpus.fixtures + "/exif/fx-orientation-6.jpg"
        let upright = try Self.thumbnail([input, "--size", "8", "--format", "ppm", "-o", folder + "/r.ppm"])
        let stored = try Self.thumbnail([input, "--size", "8", "--format", "ppm", "-o", folder + "/n.ppm", "--no-rotate"])
        #expect(upright["width"] == "8" && upright["height"] == "5")
        #expect(stored["width"] == "5" && stored["height"] == "8")
        #expect(Self.turned(try Self.ppm(folder + "/n.ppm"), orientation: 6) == (try Self.ppm(folder + "/r.ppm")).samples)
    }

    /// fx-letterbox.jpg, a 3:2 picture, carries a letterboxed 160×120 EXIF thumbnail:
    /// `always` takes it (64×48), `never` decodes the main image at 1/4 (64×43), as `auto`
    /// does at 64 px.
    @Test func embeddedChoosesTheSource() throws {
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        var seen: [String: String] = [:]
        for policy in ["always", "never", "auto"] {
            let fields = try Self.thumbnail([Self.letterbox, "--size", "64", "--embedded", policy, "-o", folder + "/\(policy).jpg"])
            seen[policy] = "\(fields["source"] ?? "?") \(fields["width"] ?? "?")×\(fields["height"] ?? "?")"
        }
        #expect(seen == ["always": "exif-thumbnail 64×48", "never": "scaled-1/4 64×43", "auto": "scaled-1/4 64×43"])
    }

    /// The thumbnail's quantisation tables are cjpeg's at the same `-quality`: 16-bit tables
    /// below 25 as cjpeg writes them without `-baseline`. Needs cjpeg (libjpeg-turbo-progs).
    @Test(arguments: [10, 30, 90]) func qualityGivesCjpegsTables(_ quality: Int) throws {
        let cjpeg = try #require(CommandRunner.tool("cjpeg"),
                                 "cjpeg is not installed (Debian: apt-get install libjpeg-turbo-progs)")
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        _ = try Self.thumbnail([Corpus.fixtures + "/sample.jpg", "--size", "64", "--quality", "\(quality)", "-o", folder + "/t.jpg"])
        try #require(CommandRunner.write(Array("P6\n8 8\n255\n".utf8) + [UInt8](repeating: 90, count: 192), to: folder + "/in.ppm"))
        let run = try #require(CommandRunner.run(cjpeg, ["-quality", "\(quality)", "-outfile", folder + "/c.jpg", folder + "/in.ppm"]))
        #expect(run.status == 0)
        let ours = Self.quantisationTables(try #require(FileSystem.read(folder + "/t.jpg")))
        let theirs = Self.quantisationTables(try #require(FileSystem.read(folder + "/c.jpg")))
        #expect(ours.count == 2 && ours == theirs, "--quality \(quality)")
    }

    /// An EXIF thumbnail is turned by the file's orientation like the main image: the
    /// fixtures' thumbnails as ExifTool extracts them (`*.thumb.jpg`), decoded, turned 180°
    /// (fx-thumb-II, orientation 3) or 90° counter-clockwise (fx-thumb-MM, orientation 8),
    /// are the `--embedded always` thumbnails at their own size, pixel for pixel.
    @Test(arguments: [("II", 3), ("MM", 8)]) func exifThumbnailFollowsTheOrientation(_ order: String, _ orientation: Int) throws {
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        let stem = Corpus.fixtures + "/exif/fx-thumb-\(order)"
        let fields = try Self.thumbnail([stem + ".jpg", "--size", "160", "--embedded", "always", "--format", "ppm",
                                         "-o", folder + "/t.ppm"])
        #expect(fields["source"] == "exif-thumbnail")
        let pare = try #require(CommandRunner.pare)
        #expect(CommandRunner.run(pare, ["decode", stem + ".thumb.jpg", "-o", folder + "/d.ppm"])?.status == 0)
        let stored = try Self.ppm(folder + "/d.ppm"), shown = try Self.ppm(folder + "/t.ppm")
        #expect(shown.width == (orientation == 3 ? stored.width : stored.height))
        #expect(Self.turned(stored, orientation: orientation) == shown.samples)
    }

    /// An MPF preview is turned by the primary image's orientation like the main image: fx-mpf
    /// (a 640×480 MPF large thumbnail) with its IFD0 Orientation patched from 1 to 6 gives, with
    /// `--embedded always` at the preview's size, the MPF preview turned 90° clockwise: its
    /// `--no-rotate` thumbnail, pixel for pixel. The patch is one byte of a SHORT value, so no
    /// offset in the EXIF or MPF blocks moves.
    @Test func mpfPreviewFollowsTheOrientation() throws {
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        var bytes = try #require(FileSystem.read(Corpus.fixtures + "/exif/fx-mpf.jpg"))
        // IFD0's entry: tag 0x0112 (Orientation), type 3 (SHORT), count 1, value 1; little-endian.
        let entry: [UInt8] = [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00]
        let at = try #require((0 ... bytes.count - entry.count).first { Array(bytes[$0 ..< $0 + entry.count]) == entry },
                              "fx-mpf.jpg has no Orientation 1 entry")
        bytes[at + 8] = 6
        try #require(CommandRunner.write(bytes, to: folder + "/turned.jpg"))
        var seen: [String] = []
        for (name, extra) in [("t", [String]()), ("n", ["--no-rotate"])] {
            let fields = try Self.thumbnail([folder + "/turned.jpg", "--size", "640", "--embedded", "always",
                                             "--format", "ppm", "-o", folder + "/\(name).ppm"] + extra)
            seen.append("\(fields["source"] ?? "?") \(fields["width"] ?? "?")×\(fields["height"] ?? "?")")
        }
        #expect(seen == ["mpf-preview 480×640", "mpf-preview 640×480"])
        let stored = try Self.ppm(folder + "/n.ppm"), shown = try Self.ppm(folder + "/t.ppm")
        #expect(shown.width == stored.height && shown.height == stored.width)
        #expect(Self.turned(stored, orientation: 6) == shown.samples)
    }

    /// A PNG's eXIf orientation is applied like a JPEG's: the corpus PNG with Orientation 6
    /// in an eXIf chunk, thumbnailed at its own size, is its `--no-rotate` thumbnail turned
    /// clockwise (and equals Pillow's decode turned by `ROTATE_270`, checked by hand).
    @Test(.requiresCorpus) func pngExifOrientationIsApplied() throws {
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        let input = Corpus.path + "/exif/png/ipng-F-exif-chunk-early.png"
        _ = try Self.thumbnail([input, "--size", "400", "--format", "ppm", "-o", folder + "/t.ppm"])
        _ = try Self.thumbnail([input, "--size", "400", "--format", "ppm", "-o", folder + "/n.ppm", "--no-rotate"])
        let stored = try Self.ppm(folder + "/n.ppm"), shown = try Self.ppm(folder + "/t.ppm")
        #expect(stored.samples != shown.samples)
        #expect(Self.turned(stored, orientation: 6) == shown.samples)
    }
}
