/// A zlib stream being inflated (RFC 1950, RFC 1951), fed from a bounded input buffer and
/// drained into whatever output the caller offers: a PNG's next scanline (PNG 3rd ed. §10),
/// a TIFF strip (TIFF Technical Note 2), a compressed metadata chunk.
///
/// Buffers, all allocated up front in the ledger:
/// - the window: `historyBytes` of output kept for back-references (§3.2: a distance
///   reaches back at most 32768 bytes), then room to decode `aheadBytes` beyond it. The
///   stream is decoded into the window a large run at a time and copied out to the caller,
///   so the decoding loop never stops at a scanline's end; when the room runs short the
///   last 32 KiB slide to the front.
/// - the input: compressed bytes taken from the caller's buffer, so that a block header or
///   a code cut by the end of one supply can be read again, whole, once more has come.
/// - the decoding tables (`HuffmanDecodeTable`) and the code lengths they are built from.
///
/// Two decoding loops, as in every fast inflater: `decodeFast` runs while at least 8 input
/// bytes and room for a longest match remain, refilling its bit buffer once per code with
/// one 8-byte load and copying matches 8 bytes at a time; `decodeCareful` checks each code's
/// bits and room before taking it and steps back to the code's start when they are short.
/// The careful loop alone decodes any stream (fed a byte at a time it is all that runs);
/// the tests hold the two to the same output.
///
/// Errors carry zlib's own messages ("invalid distance too far back", "incorrect data
/// check", …) and come out in the call zlib's inflate would report them in: the call that
/// hands out the last bytes before them, or for a match reaching too far back, the first
/// call with room left after those bytes (zlib checks the distance only when it can write).
@_spi(Codec)
public final class Inflater {
    static let historyBytes = 32 * 1024
    static let aheadBytes = 64 * 1024
    /// Past the window's end: the 8-byte match copy may write up to 7 bytes beyond a match.
    static let copySlack = 16
    static let inputBytes = 16 * 1024
    /// The longest match (§3.2.5): the fast loop runs while this much room is left.
    static let longestMatch = 258

    private enum Mode {
        case streamHeader, blockHeader, stored, codes, trailer, done, failed
    }

    /// How a decoding step stopped.
    private enum Stop {
        case progress, needInput, windowFull
    }

    private let window: LedgerBuffer<UInt8>
    private let input: LedgerBuffer<UInt8>
    private let tables: LedgerBuffer<UInt32>
    private let lengths: LedgerBuffer<UInt8>
    private let scratch: LedgerBuffer<UInt16>
    private let verifiesChecksum: Bool

    private var literalTable: UnsafeMutablePointer<UInt32> { tables.baseAddress }
    private var distanceTable: UnsafeMutablePointer<UInt32> { tables.baseAddress + HuffmanDecodeTable.literalCapacity }
    private var codeLengthTable: UnsafeMutablePointer<UInt32> {
        tables.baseAddress + HuffmanDecodeTable.literalCapacity + HuffmanDecodeTable.distanceCapacity
    }
    /// `decodeFast`'s root table for literals/lengths, with pairs of literals.
    private var pairTable: UnsafeMutablePointer<UInt32> { codeLengthTable + HuffmanDecodeTable.codeLengthCapacity }

    private var mode = Mode.streamHeader
    /// The tables hold the fixed codes (§3.2.6): a run of fixed blocks builds them once.
    private var tablesAreFixed = false
    private var lastBlock = false
    private var storedLeft = 0
    /// The window: bytes before `readPos` are the caller's; `readPos ..< writePos` wait for it.
    private var readPos = 0
    private var writePos = 0
    private var windowEnd: Int { Self.historyBytes + Self.aheadBytes }
    /// Input taken in: `inPos ..< inEnd` of `input` not yet in the bit buffer.
    private var inPos = 0
    private var inEnd = 0
    /// The caller's supply not yet taken in.
    private var external: UnsafeMutablePointer<UInt8>?
    private var externalCount = 0
    /// The next `bitCount` bits of the stream, first bit lowest (RFC 1951 §3.1.1); never
    /// more than 63, so that a shift by `bitCount` is in range.
    private var bitBuffer: UInt64 = 0
    private var bitCount = 0
    private var adler = Adler32()
    /// Output up to here is in `adler`.
    private var summedPos = 0
    /// Set when decoding stopped for want of input and nothing is left to take in.
    private var starved = true
    private var failure: MessageText?
    /// The failure is a match reaching back too far, which zlib checks only with room left
    /// for the match: a call that the bytes before it fill exactly returns them, and the
    /// next call throws. Every other failure zlib reaches without writing, so it throws in
    /// the call that hands out the last bytes before it.
    private var failureWaitsForRoom = false

