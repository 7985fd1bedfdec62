import Testing
import PareCore
@testable import Pare
import TestSupport

/// What the API says when a thumbnail fails: the decoder's one line (stage, reason, byte
/// offset), unchanged by `PareError`, which is what the CLI prints after the file name.
@Suite struct PareErrorMessageTests {
    static func message(_ bytes: [UInt8], strict: Bool = false) -> String? {
        do {
            var options = ThumbnailOptions(maxPixelSize: 64)
            options.embedded = .never
            options.strict = strict
            _ = try ImageSource(bytes: bytes).thumbnail(options: options)
            return nil
        } catch {
            return error.description
        }
    }

    @Test(.requiresCorpus) func corpusFiles() throws {
        let root = Corpus.path
        let expected = [
            "png/malformed/pil-truncated_image.png":
                "PNG: unexpected end of file in chunk IDAT (23639 more byte(s) needed) at byte 81920",
            "png/pngsuite/xhdn0g08.png": "PNG: CRC mismatch in chunk IHDR at byte 8",
        ]
        for (name, line) in expected.sorted(by: { $0.key < $1.key }) {
            let bytes = try #require(FileSystem.read(root + "/" + name))
            #expect(Self.message(bytes, strict: true) == line, "\(name)")
        }
        // IHDR's CRC is structure, an error either way; the cut-off image data is survived
        // unless strict, its reason the warning's.
        let ihdr = try #require(FileSystem.read(root + "/png/pngsuite/xhdn0g08.png"))
        #expect(Self.message(ihdr) == "PNG: CRC mismatch in chunk IHDR at byte 8")
        let cutPNG = try #require(FileSystem.read(root + "/png/malformed/pil-truncated_image.png"))
        var pngOptions = ThumbnailOptions(maxPixelSize: 64)
        pngOptions.embedded = .never
        let partial = try ImageSource(bytes: cutPNG).thumbnail(options: pngOptions)
        #expect(partial.isDamaged)
        #expect(partial.warnings.map(\.description) == ["PNG: unexpected end of file in chunk IDAT (23639 more byte(s) "
            + "needed); 400 of 480 scanlines decoded, the rest filled black at byte 81920"])
        // A camera JPEG cut inside its first segment (APP1, 8,424 bytes long).
        let kodak = try #require(FileSystem.read(root + "/exif/cameras/kodak-dc240.jpg"))
        #expect(Self.message(Array(kodak.prefix(300)))
            == "JPEG: unexpected end of data (8420 byte(s) needed, 294 available) at byte 6")
        // Its first half decodes, mid-gray below the cut, with the reason among the warnings.
        let half = try #require(FileSystem.read(root + "/jpeg/malformed/made-truncated50-kodak-dc240.jpg"))
        var options = ThumbnailOptions(maxPixelSize: 64)
        options.embedded = .never
        let thumbnail = try ImageSource(bytes: half).thumbnail(options: options)
        #expect(thumbnail.warnings.map(\.description)
            == ["JPEG: data of scan 1 ends early, the rest is filled with gray at byte \(half.count)"])
        #expect(thumbnail.warnings == [.jpeg(.truncated(scan: 1, offset: half.count))])
        #expect(thumbnail.isDamaged)
        // strict refuses the repair, as damaged data.
        options.strict = true
        #expect(throws: PareError.jpeg(.strict(.truncated(scan: 1, offset: half.count)))) {
            try ImageSource(bytes: half).thumbnail(options: options)
        }
        #expect(PareError.jpeg(.strict(.truncated(scan: 1, offset: 0))).kind == .damaged)
    }

    @Test func pipelineMessages() {
        #expect(PareError.unknownFormat.description == "Pare: not a format Pare reads (JPEG, PNG, TIFF, WebP, GIF, Netpbm) at byte 0")
        do {
            _ = try ImageSource(bytes: Array("not a picture".utf8))
            Issue.record("text was accepted")
        } catch {
            #expect(error.description == "Pare: not a format Pare reads (JPEG, PNG, TIFF, WebP, GIF, Netpbm) at byte 0")
        }
        do {
            _ = try ImageSource(bytes: Array("\0\0\0\u{18}ftypheic\0\0\0\0mif1heic".utf8) + [0, 0, 0, 0])
            Issue.record("a HEIF was accepted")
        } catch {
            #expect(error.description == "Pare: unsupported: HEIF image: not supported")
        }
        #expect(PareError.core(.outOfBounds(offset: 9, needed: 4, available: 1)).description
            == "Pare: unexpected end of data (4 byte(s) needed, 1 available) at byte 9")
    }
}
