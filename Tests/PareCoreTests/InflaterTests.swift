import CZlib
@_spi(Codec) @testable import PareCore
import Testing
import TestSupport

/// `Inflater` against zlib: zlib's deflate makes the streams (every level and strategy, so
/// stored, fixed and dynamic blocks, long and short matches), and zlib's inflate is the
/// oracle for damaged ones: the same bytes out before the same message.
@Suite struct InflaterTests {
    /// What inflating a stream gave: the bytes out, and how it stopped.
    struct Outcome: Equatable, CustomStringConvertible {
        var bytes: [UInt8]
        /// nil: the stream ended and checked; "" : the input ran out first; else the message.
        var message: String?
        var description: String { "\(bytes.count) bytes, \(message.map { "\"\($0)\"" } ?? "finished")" }
    }

    static func deflate(_ data: [UInt8], level: Int32, strategy: Int32, windowBits: Int32 = 15) -> [UInt8] {
        var stream = z_stream()
        precondition(deflateInit2_(&stream, level, Z_DEFLATED, windowBits, 8, strategy, zlibVersion(),
                                   Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        var input = data
        let produced = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer -> Int in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                precondition(CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        return Array(output[0 ..< produced])
    }

    /// One stream, its pieces deflated at `levels` in turn (`deflateParams` ends a block at
    /// each change), so that stored and compressed blocks alternate; `strategies`, taken in
    /// turn the same way, alternate fixed and dynamic blocks.
    static func deflateMixed(_ data: [UInt8], levels: [Int32], strategies: [Int32] = [Z_DEFAULT_STRATEGY],
                             piece: Int) -> [UInt8] {
        var stream = z_stream()
        precondition(deflateInit_(&stream, levels[0], zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var result: [UInt8] = []
        var output = [UInt8](repeating: 0, count: 1 << 20)
        var input = data
        input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var at = 0, round = 0
                repeat {
                    let n = min(piece, inBuffer.count - at)
                    stream.next_in = inBuffer.baseAddress! + at
                    stream.avail_in = uInt(n)
                    at += n
                    repeat {
                        stream.next_out = outBuffer.baseAddress
                        stream.avail_out = uInt(outBuffer.count)
                        _ = CZlib.deflate(&stream, at == inBuffer.count ? Z_FINISH : Z_NO_FLUSH)
                        result += outBuffer.prefix(outBuffer.count - Int(stream.avail_out))
                    } while stream.avail_in > 0 || (at == inBuffer.count && stream.avail_out == 0)
                    round += 1
                    if at < inBuffer.count {
                        stream.next_out = outBuffer.baseAddress
                        stream.avail_out = uInt(outBuffer.count)
                        precondition(deflateParams(&stream, levels[round % levels.count],
                                                   strategies[round % strategies.count]) == Z_OK)
                        result += outBuffer.prefix(outBuffer.count - Int(stream.avail_out))
                    }
                } while at < inBuffer.count
            }
        }
        return result
    }

    /// zlib's inflate in one call with room for everything.
    static func zlibInflate(_ compressed: [UInt8], room: Int) -> Outcome {
        var stream = z_stream()
        precondition(inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: room)
        var input = compressed
        let (status, produced, message) = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer -> (Int32, Int, String?) in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                return (status, outBuffer.count - Int(stream.avail_out), stream.msg.map { String(cString: $0) })
            }
        }
        let bytes = Array(output[0 ..< produced])
        switch status {
        case Z_STREAM_END: return Outcome(bytes: bytes, message: nil)
        case Z_NEED_DICT: return Outcome(bytes: bytes, message: "preset dictionary not allowed")
        case Z_DATA_ERROR: return Outcome(bytes: bytes, message: message ?? "?")
        default: return Outcome(bytes: bytes, message: "")
        }
    }

    /// Ours, the input handed over `piece` bytes at a time and the output taken `take` bytes
    /// a call, as the PNG decoder takes scanlines.
    static func inflate(_ compressed: [UInt8], piece: Int = .max, take: Int = 4096,
                        verifiesChecksum: Bool = true) throws -> Outcome {
        let inflater = try Inflater(ledger: MemoryLedger(), verifiesChecksum: verifiesChecksum)
        var input = compressed
        var out: [UInt8] = []
        let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: take)
        defer { chunk.deallocate() }
        var next = 0
        return input.withUnsafeMutableBufferPointer { inBuffer in
            while !inflater.finished {
                if inflater.needsInput {
                    if next == inBuffer.count { return Outcome(bytes: out, message: "") }
                    let n = min(piece, inBuffer.count - next)
                    inflater.supply(UnsafeMutableRawPointer(inBuffer.baseAddress! + next), count: n)
                    next += n
                }
                do throws(InflateError) {
                    let n = try inflater.inflate(into: chunk, count: take)
                    out += UnsafeBufferPointer(start: chunk, count: n)
                } catch {
                    return Outcome(bytes: out, message: error.message)
                }
            }
            return Outcome(bytes: out, message: nil)
        }
    }

    /// Whether ours, taken `take` bytes a call, agrees with zlib's one call: the same end, and
    /// the same bytes, except that the call that hands out the last bytes before an error
    /// throws it (as zlib's call that reaches the error does), so those bytes, fewer than one
    /// call's worth, are not counted.
    static func agree(_ ours: Outcome, _ reference: Outcome, take: Int) -> Bool {
        guard let message = reference.message, !message.isEmpty else { return ours == reference }
        return ours.message == message && reference.bytes.starts(with: ours.bytes)
            && reference.bytes.count - ours.bytes.count <= take
    }

    /// Six kinds of data: incompressible, text, runs, short periods, a smooth gradient, zeros.
    static func samples() -> [(String, [UInt8])] {
        var rng = SplitMix(state: 0x1F1A7E)
        let random = (0 ..< 70_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let words = ["the ", "scanline ", "filter ", "window ", "of ", "deflate ", "and ", "a "]
        var text: [UInt8] = []
        while text.count < 150_000 { text += Array(words[Int(rng.next() % UInt64(words.count))].utf8) }
        var runs: [UInt8] = []
        while runs.count < 100_000 { runs += [UInt8](repeating: UInt8(truncatingIfNeeded: rng.next()), count: Int(rng.next() % 300) + 1) }
        var periods: [UInt8] = []
        while periods.count < 100_000 {
            let period = Int(rng.next() % 7) + 2
            let pattern = (0 ..< period).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            for i in 0 ..< Int(rng.next() % 400) + 20 { periods.append(pattern[i % period]) }
        }
        let gradient = (0 ..< 120_000).map { i in UInt8(truncatingIfNeeded: (i % 600) / 3 + Int(rng.next() % 4)) }
        return [("random", random), ("text", text), ("runs", runs), ("periods", periods), ("gradient", gradient),
                ("zeros", [UInt8](repeating: 0, count: 200_000))]
    }

    static let strategies: [Int32] = [Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED]

    @Test(arguments: [0, 1, 6, 9])
    func zlibStreamsInflateToTheirInput(level: Int32) throws {
        for (name, data) in Self.samples() {
            for strategy in Self.strategies {
                let compressed = Self.deflate(data, level: level, strategy: strategy)
                let outcome = try Self.inflate(compressed, take: 1000)
                #expect(outcome == Outcome(bytes: data, message: nil), "\(name) level \(level) strategy \(strategy)")
            }
        }
    }

    /// Input cut anywhere (a byte at a time, only the careful loop runs) and output taken in
    /// any amount give the same bytes.
    @Test(arguments: [1, 7, 100, 5000])
    func piecesDoNotMatter(piece: Int) throws {
        for (name, data) in Self.samples() {
            let compressed = Self.deflate(Array(data.prefix(40_000)), level: 6, strategy: Z_DEFAULT_STRATEGY)
            for take in [1, 333, 70_000] where piece >= 7 || take == 333 {
                let outcome = try Self.inflate(compressed, piece: piece, take: take)
                #expect(outcome == Outcome(bytes: Array(data.prefix(40_000)), message: nil),
                        "\(name) piece \(piece) take \(take)")
            }
        }
    }

    /// A megabyte of short matches fills and slides the window many times; each time the
    /// careful loop finishes the window and hands the fast loop its bit buffer. (The hand-over
    /// a fuzzer found wrong is replayed by `PNGRegressionTests`.)
    @Test func manyWindowsOfShortMatches() throws {
        let samples = Self.samples()
        var data: [UInt8] = []
        for _ in 0 ..< 4 { data += samples[3].1 + samples[1].1 }
        for level: Int32 in [1, 6] {
            let compressed = Self.deflate(data, level: level, strategy: Z_DEFAULT_STRATEGY)
            #expect(try Self.inflate(compressed, take: 1000) == Outcome(bytes: data, message: nil), "level \(level)")
        }
    }

    /// Pieces from 8 to 40 bytes switch between the two loops at every bit position.
    @Test func everySmallPieceSize() throws {
        let data = Array(Self.samples()[1].1.prefix(30_000)) + Array(Self.samples()[0].1.prefix(10_000))
        // Stored blocks between compressed ones: a stored header leaves the bit buffer on a
        // byte boundary.
        let compressed = Self.deflateMixed(data, levels: [0, 6, 1, 0, 9], piece: 3000)
        for piece in 8 ... 40 {
            #expect(try Self.inflate(compressed, piece: piece, take: 500) == Outcome(bytes: data, message: nil),
                    "pieces of \(piece)")
        }
    }

    /// Runs of fixed blocks between dynamic ones: the fixed tables, built once for a run,
    /// are built again after a dynamic block has overwritten them.
    @Test func fixedBlocksAfterDynamicOnes() throws {
        let data = Self.samples()[1].1
        let compressed = Self.deflateMixed(data, levels: [6], strategies: [Z_FIXED, Z_FIXED, Z_DEFAULT_STRATEGY],
                                           piece: 2000)
        #expect(try Self.inflate(compressed) == Outcome(bytes: data, message: nil))
        #expect(try Self.inflate(compressed, piece: 13, take: 500) == Outcome(bytes: data, message: nil))
    }

    /// A small window (CINFO 1) and a stored stream are read like any other.
    @Test func smallWindowsAndStoredStreams() throws {
        let data = Self.samples()[1].1
        for windowBits: Int32 in [9, 12] {
            let compressed = Self.deflate(data, level: 9, strategy: Z_DEFAULT_STRATEGY, windowBits: windowBits)
            #expect(try Self.inflate(compressed) == Outcome(bytes: data, message: nil))
        }
        // Stored blocks of up to 65535 bytes, cut by every input piece.
        let stored = Self.deflate(Self.samples()[0].1, level: 0, strategy: Z_DEFAULT_STRATEGY)
        #expect(stored.count > 70_000)
        #expect(try Self.inflate(stored, piece: 1000, take: 777) == Outcome(bytes: Self.samples()[0].1, message: nil))
    }

    /// Hand-made damage: each gives zlib's message, after zlib's bytes.
    @Test func damageGivesZlibsMessages() throws {
        let good = Self.deflate(Array("hello hello hello hello".utf8), level: 6, strategy: Z_DEFAULT_STRATEGY)
        var cases: [(String, [UInt8])] = [
            ("incorrect header check", [0x78, 0x9D] + good.dropFirst(2)),
            ("unknown compression method", [0x79, 0x18] + good.dropFirst(2)),
            ("invalid window size", [0x88, 0x1C] + good.dropFirst(2)),
            ("preset dictionary not allowed", [0x78, 0x20, 0, 0, 0, 1] + good.dropFirst(2)),
            // BFINAL 1, BTYPE 3.
            ("invalid block type", [0x78, 0x9C, 0x07, 0, 0]),
            // Stored: LEN 5, NLEN not its complement.
            ("invalid stored block lengths", [0x78, 0x9C, 0x01, 5, 0, 0, 0]),
            // Fixed block: literal 'a', then length 3 at distance 2 with only one byte behind it.
            ("invalid distance too far back", [0x78, 0x9C, 0x4B, 0x04, 0x42, 0x00]),
            // HLIT 30 → 287 literal/length codes.
            ("too many length or distance symbols", [0x78, 0x9C, 0x05 | 30 << 3, 0, 0, 0]),
        ]
        var badCheck = good
        badCheck[badCheck.count - 1] ^= 1
        cases.append(("incorrect data check", badCheck))
        // Dynamic block: a code-length code with no codes.
        cases.append(("invalid code lengths set", [0x78, 0x9C, 0x05, 0xE0, 0x03] + [UInt8](repeating: 0, count: 48)))
        // Dynamic block: codes for 'a' and 'b' and none for the end of the block.
        cases.append(("invalid code -- missing end-of-block", [0x78, 0x9C, 0x05, 0xC0, 0x21, 0x09, 0, 0, 0, 0, 0xA0, 0xAD,
                                                               0xFA, 0xFF, 0x84, 0]))
        for (message, stream) in cases {
            let reference = Self.zlibInflate(stream, room: 1000)
            #expect(reference.message == message, "zlib says \(reference) for the \(message) case")
            for (piece, take) in [(Int.max, 4096), (1, 1)] {
                let ours = try Self.inflate(stream, piece: piece, take: take)
                #expect(Self.agree(ours, reference, take: take), "\(message), pieces of \(piece): \(ours)")
            }
        }
        // When the caller's call takes exactly the bytes before the error: a match too far
        // back waits for the next call (zlib checks it only with room to write), every other
        // error comes with those bytes, which the caller then does not get.
        let far = cases.first { $0.0 == "invalid distance too far back" }!.1
        #expect(try Self.inflate(far, take: 1) == Outcome(bytes: Array("a".utf8), message: "invalid distance too far back"))
        #expect(try Self.inflate(badCheck, take: 23) == Outcome(bytes: [], message: "incorrect data check"))
        // A block of literals may send an empty distance code: "aaa", Adler-32 and all.
        let literalsOnly: [UInt8] = [0x78, 0x9C, 0x05, 0xC0, 0x21, 0x09, 0, 0, 0, 0, 0xA0, 0xAD, 0xFE, 0x3F, 0x21, 0x08,
                                     0x02, 0x49, 0x01, 0x24]
        #expect(try Self.inflate(literalsOnly) == Outcome(bytes: Array("aaa".utf8), message: nil))
        #expect(Self.zlibInflate(literalsOnly, room: 10) == Outcome(bytes: Array("aaa".utf8), message: nil))
        // Without the check, the wrong Adler-32 passes.
        #expect(try Self.inflate(badCheck, verifiesChecksum: false).message == nil)
    }

    /// Streams with a few bits flipped, or cut short, come out as zlib's do: the same bytes
    /// before the same message.
    @Test func mutatedStreamsMatchZlib() throws {
        var rng = SplitMix(state: 0xDEF1A7E)
        let samples = Self.samples()
        var seen: [String: Int] = [:]
        for round in 0 ..< 300 {
            let (_, data) = samples[round % samples.count]
            let strategy = Self.strategies[round / samples.count % Self.strategies.count]
            var stream = Self.deflate(Array(data.prefix(20_000)), level: round % 3 == 0 ? 1 : 6, strategy: strategy)
            for _ in 0 ... rng.next() % 3 {
                let bit = Int(rng.next() % UInt64(stream.count * 8))
                stream[bit / 8] ^= 1 << UInt8(bit % 8)
            }
            if round % 10 == 9 { stream = Array(stream.prefix(Int(rng.next() % UInt64(stream.count)))) }
            let reference = Self.zlibInflate(stream, room: 40_000)
            let ours = try Self.inflate(stream, piece: 500, take: 300)
            #expect(Self.agree(ours, reference, take: 300), "round \(round): \(ours) for \(reference)")
            seen[reference.message ?? "finished", default: 0] += 1
        }
        // The rounds reach more than one kind of damage.
        #expect(seen.count >= 4, "\(seen)")
    }

    /// The 16-byte Adler-32 agrees with the byte-wise definition and with zlib's, over
    /// lengths around its chunk and its reduction run.
    @Test func adler32AgreesWithItsDefinitionAndZlib() {
        var rng = SplitMix(state: 0xAD1E8)
        let data = (0 ..< 40_000).map { i in i % 3 == 0 ? 0xFF : UInt8(truncatingIfNeeded: rng.next()) }
        data.withUnsafeBufferPointer { buffer in
            for count in [0, 1, 15, 16, 17, 5551, 5552, 5553, 11_104, 20_000, 40_000] {
                var fast = Adler32(), plain = Adler32()
                fast.update(buffer.baseAddress!, count: count)
                plain.updateBytewise(buffer.baseAddress!, count: count)
                let reference = UInt32(adler32(1, buffer.baseAddress!, uInt(count)))
                #expect(fast.value == reference && plain.value == reference, "\(count) bytes")
            }
            // In pieces, as the inflater sums its output.
            var pieces = Adler32()
            var at = 0
            while at < buffer.count {
                let n = min(Int(rng.next() % 3000), buffer.count - at)
                pieces.update(buffer.baseAddress! + at, count: n)
                at += n
            }
            #expect(pieces.value == UInt32(adler32(1, buffer.baseAddress!, uInt(buffer.count))))
        }
    }

    /// The ledger holds the inflater's buffers, and only while it lives.
    @Test func buffersAreCounted() throws {
        let ledger = MemoryLedger()
        do {
            let inflater = try Inflater(ledger: ledger)
            #expect(ledger.currentBytes >= Inflater.historyBytes + Inflater.aheadBytes + Inflater.inputBytes)
            _ = inflater
        }
        #expect(ledger.currentBytes == 0)
        let limited = MemoryLedger(limit: 50_000)
        #expect(throws: CoreError.self) { _ = try Inflater(ledger: limited) }
    }
}
