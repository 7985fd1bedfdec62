import PareCore
import ParePNG
import Testing
import TestSupport

/// Bad input never traps or hangs: corpus files with bytes flipped inside their chunks
/// (CRCs recomputed, so the damage reaches IHDR, PLTE, tRNS and the zlib data) or cut
/// short either decode or throw a `PNGError`.
@Suite struct PNGMutationTests {
    @Test(.requiresCorpus) func mutatedFilesDecodeOrThrow() throws {
        let root = Corpus.path
        let names = ["basn0g01", "basn0g16", "basn2c08", "basn3p02", "basn3p08", "basn4a16", "basn6a08",
                     "basi0g04", "basi3p04", "basi6a16", "tbbn0g04", "tbrn2c08", "tp1n3p08", "s01i3p01",
                     "s09n3p02", "z09n2c08", "f04n2c08", "oi9n0g16"]
        var rng = SplitMix(state: 0xF022)
        var decoded = 0, rejected = 0
        for name in names {
            let file = try #require(FileSystem.read(root + "/png/pngsuite/" + name + ".png"))
            let parts = chunks(of: file)
            for round in 0 ..< 150 {
                var mutated: [UInt8]
                if round % 5 == 4 {
                    mutated = Array(file.prefix(Int(rng.next() % UInt64(file.count))))
                } else {
                    var copy = parts
                    let target = Int(rng.next() % UInt64(copy.count))
                    if !copy[target].1.isEmpty {
                        for _ in 0 ... rng.next() % 3 {
                            let at = Int(rng.next() % UInt64(copy[target].1.count))
                            copy[target].1[at] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                        }
                    }
                    mutated = pngSignature
                    for (type, data) in copy { mutated += chunk(type, data) }
                }
                do {
                    let image = try PNGDecoder.decodeImage(mutated, ledger: MemoryLedger(limit: 64 << 20))
                    #expect(image.width > 0 && image.height > 0)
                    decoded += 1
                } catch {
                    #expect(!"\(error)".isEmpty)
                    rejected += 1
                }
            }
        }
        // The mutations are seeded, so the split is fixed: a decoder that starts rejecting
        // what it used to recover (or accepting what it used to refuse) changes it.
        print("PNG mutations: \(decoded) decoded, \(rejected) rejected with a typed error")
        #expect(decoded == 1115 && rejected == 1585)
    }
}
