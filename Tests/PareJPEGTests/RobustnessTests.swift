import PareCore
import TestSupport
import Testing
@testable import PareJPEG

/// Damaged input: typed errors or a decode with warnings, never a trap, never a hang.
@Suite struct RobustnessTests {
    @Test(.requiresCorpus) func malformedAndUnsupportedFilesNeverTrap() throws {
        let root = Corpus.path
        var decoded = 0, withWarnings = 0, errors = 0
        for folder in ["jpeg/malformed", "jpeg/unsupported"] {
            for name in FileSystem.list(root + "/" + folder) {
                let bytes = try #require(FileSystem.read(root + "/\(folder)/" + name))
                do {
                    var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
                    for scale in [JPEGScale.full, .eighth] {
                        var sink = RowCounter()
                        try decoder.decode(scale: scale, into: &sink)
                        #expect(sink.rows == sink.header?.height && sink.inOrder, "\(name)")
                    }
                    decoded += 1
                    if !decoder.warnings.isEmpty { withWarnings += 1 }
                } catch {
                    errors += 1
                    #expect(error.description.hasPrefix("JPEG: ") && error.description.contains("byte"), "\(name)")
                }
            }
        }
        print("JPEG malformed/unsupported: \(decoded) decoded (\(withWarnings) with warnings), \(errors) typed errors")
        #expect(decoded + errors > 100)
    }

    /// Every file of jpeg/unsupported (12-bit, arithmetic, lossless, JPEG-LS, DNL) is refused
    /// as unsupported, from its header or at the scan that needs what Pare lacks; the 19 are
    /// named, so that a file added, dropped or decoded shows here.
    @Test(.requiresCorpus) func everyUnsupportedCorpusFileIsRefusedAsUnsupported() throws {
        let folder = Corpus.path + "/jpeg/unsupported"
        var outcomes: [String: String] = [:]
        for name in FileSystem.list(folder) {
            let bytes = try #require(FileSystem.read(folder + "/" + name))
            do {
                var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
                var sink = RowCounter()
                try decoder.decode(scale: .full, into: &sink)
                outcomes[name] = "decoded"
            } catch {
                outcomes[name] = error.kind == .unsupported ? "unsupported" : "\(error.kind): \(error)"
            }
        }
        for (name, outcome) in outcomes.sorted(by: { $0.key < $1.key }) { print("  unsupported/\(name): \(outcome)") }
        #expect(outcomes.count == 19)
        let refused = outcomes.filter { $0.value == "unsupported" }.count
        #expect(refused == 19, "\(outcomes.filter { $0.value != "unsupported" })")
    }

    @Test func truncatedDataEndsInGray() throws {
        let whole = SyntheticJPEG.make(width: 256, height: 256, components: [SyntheticJPEG.Component(1, 1)])
        let cut = Array(whole.prefix(whole.count / 2))
        var decoder = try JPEGDecoder(source: MemoryByteSource(cut), ledger: MemoryLedger())
        var builder = ImageBuilder(ledger: MemoryLedger())
        try decoder.decode(scale: .full, into: &builder)
        let image = try #require(builder.image)
        #expect(image.withRow(255) { $0.allSatisfy { $0 == 128 } })
        #expect(image.withRow(0) { $0[0] } == 28)  // the synthetic image's first block level
        #expect(decoder.warnings.contains { if case .truncated = $0 { return true } else { return false } })

        var options = JPEGOptions()
        options.strict = true
        var strict = try JPEGDecoder(source: MemoryByteSource(cut), ledger: MemoryLedger(), options: options)
        var sink = RowCounter()
        #expect(throws: JPEGError.self) { try strict.decode(scale: .full, into: &sink) }
    }

    @Test func wrongRestartMarkerResynchronises() throws {
        var bytes = SyntheticJPEG.make(width: 64, height: 32, restartInterval: 2)
        let original = bytes
        // Turn the second restart marker (RST1) into RST5: neither expected nor adjacent, so
        // libjpeg's policy takes it as the expected one and decoding goes on.
        var seen = 0
        for i in 0 ..< bytes.count - 1 where bytes[i] == 0xFF && bytes[i + 1] >= 0xD0 && bytes[i + 1] <= 0xD7 {
            seen += 1
            if seen == 2 {
                bytes[i + 1] = 0xD5
                break
            }
        }
        func decode(_ input: [UInt8]) throws -> ([UInt8], [JPEGWarning]) {
            var decoder = try JPEGDecoder(source: MemoryByteSource(input), ledger: MemoryLedger())
            var builder = ImageBuilder(ledger: MemoryLedger())
            try decoder.decode(scale: .full, into: &builder)
            return (try #require(builder.image).pixels, decoder.warnings)
        }
        let (clean, cleanWarnings) = try decode(original)
        let (repaired, warnings) = try decode(bytes)
        #expect(cleanWarnings.isEmpty)
        #expect(warnings.contains { if case .restartResync(0xD1, 0xD5, _) = $0 { return true } else { return false } })
        #expect(repaired == clean)
    }

    @Test func limitsAreEnforced() throws {
        let bytes = SyntheticJPEG.make(width: 300, height: 200)
        var options = JPEGOptions()
        options.maxPixels = 50_000
        #expect(throws: JPEGError.limitExceeded(what: "pixel count", value: 60_000, limit: 50_000, offset: 71)) {
            try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: options)
        }
        #expect(throws: JPEGError.notJPEG(offset: 0)) {
            try JPEGDecoder(source: MemoryByteSource([0x89, 0x50]), ledger: MemoryLedger())
        }
        // A ledger limit below the decoder's needs is the ledger's own error, naming the limit.
        do throws(JPEGError) {
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(limit: 70_000))
            var sink = RowCounter()
            try decoder.decode(scale: .full, into: &sink)
            Issue.record("a decode needing more than 70 000 bytes of buffers ran under a 70 000-byte ledger")
        } catch {
            guard case let .core(.limitExceeded(requested, inUse, limit)) = error else {
                Issue.record("expected the ledger's limitExceeded, got \(error)")
                return
            }
            #expect(limit == 70_000)
            #expect(requested > 0 && inUse >= 0 && requested + inUse > limit)
        }
    }
}
