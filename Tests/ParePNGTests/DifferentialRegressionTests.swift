import PareCore
import ParePNG
import Testing
import TestSupport

/// Replays the inputs of the `differential-png` fuzz target kept in
/// `Fixtures/regressions/differential-png/`: each is decoded with default options (strict,
/// `.native` output), or leniently where strict refuses it, as the target decodes it, and
/// must equal, sample for sample, libpng's decode stored beside it (`STEM.pam`, written by
/// `Fixtures/regressions/make-differential-references.sh`, which also stores the input with
/// its chunk CRCs recomputed, as the target reads it). The suite cannot link libpng, so the
/// references are files; a folder without inputs fails.
@Suite struct PNGDifferentialRegressionTests {
    static var folder: String { Regressions.folder("differential-png") }

    /// Strict first; a file strict Pare refuses is decoded again leniently, as the target
    /// (and a thumbnail) decodes it.
    static func decode(_ bytes: [UInt8]) -> Image? {
        for strict in [true, false] {
            var options = PNGOptions()
            options.strict = strict
            do throws(PNGError) {
                var decoder = try PNGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: options)
                var builder = ImageBuilder(ledger: MemoryLedger())
                try decoder.decode(into: &builder)
                if let image = builder.image { return image }
            } catch {
                continue
            }
        }
        return nil
    }

    @Test func everyInputDecodesLikeLibpng() throws {
        let inputs = Regressions.inputs("differential-png").filter { $0.name.hasSuffix(".png") }
        try #require(!inputs.isEmpty, "no inputs in \(Self.folder)")
        for input in inputs {
            let path = "\(Self.folder)/\(input.name.dropLast(4)).pam"
            let pam = try #require(FileSystem.read(path).flatMap(PAM.init), "\(path) missing: run make-differential-references.sh")
            let image = try #require(Self.decode(input.bytes), "\(input.name): refused strictly and leniently")
            #expect(image.width == pam.width && image.height == pam.height && image.format.channels == pam.depth
                    && (image.format.bytesPerSample == 2) == (pam.maxval == 65535), "\(input.name): \(image.format)")
            #expect(image.pixels == pam.samples, "\(input.name): \(Comparison.between(image.pixels, pam.samples))")
        }
    }
}