    /// `verifiesChecksum: false` neither computes nor checks the stream's Adler-32; every
    /// other check stays.
    public init(ledger: MemoryLedger, verifiesChecksum: Bool = true) throws(CoreError) {
        // Written before read: the window below `writePos`, the input below `inEnd`.
        window = try ledger.allocateUninitialized(UInt8.self, count: Self.historyBytes + Self.aheadBytes + Self.copySlack)
        input = try ledger.allocateUninitialized(UInt8.self, count: Self.inputBytes)
        tables = try ledger.allocate(UInt32.self, count: HuffmanDecodeTable.literalCapacity
                                     + HuffmanDecodeTable.distanceCapacity + HuffmanDecodeTable.codeLengthCapacity
                                     + 1 << HuffmanDecodeTable.literalRootBits, initialValue: 0)
        lengths = try ledger.allocate(UInt8.self, count: HuffmanDecodeTable.maxSymbols, initialValue: 0)
        scratch = try ledger.allocate(UInt16.self, count: HuffmanDecodeTable.scratchCount(symbols: HuffmanDecodeTable.maxSymbols),
                                      initialValue: 0)
        self.verifiesChecksum = verifiesChecksum
    }

    /// True once the stream's end has been read (its Adler-32 checked, if asked) and the
    /// caller has taken every byte.
    public var finished: Bool { mode == .done && readPos == writePos }

    /// True when nothing more comes out until more input is supplied.
    public var needsInput: Bool { starved && readPos == writePos && mode != .done && mode != .failed }

    /// Compressed bytes supplied and not yet decoded (bits held in the bit buffer aside).
    public var availableInput: Int { externalCount + inEnd - inPos }

    /// Hands over the next compressed bytes; the buffer must stay valid until `needsInput`.
    public func supply(_ bytes: UnsafeMutableRawPointer, count: Int) {
        external = bytes.assumingMemoryBound(to: UInt8.self)
        externalCount = count
        starved = false
    }

    /// Inflates into `output[0 ..< count]` and returns how many bytes were produced. Stops
    /// when the output is full, more input is needed, or the stream ends (`finished`).
    public func inflate(into output: UnsafeMutableRawPointer, count: Int) throws(InflateError) -> Int {
        var produced = 0
        while true {
            let pending = writePos - readPos
            if pending > 0 && produced < count {
                let n = min(pending, count - produced)
                (output + produced).copyMemory(from: window.baseAddress + readPos, byteCount: n)
                readPos += n
                produced += n
            }
            if readPos == writePos, let failure, produced < count || !failureWaitsForRoom {
                throw InflateError(message: failure)
            }
            if produced == count || mode == .done || (starved && readPos == writePos) { return produced }
            produce()
        }
    }

    // MARK: - Decoding into the window

    /// Decodes into the window until its room is used, the input runs out, or the stream
    /// ends or fails.
    private func produce() {
        if writePos > Self.historyBytes && windowEnd - writePos < 4 * 1024 { slide() }
        decoding: while true {
            takeInput()
            let stop: Stop
            switch mode {
            case .streamHeader: stop = readStreamHeader()
            case .blockHeader: stop = readBlockHeader()
            case .stored: stop = copyStored()
            case .codes:
                decodeFast()
                stop = mode == .codes ? decodeCareful() : .progress
            case .trailer: stop = readTrailer()
            case .done, .failed: break decoding
            }
            switch stop {
            case .progress: continue
            case .windowFull: break decoding
            case .needInput:
                if externalCount == 0 {
                    starved = true
                    break decoding
                }
            }
        }
        sumOutput()
    }

