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

        mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
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

    /// With `wholeWindow`, the input window holds the whole file, so that where each block's
    /// data ends, which the digest folds in, is known exactly (`BitReader.offset(bitsBack:)`
    /// cannot count stuffed bytes back past the window's start).
    static func decode(_ bytes: [UInt8], scale: JPEGScale, path: EntropyPath, wholeWindow: Bool = true) -> Outcome {
        var outcome = Outcome()
        do {
            var options = JPEGOptions()
            if wholeWindow { options.inputWindowBytes = max(options.inputWindowBytes, bytes.count) }
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(limit: 256 << 20),
                                          options: options)
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
                || (folder.hasSuffix("regressions/jpeg") && !name.hasSuffix(".md") && !name.hasSuffix(".fuzz")) {
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
                // With the default window, reloaded as the scan goes: the same pixels from the
                // fast path, and from the automatic choice, which mixes the two per MCU.
                for entropyPath in [EntropyPath.fast, .automatic] {
                    let windowed = decode(bytes, scale: scale, path: entropyPath, wholeWindow: false)
                    #expect(windowed.pixels == plain.pixels && windowed.warnings == plain.warnings
                            && windowed.error == plain.error, "\(path) at \(scale.name), \(entropyPath), default window")
                }
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

    /// A baseline 4:2:0 frame whose scan is `dataBytes` random bytes (a 0xFF stuffed with
    /// 0x00, T.81 B.1.1.5), decoded with the typical tables of T.81 K.3 (the file defines
    /// none): random codes of every length, runs that overshoot the block, bad codes, data
    /// that runs out; with `restartInterval`, RSTn markers every `restartBytes` bytes, which
    /// land anywhere in a block. Both paths must consume the same bits block by block (the
    /// digest folds in where each block's data ended) and give the same DC values.
    static func randomScan(seed: UInt64, dataBytes: Int, restartInterval: Int = 0, restartBytes: Int = 0) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ body: [UInt8]) { out += SyntheticJPEG.segment(marker, body) }
        segment(0xDB, [0x00] + [UInt8](repeating: 2, count: 64))
        segment(0xC0, [8, 0, 128, 0, 128, 3, 1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0])
        if restartInterval > 0 {
            segment(0xDD, [UInt8(restartInterval >> 8), UInt8(restartInterval & 0xFF)])
        }
        segment(0xDA, [3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0])
        var random = SplitMix(state: seed)
        var restart = 0
        for i in 0 ..< dataBytes {
            if restartBytes > 0, i > 0, i % restartBytes == 0 {
                out += [0xFF, 0xD0 + UInt8(restart & 7)]
                restart += 1
            }
            let byte = UInt8(truncatingIfNeeded: random.next())
            out.append(byte)
            if byte == 0xFF { out.append(0) }
        }
        out += [0xFF, 0xD9]
        return out
    }

    @Test func randomScansAgree() {
        for seed: UInt64 in 1 ... 24 {
            // Less data than 64 MCUs need (the rest is flat), more than enough, and restart
            // intervals every 4 MCUs whose markers fall every 100 bytes.
            let files = [Self.randomScan(seed: seed, dataBytes: 2_000),
                         Self.randomScan(seed: seed, dataBytes: 30_000),
                         Self.randomScan(seed: seed, dataBytes: 6_000, restartInterval: 4, restartBytes: 100)]
            for (n, bytes) in files.enumerated() {
                for scale in [JPEGScale.eighth, .quarter, .full] {
                    let plain = Self.decode(bytes, scale: scale, path: .plain)
                    let fast = Self.decode(bytes, scale: scale, path: .fast)
                    #expect(plain.error == nil && plain.rows > 0, "seed \(seed) file \(n) at \(scale.name)")
                    #expect(plain.digest != 0 && plain == fast, "seed \(seed) file \(n) at \(scale.name)")
                }
            }
        }
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
