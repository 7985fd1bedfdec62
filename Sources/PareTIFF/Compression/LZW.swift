import PareCore

/// LZW (TIFF 6.0 §13): codes of 9 to 12 bits, most significant bit first; 256 clears the
/// table, 257 ends the strip, 258 on name strings added one per code. The code width grows
/// one code early ("the table reaches 511 entries": TIFF's own variant). Files from the
/// first TIFF LZW writers (before TIFF 5.0's fix) pack the codes least significant bit
/// first and grow late; their data starts with bytes 0x00 and odd, where new-style data
/// starts with 0x80 (a Clear code), so the two are told apart as libtiff does.
///
/// Every string a code stands for has already been written to the strip's output (a new
/// code is the previous code's string plus the next byte, and the two were written one
/// after the other), so the table keeps where each string lies in the output and its
/// length, and a code is a copy from earlier in the output rather than a walk along a chain.
struct LZWDecoder {
    static let clearCode = 256
    static let endCode = 257
    static let firstFreeCode = 258
    static let maxCodes = 4096

    /// For each code from 258: where its string starts in the output, and its length.
    private var start = [Int](repeating: 0, count: maxCodes)
    private var length = [Int](repeating: 0, count: maxCodes)

    /// Decodes a strip: new-style data through `decodeFast`, old-style through `decodePlain`.
    mutating func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Decompressed {
        let oldStyle = Self.isOldStyle(input)
        return start.withUnsafeMutableBufferPointer { start in
            length.withUnsafeMutableBufferPointer { length in
                oldStyle ? Self.decodePlain(input, into: output, start: start, length: length)
                    : Self.decodeFast(input, into: output, start: start, length: length)
            }
        }
    }