    /// Keeps the last 32 KiB of output (or all of it) at the window's front. Called only
    /// when the caller has taken every decoded byte.
    private func slide() {
        let keep = min(writePos, Self.historyBytes)
        window.baseAddress.update(from: window.baseAddress + (writePos - keep), count: keep)
        writePos = keep
        readPos = keep
        summedPos = keep
    }

    private func sumOutput() {
        if verifiesChecksum && summedPos < writePos {
            adler.update(window.baseAddress + summedPos, count: writePos - summedPos)
        }
        summedPos = writePos
    }

    /// Moves the caller's bytes into the input buffer, first moving what is left of it to
    /// the front. Only between steps, so no step's rewind point is lost.
    private func takeInput() {
        guard externalCount > 0, let source = external else { return }
        if inPos > 0 && Self.inputBytes - inEnd < externalCount {
            input.baseAddress.update(from: input.baseAddress + inPos, count: inEnd - inPos)
            inEnd -= inPos
            inPos = 0
        }
        let n = min(externalCount, Self.inputBytes - inEnd)
        (input.baseAddress + inEnd).update(from: source, count: n)
        inEnd += n
        external = source + n
        externalCount -= n
    }

    private func fail(_ message: MessageText) -> Stop {
        failure = message
        mode = .failed
        return .progress
    }

    private func failTooFarBack() -> Stop {
        failureWaitsForRoom = true
        return fail("invalid distance too far back")
    }

    // MARK: - Bits, one byte at a time

    /// Fills the bit buffer from the input buffer, a byte at a time, to at least 56 bits or
    /// the input's end. It stops below 64: `decodeFast` takes `bitCount` ≤ 63 as given.
    @inline(__always) private func refill() {
        bitBuffer &= (1 << UInt64(bitCount)) &- 1
        // SAFETY: inPos < inEnd ≤ inputBytes.
        while bitCount < 56 && inPos < inEnd {
            bitBuffer |= UInt64(input.baseAddress[inPos]) << UInt64(bitCount)
            inPos += 1
            bitCount += 8
        }
    }

    @inline(__always) private func peek(_ n: Int) -> Int {
        Int(truncatingIfNeeded: bitBuffer & ((1 << UInt64(n)) &- 1))
    }

    @inline(__always) private func drop(_ n: Int) {
        bitBuffer >>= UInt64(n)
        bitCount -= n
    }

    /// Takes `n` bits (n ≤ 32) if the input has them.
    @inline(__always) private func take(_ n: Int) -> Int? {
        refill()
        guard bitCount >= n else { return nil }
        let value = peek(n)
        drop(n)
        return value
    }

    private typealias Mark = (bits: UInt64, count: Int, position: Int)
    private var mark: Mark { (bitBuffer, bitCount, inPos) }
    private func rewind(to mark: Mark) -> Stop {
        (bitBuffer, bitCount, inPos) = mark
        return .needInput
    }

    /// Looks up the next code in `table`, or nil when its bits have not all come.
    @inline(__always) private func decodeSymbol(_ table: UnsafeMutablePointer<UInt32>, rootBits: Int) -> HuffmanEntry? {
        refill()
        var entry = HuffmanEntry(raw: table[peek(rootBits)])
        var dropped = 0
        if entry.isLink {
            guard bitCount >= rootBits else { return nil }
            dropped = rootBits
            let index = Int(truncatingIfNeeded: (bitBuffer >> UInt64(rootBits)) & ((1 << UInt64(entry.width)) &- 1))
            entry = HuffmanEntry(raw: table[entry.value + index])
        }
        guard bitCount >= dropped + entry.bits else { return nil }
        drop(dropped + entry.bits)
        return entry
    }

    // MARK: - Headers and stored blocks

    /// RFC 1950 §2.2: CMF and FLG.
    private func readStreamHeader() -> Stop {
        let start = mark
        guard let cmf = take(8), let flg = take(8) else { return rewind(to: start) }
        if (cmf << 8 | flg) % 31 != 0 { return fail("incorrect header check") }
        if cmf & 0x0F != 8 { return fail("unknown compression method") }
        if cmf >> 4 > 7 { return fail("invalid window size") }
        if flg & 0x20 != 0 { return fail("preset dictionary not allowed") }
        mode = .blockHeader
        return .progress
    }

