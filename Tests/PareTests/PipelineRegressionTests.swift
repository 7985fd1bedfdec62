import Pare
import PareCore
import Testing
import TestSupport

/// Replays `Fixtures/regressions/pipeline/` the way `Fuzz/pipeline.swift` runs an input: the
/// first byte is the request (bits 0–1 the size 8, 48, 160 or 400; bits 2–3 the embedded
/// policy; bit 4 orientation off; bits 5–6 the filter), the rest the file, under a 48 MiB
/// ledger and 64-Mpixel limits. Each must end in a typed error or a thumbnail no larger than
/// asked for, in gray8, grayAlpha8, rgb8 or rgba8, with the ledger back to zero.
@Suite struct PipelineRegressionTests {
    static let sizes = [8, 48, 160, 400]
    static let policies: [EmbeddedPolicy] = [.auto, .never, .always, .auto]
    static let filters: [ResamplingFilter] = [.lanczos3, .triangle, .area, .lanczos3]
    static let ledgerLimit = 48 << 20

    static func options(request: Int) -> ThumbnailOptions {
        var options = ThumbnailOptions(maxPixelSize: sizes[request & 3])
        options.embedded = policies[(request >> 2) & 3]
        options.applyOrientation = request & 0x10 == 0
        options.filter = filters[(request >> 5) & 3]
        options.memoryLimit = ledgerLimit
        options.jpeg.maxPixels = 1 << 26
        options.png.maxPixels = 1 << 26
        return options
    }

    @Test func everyRegressionEndsInATypedErrorOrASmallEnoughThumbnail() throws {
        let inputs = Regressions.inputs("pipeline")
        try #require(!inputs.isEmpty, "no inputs in \(Regressions.folder("pipeline"))")
        for input in inputs {
            try #require(input.isFuzzerInput && !input.bytes.isEmpty, "\(input.name): not a pipeline fuzzer input (*.fuzz)")
            let options = Self.options(request: Int(input.bytes[0]))
            let ledger = MemoryLedger(limit: Self.ledgerLimit)
            do {
                let source = try ImageSource(bytes: Array(input.bytes.dropFirst()))
                _ = try source.properties(options: options)
                let image = try source.thumbnail(options: options, ledger: ledger).image
                #expect(image.width >= 1 && image.height >= 1 && max(image.width, image.height) <= options.maxPixelSize,
                        "\(input.name): \(image.width)×\(image.height) for \(options.maxPixelSize)")
                #expect([.gray8, .grayAlpha8, .rgb8, .rgba8].contains(image.format), "\(input.name): \(image.format)")
            } catch {
                #expect(!error.description.isEmpty, "\(input.name)")
            }
            #expect(ledger.currentBytes == 0, "\(input.name): \(ledger.currentBytes) ledger bytes held after the job")
        }
    }
}