    /// The plain decoder alone, for either style: the oracle `decodeFast` is tested against.
    mutating func decodePlain(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Decompressed {
        start.withUnsafeMutableBufferPointer { start in
            length.withUnsafeMutableBufferPointer { length in
                Self.decodePlain(input, into: output, start: start, length: length)
            }
        }
    }

    static func isOldStyle(_ input: UnsafeRawBufferPointer) -> Bool {
        input.count >= 2 && input[0] == 0 && input[1] & 1 == 1
    }

    /// The decoding loop, its state in locals (kept in registers, where a closure's
    /// captured variables would not be): a code at a time, a byte at a time.
    private static func decodePlain(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                                    start: UnsafeMutableBufferPointer<Int>,
                                    length: UnsafeMutableBufferPointer<Int>) -> Decompressed {
        let oldStyle = isOldStyle(input)
        // Bits not yet used: `bitCount` of them, the next code's at the top (new style) or
        // at the bottom (old style).
        var bits: UInt64 = 0, bitCount = 0, next = 0
        var table = TableState()
        var o = 0
        let end = output.count
        // The early change: new-style data widens when the next free code is one below the
        // width's limit, old-style data when it reaches it.
        let early = oldStyle ? 0 : 1
        // SAFETY: input reads at next < input.count (checked); table indices are codes
        // below table.nextCode ≤ maxCodes; a copy of n bytes from `from` to o has
        // from + n ≤ o (an earlier string) and o + n ≤ end (cut to the room left).
        while o < end {
            while bitCount < table.width {
                guard next < input.count else { return Decompressed(produced: o, damage: .ended) }
                if oldStyle {
                    bits |= UInt64(input[next]) << UInt64(bitCount)
                } else {
                    bits = bits << 8 | UInt64(input[next])
                }
                next += 1
                bitCount += 8
            }
            let code: Int
            if oldStyle {
                code = Int(bits & ((1 << UInt64(table.width)) - 1))
                bits >>= UInt64(table.width)
            } else {
                code = Int((bits >> UInt64(bitCount - table.width)) & ((1 << UInt64(table.width)) - 1))
            }
            bitCount -= table.width
            if code == Self.endCode { break }
            if code == Self.clearCode {
                table.clear()
                continue
            }
            let stringStart = o
            var stringLength: Int
            if code < 256 {
                output[o] = UInt8(code)
                stringLength = 1
            } else if code < table.nextCode {
                stringLength = length[code]
                copy(output, from: start[code], to: o, count: min(stringLength, end - o))
            } else if code == table.nextCode && table.previousStart >= 0 {
                // KwKwK: the previous string and its own first byte.
                stringLength = table.previousLength + 1
                copy(output, from: table.previousStart, to: o, count: min(table.previousLength, end - o))
                if o + table.previousLength < end { output[o + table.previousLength] = output[table.previousStart] }
            } else {
                return Decompressed(produced: o, damage: .refused("LZW code \(code) beyond the table (\(table.nextCode))"))
            }
            table.add(stringStart, stringLength, early: early, start: start, length: length)
            o = min(o + stringLength, end)
        }
        return Decompressed(produced: o, damage: o < end ? .ended : nil)
    }

    /// `decodePlain` for new-style data, with the same codes, table and output, done
    /// faster: the input is taken four bytes at a time while four remain, and strings are
    /// copied in 8-byte pieces wherever the output has room for the last piece's overrun.
    /// A piece may read past its string's end into bytes not yet final, and write them past
    /// the new string's end, where the next strings overwrite them: each string lies wholly
    /// before the place it is copied to, so every byte a piece needs is final before it is read.
    private static func decodeFast(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                                   start: UnsafeMutableBufferPointer<Int>,
                                   length: UnsafeMutableBufferPointer<Int>) -> Decompressed {
        guard let source = input.baseAddress, let target = output.baseAddress, !output.isEmpty else {
            return Decompressed(produced: 0, damage: output.isEmpty ? nil : .ended)
        }
        let count = input.count, end = output.count
        var bits: UInt64 = 0, bitCount = 0, next = 0
        var table = TableState()
        var o = 0
        // SAFETY: input loads at next + 4 ≤ count or next < count (checked); table indices
        // are codes below table.nextCode ≤ maxCodes; a copy to o writes below end (`copyPieces`
        // only where o + n + 8 ≤ end, else byte by byte up to end); its source is earlier output.
        while o < end {
            if bitCount < table.width {
                if next + 4 <= count {
                    // At most 11 bits are left, so 43 fit in the 64.
                    bits = bits << 32 | UInt64(UInt32(bigEndian: (source + next).loadUnaligned(as: UInt32.self)))
                    next += 4
                    bitCount += 32
                } else {
                    while bitCount < table.width {
                        guard next < count else { return Decompressed(produced: o, damage: .ended) }
                        bits = bits << 8 | UInt64(source.load(fromByteOffset: next, as: UInt8.self))
                        next += 1
                        bitCount += 8
                    }
                }
            }
            let code = Int(truncatingIfNeeded: (bits >> UInt64(bitCount - table.width)) & ((1 << UInt64(table.width)) - 1))
            bitCount -= table.width
            if code == Self.endCode { break }
            if code == Self.clearCode {
                table.clear()
                continue
            }
            let stringStart = o
            var stringLength: Int
            if code < 256 {
                target.storeBytes(of: UInt8(truncatingIfNeeded: code), toByteOffset: o, as: UInt8.self)
                stringLength = 1
            } else if code < table.nextCode {
                stringLength = length[code]
                copyPieces(target, from: start[code], to: o, count: stringLength, end: end)
            } else if code == table.nextCode && table.previousStart >= 0 {
                // KwKwK: the previous string and its own first byte.
                stringLength = table.previousLength + 1
                copyPieces(target, from: table.previousStart, to: o, count: table.previousLength, end: end)
                if o + table.previousLength < end {
                    target.storeBytes(of: target.load(fromByteOffset: table.previousStart, as: UInt8.self),
                                      toByteOffset: o + table.previousLength, as: UInt8.self)
                }
            } else {
                return Decompressed(produced: o, damage: .refused("LZW code \(code) beyond the table (\(table.nextCode))"))
            }
            table.add(stringStart, stringLength, early: 1, start: start, length: length)
            o = min(o + stringLength, end)
        }
        return Decompressed(produced: o, damage: o < end ? .ended : nil)
    }

    /// The string table between codes, one rule for both loops (each keeps it in a local,
    /// whose fields stay in registers): the next free code, the code width, and the previous
    /// code's string in the output (its start −1 after a Clear).
    private struct TableState {
        var width = 9
        var nextCode = LZWDecoder.firstFreeCode
        var previousStart = -1
        var previousLength = 0

        /// A Clear code: only the 258 fixed entries left, 9-bit codes again.
        @inline(__always)
        mutating func clear() {
            self = TableState()
        }

        /// After a code's string was written at `stringStart`: the new code is the previous
        /// string and this one's first byte, which follow each other in the output; the width
        /// grows when the next free code comes `early` codes short of the width's limit.
        @inline(__always)
        mutating func add(_ stringStart: Int, _ stringLength: Int, early: Int,
                          start: UnsafeMutableBufferPointer<Int>, length: UnsafeMutableBufferPointer<Int>) {
            if previousStart >= 0 && nextCode < LZWDecoder.maxCodes {
                start[nextCode] = previousStart
                length[nextCode] = previousLength + 1
                nextCode += 1
            }
            previousStart = stringStart
            previousLength = stringLength
            if nextCode + early >= 1 << width && width < 12 { width += 1 }
        }
    }

    /// Copies `count` bytes of earlier output (`from + count ≤ to`) to `to`: in 8-byte
    /// pieces where the output has room for the overrun, else byte by byte up to `end`.
    @inline(__always)
    private static func copyPieces(_ output: UnsafeMutableRawPointer, from: Int, to: Int, count: Int, end: Int) {
        if to + count + 8 <= end {
            var i = 0
            repeat {
                output.storeBytes(of: output.loadUnaligned(fromByteOffset: from + i, as: UInt64.self),
                                  toByteOffset: to + i, as: UInt64.self)
                i += 8
            } while i < count
        } else {
            for i in 0 ..< min(count, end - to) {
                output.storeBytes(of: output.load(fromByteOffset: from + i, as: UInt8.self), toByteOffset: to + i, as: UInt8.self)
            }
        }
    }

    /// Copies `count` bytes from earlier in the output; short strings byte by byte.
    @inline(__always)
    private static func copy(_ output: UnsafeMutableRawBufferPointer, from: Int, to: Int, count: Int) {
        guard count > 0 else { return }
        if count < 16 {
            for i in 0 ..< count { output[to + i] = output[from + i] }
        } else {
            (output.baseAddress! + to).copyMemory(from: output.baseAddress! + from, byteCount: count)
        }
    }
}
