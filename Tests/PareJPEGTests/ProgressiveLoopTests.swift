import PareCore
import Testing
import TestSupport
@testable import PareJPEG

/// The Embedded build decodes progressive scans through one loop for both kinds of scan
/// (`ProgressiveScanDecoder.runShared`); the host through two. The host runs the shared one
/// too here: every progressive fixture and corpus file, at every scale, gives the same rows,
/// warnings and errors through both.
@Suite struct ProgressiveLoopTests {
    static func decode(_ bytes: [UInt8], scale: JPEGScale, shared: Bool) -> EntropyPathTests.Outcome {
        var outcome = EntropyPathTests.Outcome()
        do {
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(limit: 256 << 20))
            decoder.sharedProgressiveLoop = shared
            var sink = EntropyPathTests.HashingSink()
            try decoder.decode(scale: scale, into: &sink)
            outcome.pixels = sink.hash
            outcome.rows = sink.rows
            outcome.warnings = decoder.warnings.map(\.description)
        } catch {
            outcome.error = error.description
        }
        return outcome
    }

    static func fixtureFiles() -> [(String, [UInt8])] {
        FileSystem.list(Corpus.fixtures + "/progressive").filter { $0.hasSuffix(".jpg") }.compactMap { name in
            FileSystem.read(Corpus.fixtures + "/progressive/" + name).map { (name, $0) }
        }
    }

    static func corpusFiles() -> [(String, [UInt8])] {
        ["conformance", "malformed"].flatMap { folder in
            FileSystem.list(Corpus.path + "/jpeg/" + folder).compactMap { name -> (String, [UInt8])? in
                guard let bytes = FileSystem.read(Corpus.path + "/jpeg/" + folder + "/" + name),
                      JPEGLoopProbe.isProgressive(bytes) else { return nil }
                return (folder + "/" + name, bytes)
            }
        }
    }

    static func compare(_ files: [(String, [UInt8])]) -> Int {
        var compared = 0
        for (name, bytes) in files {
            for scale in JPEGScale.allCases {
                let split = decode(bytes, scale: scale, shared: false)
                let shared = decode(bytes, scale: scale, shared: true)
                #expect(split == shared, "\(name) at \(scale.name)")
                compared += 1
            }
        }
        return compared
    }

    @Test func sharedLoopGivesTheSameRowsOnTheFixtures() {
        let files = Self.fixtureFiles()
        #expect(files.count >= 5, "progressive fixtures found: \(files.count)")
        #expect(Self.compare(files) == files.count * JPEGScale.allCases.count)
    }

    @Test(.requiresCorpus) func sharedLoopGivesTheSameRowsOnTheCorpus() {
        let files = Self.corpusFiles()
        #expect(files.count >= 10, "progressive corpus files found: \(files.count)")
        print("progressive loops: \(files.count) corpus files, \(Self.compare(files)) decodes compared")
    }
}

/// Whether a JPEG's first frame header is progressive (SOF2), by a walk over its markers.
enum JPEGLoopProbe {
    static func isProgressive(_ bytes: [UInt8]) -> Bool {
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            if marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE { return true }
            if (0xC0 ... 0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC { return false }
            i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        return false
    }
}
