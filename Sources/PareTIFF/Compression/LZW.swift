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

    mutating func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Decompressed {
        start.withUnsafeMutableBufferPointer { start in
            length.withUnsafeMutableBufferPointer { length in
                Self.decode(input, into: output, start: start, length: length)
            }
        }
    }

    /// The decoding loop, its state in locals (kept in registers, where a closure's
    /// captured variables would not be).
    private static func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                               start: UnsafeMutableBufferPointer<Int>,
                               length: UnsafeMutableBufferPointer<Int>) -> Decompressed {
        let oldStyle = input.count >= 2 && input[0] == 0 && input[1] & 1 == 1
        // Bits not yet used: `bitCount` of them, the next code's at the top (new style) or
        // at the bottom (old style).
        var bits: UInt64 = 0, bitCount = 0, next = 0
        var width = 9
        var nextCode = Self.firstFreeCode
        // The previous code's string in the output; -1 after a Clear.
        var previousStart = -1, previousLength = 0
        var o = 0
        let end = output.count
        // The early change: new-style data widens when the next free code is one below the
        // width's limit, old-style data when it reaches it.
        let early = oldStyle ? 0 : 1
        // SAFETY: input reads at next < input.count (checked); table indices are codes
        // below nextCode ≤ maxCodes; a copy of n bytes from `from` to o has
        // from + n ≤ o (an earlier string) and o + n ≤ end (cut to the room left).
        while o < end {
            while bitCount < width {
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
                code = Int(bits & ((1 << UInt64(width)) - 1))
                bits >>= UInt64(width)
            } else {
                code = Int((bits >> UInt64(bitCount - width)) & ((1 << UInt64(width)) - 1))
            }
            bitCount -= width
            if code == Self.endCode { break }
            if code == Self.clearCode {
                width = 9
                nextCode = Self.firstFreeCode
                previousStart = -1
                continue
            }
            let stringStart = o
            var stringLength: Int
            if code < 256 {
                output[o] = UInt8(code)
                stringLength = 1
            } else if code < nextCode {
                stringLength = length[code]
                copy(output, from: start[code], to: o, count: min(stringLength, end - o))
            } else if code == nextCode && previousStart >= 0 {
                // KwKwK: the previous string and its own first byte.
                stringLength = previousLength + 1
                copy(output, from: previousStart, to: o, count: min(previousLength, end - o))
                if o + previousLength < end { output[o + previousLength] = output[previousStart] }
            } else {
                return Decompressed(produced: o, damage: .refused("LZW code \(code) beyond the table (\(nextCode))"))
            }
            // The new code: the previous string and this one's first byte, which
            // follow each other in the output.
            if previousStart >= 0 && nextCode < Self.maxCodes {
                start[nextCode] = previousStart
                length[nextCode] = previousLength + 1
                nextCode += 1
            }
            o = min(o + stringLength, end)
            previousStart = stringStart
            previousLength = stringLength
            if nextCode + early >= 1 << width && width < 12 { width += 1 }
        }
        return Decompressed(produced: o, damage: o < end ? .ended : nil)
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
