import PareCore
import ParePNG
import Testing
import TestSupport

/// Replays the inputs of the `differential-png` fuzz target kept in
/// `Fixtures/regressions/differential-png/`: each is decoded with default options (strict,
/// `.native` output), as the target decodes it, and must equal, sample for sample, libpng's
/// decode stored beside it (`STEM.pam`, written by
/// `Fixtures/regressions/make-differential-references.sh`, which also stores the input with
/// its chunk CRCs recomputed, as the target reads it). The suite cannot link libpng, so the
/// references are files; a folder without inputs fails.
@Suite struct PNGDifferentialRegressionTests {
    static var folder: String { Regressions.folder("differential-png") }

    @Test func everyInputDecodesLikeLibpng() throws {
        let inputs = Regressions.inputs("differential-png").filter { $0.name.hasSuffix(".png") }
        try #require(!inputs.isEmpty, "no inputs in \(Self.folder)")
        for input in inputs {
            let path = "\(Self.folder)/\(input.name.dropLast(4)).pam"
            let pam = try #require(FileSystem.read(path).flatMap(PAM.init), "\(path) missing: run make-differential-references.sh")
            var decoder = try PNGDecoder(source: MemoryByteSource(input.bytes), ledger: MemoryLedger())
            var builder = ImageBuilder(ledger: MemoryLedger())
            try decoder.decode(into: &builder)
            let image = try #require(builder.image)
            #expect(image.width == pam.width && image.height == pam.height && image.format.channels == pam.depth
                    && (image.format.bytesPerSample == 2) == (pam.maxval == 65535), "\(input.name): \(image.format)")
            #expect(image.pixels == pam.samples, "\(input.name): \(Comparison.between(image.pixels, pam.samples))")
        }
    }
}