    /// RFC 1951 §3.2.3–3.2.7: BFINAL and BTYPE, then the stored lengths or the dynamic codes.
    /// Read whole or not at all: a header cut by the input's end is read again from its start.
    private func readBlockHeader() -> Stop {
        let start = mark
        guard let header = take(3) else { return rewind(to: start) }
        lastBlock = header & 1 != 0
        switch header >> 1 {
        case 0:
            drop(bitCount % 8)
            guard let length = take(16), let complement = take(16) else { return rewind(to: start) }
            if length != ~complement & 0xFFFF { return fail("invalid stored block lengths") }
            storedLeft = length
            mode = .stored
        case 1:
            if !tablesAreFixed { buildFixedTables() }
            mode = .codes
        case 2:
            return readDynamicTables(start: start)
        default:
            return fail("invalid block type")
        }
        return .progress
    }

    /// The order in which a dynamic header lists the code-length code's lengths (§3.2.7).
    private static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    private func readDynamicTables(start: Mark) -> Stop {
        guard let counts = take(14) else { return rewind(to: start) }
        let literals = counts & 0x1F + 257, distances = (counts >> 5) & 0x1F + 1, codeLengths = counts >> 10 + 4
        if literals > 286 || distances > 30 { return fail("too many length or distance symbols") }
        let lengths = lengths.baseAddress
        for i in 0 ..< 19 { lengths[i] = 0 }
        for i in 0 ..< codeLengths {
            guard let length = take(3) else { return rewind(to: start) }
            lengths[Self.codeLengthOrder[i]] = UInt8(length)
        }
        tablesAreFixed = false
        do throws(HuffmanDecodeTable.Refusal) {
            try HuffmanDecodeTable.build(lengths: lengths, count: 19, alphabet: .codeLengths,
                                         rootBits: HuffmanDecodeTable.codeLengthRootBits, into: codeLengthTable,
                                         capacity: HuffmanDecodeTable.codeLengthCapacity, scratch: scratch.baseAddress)
        } catch {
            return fail("invalid code lengths set")
        }
        let total = literals + distances
        var i = 0
        while i < total {
            guard let entry = decodeSymbol(codeLengthTable, rootBits: HuffmanDecodeTable.codeLengthRootBits) else {
                return rewind(to: start)
            }
            let symbol = entry.value
            if symbol < 16 {
                lengths[i] = UInt8(symbol)
                i += 1
                continue
            }
            let repeated: UInt8, times: Int
            switch symbol {
            case 16:
                guard let extra = take(2) else { return rewind(to: start) }
                if i == 0 { return fail("invalid bit length repeat") }
                repeated = lengths[i - 1]
                times = 3 + extra
            case 17:
                guard let extra = take(3) else { return rewind(to: start) }
                repeated = 0
                times = 3 + extra
            default:
                guard let extra = take(7) else { return rewind(to: start) }
                repeated = 0
                times = 11 + extra
            }
            if i + times > total { return fail("invalid bit length repeat") }
            for _ in 0 ..< times {
                lengths[i] = repeated
                i += 1
            }
        }
        if lengths[256] == 0 { return fail("invalid code -- missing end-of-block") }
        do throws(HuffmanDecodeTable.Refusal) {
            try HuffmanDecodeTable.build(lengths: lengths, count: literals, alphabet: .literalLength,
                                         rootBits: HuffmanDecodeTable.literalRootBits, into: literalTable,
                                         capacity: HuffmanDecodeTable.literalCapacity, scratch: scratch.baseAddress)
        } catch {
            return fail("invalid literal/lengths set")
        }
        do throws(HuffmanDecodeTable.Refusal) {
            try HuffmanDecodeTable.build(lengths: lengths + literals, count: distances, alphabet: .distance,
                                         rootBits: HuffmanDecodeTable.distanceRootBits, into: distanceTable,
                                         capacity: HuffmanDecodeTable.distanceCapacity, scratch: scratch.baseAddress)
        } catch {
            return fail("invalid distances set")
        }
        HuffmanDecodeTable.buildPairs(from: literalTable, rootBits: HuffmanDecodeTable.literalRootBits, into: pairTable)
        mode = .codes
        return .progress
    }

