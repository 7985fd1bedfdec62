import Testing
import TestSupport

/// `pare explain`, run as a user runs it: the page is written for good and broken files
/// alike, holds the sections its format promises, and needs nothing outside itself. (That it
/// renders, with no script error and every picture decoding, is checked in a browser by
/// Tests/cli/explain-browser.sh.)
@Suite struct ExplainCommandTests {
    func explain(_ input: String) throws -> (status: Int32, page: String) {
        let folder = CommandRunner.temporaryFolder()
        defer { CommandRunner.removeFolder(folder) }
        let pare = try #require(CommandRunner.pare, "the pare executable beside the test bundle")
        let outcome = try #require(CommandRunner.run(pare, ["explain", input, "-o", folder + "/page.html"]))
        let page = FileSystem.read(folder + "/page.html").map { String(decoding: $0, as: UTF8.self) } ?? ""
        return (outcome.status, page)
    }

    func sections(_ page: String) -> [String] {
        page.split(separator: "<section id=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// Every reference in the page is to itself or a data: URI; nothing is fetched.
    func isSelfContained(_ page: String) -> Bool {
        !page.contains("http://") && !page.contains("https://")
            && page.split(separator: "src=\"").dropFirst().allSatisfy { $0.hasPrefix("data:image/png;base64,") }
    }

    @Test func sampleHasEveryJPEGSection() throws {
        let (status, page) = try explain(Corpus.fixtures + "/sample.jpg")
        #expect(status == 0)
        #expect(sections(page) == ["bytes", "frame", "quantization", "huffman", "scans", "stages", "blocks", "metadata"])
        #expect(page.contains("Estimated IJG quality: <strong>85</strong>"))
        #expect(isSelfContained(page))
    }

    @Test func truncatedFileStillGetsItsPage() throws {
        let (status, page) = try explain(Corpus.fixtures + "/progressive/px-cut-in-ac-420.jpg")
        #expect(status == 0)
        #expect(sections(page).contains("stages"))
        #expect(sections(page).last == "error")
        #expect(page.contains("truncated") || page.contains("ends"))
        #expect(isSelfContained(page))
    }

    @Test func notAnImageIsExplainedToo() throws {
        let (status, page) = try explain(Corpus.fixtures + "/README.md")
        #expect(status == 0)
        #expect(sections(page) == ["bytes", "error"])
        #expect(page.contains("not a format Pare reads (JPEG, PNG, TIFF, WebP, GIF, Netpbm) at byte 0"))
        // The error is marked on the byte map.
        #expect(page.contains("class=\"err\""))
    }

    @Test func exifFileShowsItsMetadata() throws {
        let (status, page) = try explain(Corpus.fixtures + "/exif/fx-mpf.jpg")
        #expect(status == 0)
        #expect(sections(page).contains("metadata"))
        #expect(page.contains("IFD0"))
        #expect(page.contains("MPF images"))
    }

    /// A TIFF's page: the header, the IFD and the values stored outside it, and every strip
    /// on the byte map; the image section with the first page's picture.
    @Test func tiffShowsItsStripsAndValues() throws {
        let (status, page) = try explain(Corpus.fixtures + "/tiff/gray8-lzw-strips.tif")
        #expect(status == 0)
        #expect(sections(page) == ["bytes", "metadata", "image"])
        for part in ["IFD0: 14 entries", "IFD0 StripOffsets: 6 LONG values", "strip 0: 346 compressed bytes",
                     "strip 5: 101 compressed bytes", "5 (LZW)"] {
            #expect(page.contains(part), "\(part)")
        }
        #expect(page.split(separator: "data:image/png;base64,").count == 2)
        #expect(isSelfContained(page))
    }
}
