import PareCore
@testable import PareTIFF
import Testing
import TestSupport

/// `LZWDecoder`'s fast path for new-style data against its plain loop: the same bytes
/// produced, the same damage, on every LZW strip and tile of the fixtures and the made
/// corpus, whole, cut short and given too little room, and on streams of noise.
@Suite struct LZWFastPathTests {
    static func run(_ input: [UInt8], room: Int, plain: Bool) -> (bytes: [UInt8], produced: Int, damage: String) {
        var decoder = LZWDecoder()
        var output = [UInt8](repeating: 0, count: room)
        let result = input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                plain ? decoder.decodePlain(source, into: target) : decoder.decode(source, into: target)
            }
        }
        return (Array(output[0 ..< result.produced]), result.produced, result.damage.map { "\($0)" } ?? "none")
    }

    static func expectAgree(_ input: [UInt8], room: Int, _ what: String) {
        let plain = run(input, room: room, plain: true), fast = run(input, room: room, plain: false)
        #expect(plain.produced == fast.produced, "\(what)")
        #expect(plain.damage == fast.damage, "\(what)")
        #expect(plain.bytes == fast.bytes, "\(what)")
    }

    /// The LZW segments of every LZW TIFF in `folder`.
    static func segments(_ folder: String) -> [(String, [UInt8])] {
        var found: [(String, [UInt8])] = []
        for name in FileSystem.list(folder).sorted() where name.hasSuffix(".tif") && name.contains("lzw") {
            guard let bytes = FileSystem.read(folder + "/" + name),
                  let decoder = try? TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger()),
                  decoder.info.compression == 5 else { continue }
            for (i, segment) in decoder.info.segments.enumerated().prefix(40)
            where segment.offset >= 0 && segment.count > 0 && segment.offset + segment.count <= bytes.count {
                found.append(("\(name) segment \(i)", Array(bytes[segment.offset ..< segment.offset + segment.count])))
            }
        }
        return found
    }

    static func check(_ segments: [(String, [UInt8])]) {
        for (what, input) in segments {
            let whole = run(input, room: 64 * input.count + 64, plain: true).produced
            for room in [whole, whole + 5, max(1, whole / 2), max(1, whole - 3), 7] {
                expectAgree(input, room: room, "\(what), room \(room)")
            }
            for cut in [input.count / 3, input.count - 1] where cut > 0 {
                expectAgree(Array(input.prefix(cut)), room: whole, "\(what) cut to \(cut) bytes")
            }
        }
    }

    @Test func fixturesAgree() {
        let found = Self.segments(Corpus.fixtures + "/tiff")
        #expect(found.count >= 10)
        Self.check(found)
    }

    @Test(.requiresMadeCorpus("tiff", script: "Fixtures/make-tiff-corpus.sh")) func madeCorpusAgrees() throws {
        let found = Self.segments(try #require(Corpus.made("tiff")))
        #expect(!found.isEmpty)
        Self.check(found)
    }

    /// Noise after a Clear code: codes beyond the table, early ends, every width.
    @Test func noiseAgrees() {
        var state: UInt32 = 7
        for length in [1, 2, 3, 5, 9, 64, 700, 5000] {
            var input: [UInt8] = [0x80]
            for _ in 0 ..< length {
                state = state &* 1_103_515_245 &+ 12345
                input.append(UInt8(truncatingIfNeeded: state >> 16))
            }
            for room in [1, 16, 4096] { Self.expectAgree(input, room: room, "noise of \(length), room \(room)") }
        }
    }
}