    /// The fixed codes of §3.2.6.
    private func buildFixedTables() {
        tablesAreFixed = true
        let lengths = lengths.baseAddress
        for s in 0 ..< 288 { lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8 }
        for s in 288 ..< HuffmanDecodeTable.maxSymbols { lengths[s] = 5 }
        // Complete codes: neither build can refuse them.
        _ = try? HuffmanDecodeTable.build(lengths: lengths, count: 288, alphabet: .literalLength,
                                          rootBits: HuffmanDecodeTable.literalRootBits, into: literalTable,
                                          capacity: HuffmanDecodeTable.literalCapacity, scratch: scratch.baseAddress)
        _ = try? HuffmanDecodeTable.build(lengths: lengths + 288, count: 32, alphabet: .distance,
                                          rootBits: HuffmanDecodeTable.distanceRootBits, into: distanceTable,
                                          capacity: HuffmanDecodeTable.distanceCapacity, scratch: scratch.baseAddress)
        HuffmanDecodeTable.buildPairs(from: literalTable, rootBits: HuffmanDecodeTable.literalRootBits, into: pairTable)
    }

    /// A stored block's bytes (§3.2.4): first the whole bytes left in the bit buffer, then
    /// straight from the input.
    private func copyStored() -> Stop {
        while storedLeft > 0 {
            guard writePos < windowEnd else { return .windowFull }
            if bitCount >= 8 {
                window.baseAddress[writePos] = UInt8(truncatingIfNeeded: bitBuffer)
                drop(8)
                writePos += 1
                storedLeft -= 1
                continue
            }
            // SAFETY: n fits both the window's room and the input taken in.
            let n = min(storedLeft, windowEnd - writePos, inEnd - inPos)
            if n == 0 { return .needInput }
            (window.baseAddress + writePos).update(from: input.baseAddress + inPos, count: n)
            writePos += n
            inPos += n
            storedLeft -= n
        }
        mode = lastBlock ? .trailer : .blockHeader
        return .progress
    }

    /// RFC 1950 §2.2: ADLER32, most significant byte first, after the last block.
    private func readTrailer() -> Stop {
        let start = mark
        drop(bitCount % 8)
        guard let b0 = take(8), let b1 = take(8), let b2 = take(8), let b3 = take(8) else { return rewind(to: start) }
        if verifiesChecksum {
            sumOutput()
            if UInt32(b0 << 24 | b1 << 16 | b2 << 8 | b3) != adler.value { return fail("incorrect data check") }
        }
        mode = .done
        return .progress
    }

    // MARK: - Compressed blocks (§3.2.5)

    /// One code at a time, each checked for its bits and its room before it is taken.
    private func decodeCareful() -> Stop {
        let out = window.baseAddress
        while true {
            let start = mark
            guard let entry = decodeSymbol(literalTable, rootBits: HuffmanDecodeTable.literalRootBits) else {
                return rewind(to: start)
            }
            if entry.isLiteral {
                guard writePos < windowEnd else {
                    _ = rewind(to: start)
                    return .windowFull
                }
                out[writePos] = UInt8(truncatingIfNeeded: entry.value)  // SAFETY: writePos < windowEnd, above.
                writePos += 1
                continue
            }
            if entry.kind == HuffmanEntry.endOfBlock {
                mode = lastBlock ? .trailer : .blockHeader
                return .progress
            }
            guard entry.isBase else { return fail("invalid literal/length code") }
            guard let lengthExtra = take(entry.width) else { return rewind(to: start) }
            let length = entry.value + lengthExtra
            guard let code = decodeSymbol(distanceTable, rootBits: HuffmanDecodeTable.distanceRootBits) else {
                return rewind(to: start)
            }
            guard code.isBase else { return fail("invalid distance code") }
            guard let distanceExtra = take(code.width) else { return rewind(to: start) }
            let distance = code.value + distanceExtra
            if distance > writePos { return failTooFarBack() }
            guard writePos + length <= windowEnd else {
                _ = rewind(to: start)
                return .windowFull
            }
            // SAFETY: distance ≤ writePos and writePos + length ≤ windowEnd, both checked above.
            for i in 0 ..< length { out[writePos + i] = out[writePos - distance + i] }
            writePos += length
        }
    }

