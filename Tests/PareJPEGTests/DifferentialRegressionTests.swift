import PareCore
import Testing
import TestSupport
import PareJPEG

/// Replays the inputs of the `differential-jpeg` fuzz target kept in
/// `Fixtures/regressions/differential-jpeg/`: each is decoded at 1/1, 1/2, 1/4 and 1/8 with
/// default options, as the target decodes it, and must equal, sample for sample, the djpeg
/// decode stored beside it at each scale djpeg decodes (`STEM.sN.pnm`, written by
/// `Fixtures/regressions/make-differential-references.sh`). The suite cannot link libjpeg, so
/// the references are files; a folder without inputs fails.
@Suite struct JPEGDifferentialRegressionTests {
    static var folder: String { Regressions.folder("differential-jpeg") }

    @Test func everyInputDecodesLikeDjpegAtEveryScale() throws {
        let inputs = Regressions.inputs("differential-jpeg").filter { $0.name.hasSuffix(".jpg") || $0.isFuzzerInput }
        try #require(!inputs.isEmpty, "no inputs in \(Self.folder)")
        for input in inputs {
            // A file kept by Fuzz/keep.sh starts with the fuzzer's request byte; every scale is
            // compared whatever it asked for.
            let bytes = input.isFuzzerInput ? Array(input.bytes.dropFirst()) : input.bytes
            let stem = String(input.name[..<input.name.lastIndex(of: ".")!])
            // A scale djpeg refuses has no reference (make-differential-references.sh says so);
            // every input must have at least one.
            let scales = [1, 2, 4, 8].filter { FileSystem.exists("\(Self.folder)/\(stem).s\($0).pnm") }
            #expect(!scales.isEmpty, "\(input.name): no reference; run make-differential-references.sh")
            for n in scales {
                let path = "\(Self.folder)/\(stem).s\(n).pnm"
                let pnm = try #require(FileSystem.read(path), "\(path)")
                let reference = try #require(ReferenceImage.readPNM(pnm), "\(path)")
                var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
                var builder = ImageBuilder(ledger: MemoryLedger())
                try decoder.decode(scale: JPEGScale(rawValue: 8 / n)!, into: &builder)
                let image = try #require(builder.image)
                #expect(image.width == reference.width && image.height == reference.height
                        && image.format.channels == reference.channels, "\(input.name) 1/\(n)")
                #expect(image.pixels == reference.samples, "\(input.name) 1/\(n): \(Comparison.between(image.pixels, reference.samples))")
            }
        }
    }
}
