import PareCore
import PareWebP
import Testing
import TestSupport

/// Byte identity with `dwebp -pam` over the made WebP corpus (`Fixtures/webp/make-corpus.sh`
/// writes the files and their digests into .build/made-corpus/webp), and with Pillow's first
/// frame for the animations.
@Suite struct ConformanceTests {
    static let folder = Corpus.made("webp") ?? ""

    func check(_ list: String, in folder: String = folder) -> (passed: Int, failures: [String]) {
        var passed = 0
        var failures: [String] = []
        // Files over 4 megapixels (the timing file) take a debug build tens of seconds; they
        // are checked with a release build (see make-corpus.sh), not here.
        for entry in readDigests(folder + "/" + list) where entry.width * entry.height <= 4_000_000 {
            guard let bytes = FileSystem.read(folder + "/" + entry.name) else {
                failures.append("\(entry.name): unreadable")
                continue
            }
            do {
                let image = try decodeWebP(bytes)
                let digest = pixelDigest(image)
                let expected = image.format == .rgba8 ? entry.digest : entry.rgbDigest
                if image.width != entry.width || image.height != entry.height {
                    failures.append("\(entry.name): size \(image.width)x\(image.height), expected \(entry.width)x\(entry.height)")
                } else if digest != expected {
                    failures.append("\(entry.name): pixels differ")
                } else {
                    passed += 1
                }
            } catch {
                failures.append("\(entry.name): \(error)")
            }
        }
        return (passed, failures)
    }

    /// The committed fixtures (`Fixtures/webp/make-fixtures.sh`): every one identical.
    @Test func fixturesMatchDwebp() {
        let (passed, failures) = check("expected.txt", in: Corpus.fixtures + "/webp")
        #expect(passed == 18)
        #expect(failures == [])
    }

    @Test(.requiresMadeCorpus("webp", script: "Fixtures/webp/make-corpus.sh")) func stillsMatchDwebp() {
        let (passed, failures) = check("expected-dwebp.txt")
        print("WebP corpus: \(passed) files identical to dwebp -pam, \(failures.count) differ")
        for failure in failures { print("  \(failure)") }
        #expect(passed > 0)
        #expect(failures.isEmpty)
    }

    @Test(.requiresMadeCorpus("webp", script: "Fixtures/webp/make-corpus.sh")) func animationsMatchPillow() {
        let (passed, failures) = check("expected-pillow.txt")
        print("WebP animations: \(passed) first frames identical to Pillow, \(failures.count) differ")
        for failure in failures { print("  \(failure)") }
        #expect(failures.isEmpty)
    }
}