    /// The same decoding with the checks hoisted: while 8 input bytes and `longestMatch`
    /// bytes of room remain, one 8-byte load a round tops the bit buffer up to at least 56
    /// bits, which hold a longest literal/length code with its extra bits and a longest
    /// distance code with its (15 + 5 + 15 + 13 = 48), or five lookups of one or two
    /// literals (`HuffmanDecodeTable.buildPairs`).
    private func decodeFast() {
        let out = window.baseAddress, source = input.baseAddress
        let literals = literalTable, distances = distanceTable, pairs = pairTable
        let literalMask: UInt64 = (1 << UInt64(HuffmanDecodeTable.literalRootBits)) - 1
        let distanceMask: UInt64 = (1 << UInt64(HuffmanDecodeTable.distanceRootBits)) - 1
        let outLimit = windowEnd - Self.longestMatch
        let inLimit = inEnd - 8
        var bits = bitBuffer, count = bitCount, ip = inPos, op = writePos
        bits &= (1 << UInt64(count)) &- 1
        defer {
            bitBuffer = bits
            bitCount = count
            inPos = ip
            writePos = op
        }
        // SAFETY: 0 ≤ ip ≤ inEnd − 8 keeps each 8-byte load inside the input buffer (ip only grows:
        // count ≤ 63 on entry and after each refill); op ≤ windowEnd − 258 keeps every write of a
        // round (ten literal bytes, or a match of ≤ 258 bytes written in 8-byte pieces, ≤ 7 past
        // its end) inside the window and its `copySlack`.
        decoding: while ip <= inLimit && op <= outLimit {
            // Wrapping arithmetic throughout: every quantity is bounded by the loop's entry
            // condition or by 64. A masking shift by a whole entry shifts by its low 6 bits,
            // its bit count (≤ 15, so bits 4–7 are clear), one instruction fewer on the
            // chain from one code's lookup to the next.
            bits |= UnsafeRawPointer(source + ip).loadUnaligned(as: UInt64.self).littleEndian &<< UInt64(count)
            ip &+= (63 &- count) &>> 3
            count |= 56
            // Up to five lookups of one or two literals each (≤ 50 bits).
            var entry = HuffmanEntry(raw: pairs[Int(truncatingIfNeeded: bits & literalMask)])
            if entry.isLiterals {
                emitLiterals(entry, &bits, &count, out, &op)
                for _ in 0 ..< 4 {
                    entry = HuffmanEntry(raw: pairs[Int(truncatingIfNeeded: bits & literalMask)])
                    guard entry.isLiterals else { continue decoding }
                    emitLiterals(entry, &bits, &count, out, &op)
                }
                continue
            }
            if entry.isLink {
                bits &>>= UInt64(HuffmanDecodeTable.literalRootBits); count &-= HuffmanDecodeTable.literalRootBits
                let index = Int(truncatingIfNeeded: bits & ((1 &<< UInt64(entry.width)) &- 1))
                entry = HuffmanEntry(raw: literals[entry.value &+ index])
            }
            bits &>>= UInt64(entry.raw); count &-= Int(entry.raw & 0xFF)
            if entry.isLiteral {
                out[op] = UInt8(truncatingIfNeeded: entry.raw &>> 16); op &+= 1
                continue
            }
            guard entry.isBase else {
                if entry.kind == HuffmanEntry.endOfBlock {
                    mode = lastBlock ? .trailer : .blockHeader
                } else {
                    _ = fail("invalid literal/length code")
                }
                return
            }
            let length = entry.value &+ Int(truncatingIfNeeded: bits & ((1 &<< UInt64(entry.width)) &- 1))
            bits &>>= UInt64(entry.width); count &-= entry.width
            var code = HuffmanEntry(raw: distances[Int(truncatingIfNeeded: bits & distanceMask)])
            if code.isLink {
                bits &>>= UInt64(HuffmanDecodeTable.distanceRootBits); count &-= HuffmanDecodeTable.distanceRootBits
                let index = Int(truncatingIfNeeded: bits & ((1 &<< UInt64(code.width)) &- 1))
                code = HuffmanEntry(raw: distances[code.value &+ index])
            }
            bits &>>= UInt64(code.raw); count &-= Int(code.raw & 0xFF)
            guard code.isBase else {
                _ = fail("invalid distance code")
                return
            }
            let distance = code.value &+ Int(truncatingIfNeeded: bits & ((1 &<< UInt64(code.width)) &- 1))
            bits &>>= UInt64(code.width); count &-= code.width
            if distance > op {
                _ = failTooFarBack()
                return
            }
            let to = out + op, from = out + (op &- distance)
            if distance >= 8 {
                // Each piece reads bytes at least 8 before the ones it writes: all final.
                var n = 0
                repeat {
                    UnsafeMutableRawPointer(to + n).storeBytes(of: UnsafeRawPointer(from + n).loadUnaligned(as: UInt64.self),
                                                               as: UInt64.self)
                    n &+= 8
                } while n < length
            } else if distance == 1 {
                to.update(repeating: from.pointee, count: length)
            } else {
                for i in 0 ..< length { to[i] = from[i] }
            }
            op &+= length
        }
    }

