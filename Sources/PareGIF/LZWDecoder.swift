@_spi(Codec) import PareCore

/// GIF's variable-length LZW (GIF89a §22 and Appendix F), read from the image data's
/// sub-blocks (§15) as it is needed.
///
/// Codes are packed least significant bit first. With a minimum code size `m` (2…8), codes
/// below 2^m stand for themselves, 2^m is the clear code, 2^m + 1 the end code, and new
/// strings take the entries from 2^m + 2 on, each the previous code's string plus the first
/// byte of the current one. Codes start `m + 1` bits wide and widen by one bit when the next
/// free entry reaches 2^width, up to 12 bits. A full table (4096 entries) stays as it is,
/// adding nothing, until the encoder sends a clear code: the "deferred clear" that encoders
/// use and that giflib, browsers and Pillow all accept.
///
/// The decoder hands out as many indices as its caller asks for (a row); a string longer
/// than the room left is kept, reversed, in `pending` for the next call. It never produces
/// more than it is asked for, so the output is bounded by the frame's pixel count whatever
/// the data says (an LZW bomb only costs the reading of its bytes).
struct LZWDecoder {
    static let maxCodes = 4096
    static let maxCodeWidth = 12

    /// Per code: the code of its string less the last byte, its last byte, its first byte,
    /// its length.
    let prefix: LedgerBuffer<UInt16>
    let suffix: LedgerBuffer<UInt8>
    let first: LedgerBuffer<UInt8>
    let length: LedgerBuffer<UInt16>
    /// A string being handed out across calls, written backwards from the end.
    let pending: LedgerBuffer<UInt8>
    var pendingStart = LZWDecoder.maxCodes
    let clearCode: Int
    var codeWidth: Int
    var nextCode: Int
    /// The previous code, or -1 right after a clear code (and at the start).
    var previous = -1
    var bits: UInt32 = 0
    var bitCount = 0
    /// Bytes left in the current data sub-block.
    var blockRemaining = 0
    /// Why the data stopped, once it has.
    var end: LZWEnd?

    init(minimumCodeSize: Int, ledger: MemoryLedger) throws(CoreError) {
        prefix = try ledger.allocate(UInt16.self, count: Self.maxCodes, initialValue: 0)
        suffix = try ledger.allocate(UInt8.self, count: Self.maxCodes, initialValue: 0)
        first = try ledger.allocate(UInt8.self, count: Self.maxCodes, initialValue: 0)
        length = try ledger.allocate(UInt16.self, count: Self.maxCodes, initialValue: 1)
        pending = try ledger.allocate(UInt8.self, count: Self.maxCodes, initialValue: 0)
        clearCode = 1 << minimumCodeSize
        codeWidth = minimumCodeSize + 1
        nextCode = clearCode + 2
        for code in 0 ..< clearCode {
            suffix[code] = UInt8(truncatingIfNeeded: code)
            first[code] = UInt8(truncatingIfNeeded: code)
        }
    }

    /// The next data byte, crossing sub-block boundaries; nil at the terminator or when the
    /// file ends (then `end` says which). A sub-block the file cuts short is not read at
    /// all, as Pillow does: a cut-off file shows the pixels of its whole sub-blocks.
    @inline(__always)
    mutating func nextDataByte(_ stream: inout ByteStream) throws(CoreError) -> UInt8? {
        if blockRemaining == 0 {
            guard let size = try stream.nextByte() else {
                end = .truncated(offset: stream.position, needed: 1)
                return nil
            }
            if size == 0 {
                end = .terminator(offset: stream.position - 1)
                return nil
            }
            guard stream.remaining >= Int(size) else {
                end = .truncated(offset: stream.count, needed: Int(size) - stream.remaining)
                return nil
            }
            blockRemaining = Int(size)
        }
        // The sub-block's bytes are in the file (checked with its size byte).
        blockRemaining -= 1
        return try stream.nextByte() ?? 0
    }

