import PareCore
import Testing
import TestSupport
@testable import PareJPEG

/// The plain block decoder (`ScanDecoder.decodeBlock`, T.81 F.2.2.1–F.2.2.2 as written) is
/// the oracle of the fast one (`decodeBlockFast`): forced through one path and then the
/// other, every file must give the same coefficients (`coefficientDigest`), the same
/// warnings and the same pixels, at every scale (1/8 passes over AC data by another route).
/// One thing may differ: how many bytes an `extraneousBytes` warning counts before a
/// restart marker in damaged data, since that is how far the bit reader had not yet loaded,
/// and the fast path tops its buffer up before every code where the plain one waits until
/// fewer than 32 bits are left (libjpeg-turbo's counts vary with its read-ahead in the same
/// way).
@Suite struct EntropyPathTests {
    /// Every sample of every row, hashed.
    struct HashingSink: RowSink {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var rows = 0

        mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}

        mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
            for sample in row { hash = (hash ^ UInt64(sample)) &* 0x100_0000_01B3 }
            rows += 1
        }
    }

    struct Outcome: Equatable {
        var digest: UInt64 = 0
        var pixels: UInt64 = 0
        var rows = 0
        var warnings: [String] = []
        var error: String?
    }

    static func decode(_ bytes: [UInt8], scale: JPEGScale, path: EntropyPath) -> Outcome {
        var outcome = Outcome()
        do {
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(limit: 256 << 20))
            decoder.entropyPath = path
            var sink = HashingSink()
            try decoder.decode(scale: scale, into: &sink)
            outcome.digest = decoder.coefficientDigest
            outcome.pixels = sink.hash
            outcome.rows = sink.rows
            outcome.warnings = decoder.warnings.map { warning in
                if case let .extraneousBytes(_, marker, offset) = warning {
                    return "extraneous bytes before \(markerName(marker)) at byte \(offset)"
                }
                return warning.description
            }
        } catch {
            outcome.error = error.description
        }
        return outcome
    }

    /// The JPEG files under `folder`, recursively.
    static func jpegFiles(under folder: String) -> [String] {
        var files: [String] = []
        for name in FileSystem.list(folder) {
            let path = folder + "/" + name
            if FileSystem.isDirectory(path) {
                files += jpegFiles(under: path)
            } else if name.lowercased().hasSuffix(".jpg") || name.lowercased().hasSuffix(".jpeg")
                || folder.hasSuffix("regressions/jpeg") {
                files.append(path)
            }
        }
        return files
    }

    /// Decodes each file both ways at `scales`; returns how many decodes went through blocks.
    static func compare(_ files: [String], scales: [JPEGScale]) throws -> Int {
        var compared = 0
        for path in files {
            let bytes = try #require(FileSystem.read(path))
            for scale in scales {
                let plain = decode(bytes, scale: scale, path: .plain)
                let fast = decode(bytes, scale: scale, path: .fast)
                #expect(plain == fast, "\(path) at \(scale.name)")
                if plain.digest != 0 { compared += 1 }
                // The automatic choice mixes the two per MCU: the same pixels again.
                let automatic = decode(bytes, scale: scale, path: .automatic)
                #expect(automatic.pixels == fast.pixels && automatic.warnings == fast.warnings
                        && automatic.error == fast.error, "\(path) at \(scale.name), automatic")
            }
        }
        return compared
    }

    @Test func fixturesAndRegressionsAgree() throws {
        let files = Self.jpegFiles(under: Corpus.fixtures)
        #expect(files.count >= 100)
        let compared = try Self.compare(files, scales: JPEGScale.allCases)
        print("EntropyPathTests: \(files.count) fixture files, \(compared) decodes with sequential scans")
        #expect(compared >= 220)
    }

    @Test(.requiresCorpus)
    func corpusAgrees() throws {
        let root = Corpus.path
        let files = Self.jpegFiles(under: root + "/jpeg") + Self.jpegFiles(under: root + "/exif")
        #expect(files.count >= 300)
        let compared = try Self.compare(files, scales: [.full, .eighth])
        print("EntropyPathTests: \(files.count) corpus files, \(compared) decodes with sequential scans")
        #expect(compared >= 400)
    }
}

@Suite struct MarkerNameTests {
    /// Markers without a name are written as their two bytes in hex.
    @Test func namesKnownMarkersAndHexForTheRest() {
        #expect(markerName(0xC2) == "SOF2")
        #expect(markerName(0xD3) == "RST3")
        #expect(markerName(0xE1) == "APP1")
        #expect(markerName(0xF7) == "0xFFF7")
        #expect(markerName(0x01) == "0xFF01")
    }
}