    /// Writes a literal or a pair (two bytes either way: a single literal's second byte is
    /// overwritten by the next) and takes its bits.
    @inline(__always) private func emitLiterals(_ entry: HuffmanEntry, _ bits: inout UInt64, _ count: inout Int,
                                                _ out: UnsafeMutablePointer<UInt8>, _ op: inout Int) {
        bits &>>= UInt64(entry.raw)
        count &-= Int(entry.raw & 0xFF)
        UnsafeMutableRawPointer(out + op).storeBytes(of: UInt16(truncatingIfNeeded: entry.raw &>> 16).littleEndian,
                                                     as: UInt16.self)
        op &+= 1 &+ Int((entry.raw &>> 8) & 1)
    }

    // MARK: - Whole streams

    /// How a whole-stream inflation ended.
    public enum Outcome: Sendable, Equatable {
        /// The stream ended (and its checksum matched).
        case finished
        /// The output was filled before the stream ended: the rest is more than was asked for.
        case outputFull
        /// The input ran out before the stream ended: a stream cut short.
        case inputEnded
        /// The data is not a valid zlib stream; the text says why.
        case damaged(MessageText)
        /// The ledger refused the inflater's buffers.
        case refused(CoreError)
    }

    /// Inflates the zlib stream in `input` into `output` (a TIFF strip, say), stopping when
    /// either is used up or the stream ends; returns the bytes written and how it ended.
    public static func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                               ledger: MemoryLedger) -> (produced: Int, outcome: Outcome) {
        let inflater: Inflater
        do throws(CoreError) { inflater = try Inflater(ledger: ledger) } catch { return (0, .refused(error)) }
        guard let base = input.baseAddress, input.count > 0 else { return (0, .inputEnded) }
        // The inflater only reads through the pointer.
        inflater.supply(UnsafeMutableRawPointer(mutating: base), count: input.count)
        guard let out = output.baseAddress else { return (0, .outputFull) }
        var produced = 0
        while produced < output.count {
            let n: Int
            do throws(InflateError) {
                n = try inflater.inflate(into: out + produced, count: output.count - produced)
            } catch {
                return (produced, .damaged(error.message))
            }
            produced += n
            if inflater.finished { return (produced, .finished) }
            if n == 0 { return (produced, .inputEnded) }
        }
        return (produced, inflater.finished ? .finished : .outputFull)
    }
}

/// Why the data is not a valid zlib stream, in zlib's words ("invalid distance too far
/// back", "incorrect data check", …).
@_spi(Codec)
public struct InflateError: Error, Sendable, Equatable {
    public let message: MessageText
}