    /// Fills `out[0 ..< count]` with indices and returns how many it wrote: `count`, or
    /// fewer when the data ended or holds a code the table cannot (`end` says how).
    /// Throws only when the source fails.
    mutating func decode(into out: UnsafeMutablePointer<UInt8>, count: Int,
                         _ stream: inout ByteStream) throws(GIFError) -> Int {
        var produced = 0
        // A string left over from the previous call goes first.
        let waiting = Self.maxCodes - pendingStart
        if waiting > 0 {
            let n = min(waiting, count)
            // SAFETY: pendingStart + n <= maxCodes = pending.count, and n <= count, out's length.
            out.update(from: pending.baseAddress + pendingStart, count: n)
            pendingStart += n
            produced = n
        }
        while produced < count, end == nil {
            while bitCount < codeWidth {
                let byte: UInt8?
                do {
                    byte = try nextDataByte(&stream)
                } catch {
                    throw .core(error)
                }
                guard let byte else { return produced }
                bits |= UInt32(byte) << UInt32(bitCount)
                bitCount += 8
            }
            let code = Int(bits & (1 << UInt32(codeWidth) - 1))
            bits >>= UInt32(codeWidth)
            bitCount -= codeWidth

            if code == clearCode {
                codeWidth = clearCode.trailingZeroBitCount + 1
                nextCode = clearCode + 2
                previous = -1
                continue
            }
            if code == clearCode + 1 {
                end = .endCode(offset: stream.position - 1)
                return produced
            }
            guard code <= nextCode else {
                end = .invalidCode(.codeOutOfRange(offset: stream.position - 1, code: code, tableSize: nextCode))
                return produced
            }
            if previous < 0 && code >= clearCode {
                end = .invalidCode(.codeWithoutPredecessor(offset: stream.position - 1, code: code))
                return produced
            }
            // The new entry (the previous string plus this one's first byte) is needed to
            // read `code` itself when `code` is that entry (the KwKwK case of Appendix F).
            if previous >= 0 && nextCode < Self.maxCodes {
                let firstByte = code == nextCode ? first[previous] : first[code]
                prefix[nextCode] = UInt16(previous)
                suffix[nextCode] = firstByte
                first[nextCode] = first[previous]
                length[nextCode] = length[previous] &+ 1
                nextCode += 1
                if nextCode == 1 << codeWidth && codeWidth < Self.maxCodeWidth { codeWidth += 1 }
            }
            previous = code
            let stringLength = Int(length[code])
            let room = count - produced
            if stringLength <= room {
                write(code, length: stringLength, to: out + produced)
                produced += stringLength
            } else {
                pendingStart = Self.maxCodes - stringLength
                // SAFETY: stringLength <= maxCodes (a string has at most one byte per code), pending's count.
                write(code, length: stringLength, to: pending.baseAddress + pendingStart)
                // SAFETY: room < stringLength = maxCodes - pendingStart, and out has room bytes left.
                (out + produced).update(from: pending.baseAddress + pendingStart, count: room)
                pendingStart += room
                produced = count
            }
        }
        return produced
    }

    /// Writes the string of `code` (`length` bytes) at `target`, last byte first.
    @inline(__always)
    func write(_ code: Int, length: Int, to target: UnsafeMutablePointer<UInt8>) {
        var code = code
        var i = length - 1
        // SAFETY: a string's length counts its prefix chain, so the walk ends at a root
        // code with i == 0; the caller gives `length` bytes at target.
        while i > 0 {
            target[i] = suffix.baseAddress[code]
            code = Int(prefix.baseAddress[code])
            i -= 1
        }
        target[0] = suffix.baseAddress[code]
    }
}

/// How the image data of a frame stopped.
enum LZWEnd: Equatable {
    /// The end code (§22); `offset` is the byte holding its last bit.
    case endCode(offset: Int)
    /// The block terminator came before the end code.
    case terminator(offset: Int)
    /// The file ended inside the data: at `offset`, with `needed` more bytes for the
    /// sub-block it cut (1 when it cut before a size byte).
    case truncated(offset: Int, needed: Int)
    /// A code past the table, or one that needs a predecessor right after a clear code.
    case invalidCode(GIFError)
}
