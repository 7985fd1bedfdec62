import PareCore

/// LZW (TIFF 6.0 §13): codes of 9 to 12 bits, most significant bit first; 256 clears the
/// table, 257 ends the strip, 258 on name strings added one per code. The code width grows
/// one code early ("the table reaches 511 entries": TIFF's own variant). Files from the
/// first TIFF LZW writers (before TIFF 5.0's fix) pack the codes least significant bit
/// first and grow late; their data starts with bytes 0x00 and odd, where new-style data
/// starts with 0x80 (a Clear code), so the two are told apart as libtiff does.
struct LZWDecoder {
    static let clearCode = 256
    static let endCode = 257
    static let firstFreeCode = 258
    static let maxCodes = 4096

    /// For each code: the code of the string it extends, its last byte, its first byte and
    /// its length. Filled once per decoder and reused for every strip.
    private var prefix = [UInt16](repeating: 0, count: maxCodes)
    private var suffix = [UInt8](repeating: 0, count: maxCodes)
    private var first = [UInt8](repeating: 0, count: maxCodes)
    private var length = [UInt16](repeating: 0, count: maxCodes)

    init() {
        for code in 0 ..< 256 {
            suffix[code] = UInt8(code)
            first[code] = UInt8(code)
            length[code] = 1
        }
    }

    mutating func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Decompressed {
        let oldStyle = input.count >= 2 && input[0] == 0 && input[1] & 1 == 1
        // Bits not yet used, the newest at the bottom; `bitCount` of them are valid.
        var bits: UInt64 = 0, bitCount = 0, next = 0
        var width = 9
        var nextCode = Self.firstFreeCode
        var previous = -1
        var o = 0
        let end = output.count
        // The early change: new-style data widens when the next free code is one below the
        // width's limit, old-style data when it reaches it.
        let early = oldStyle ? 0 : 1
        return prefix.withUnsafeMutableBufferPointer { prefix in
            suffix.withUnsafeMutableBufferPointer { suffix in
                first.withUnsafeMutableBufferPointer { first in
                    length.withUnsafeMutableBufferPointer { length in
                        // SAFETY: input reads at next < input.count (checked); output writes at
                        // o ≤ position < end; table indices are codes < nextCode ≤ maxCodes or
                        // prefixes stored from such codes.
                        while o < end {
                            // Refill to at least one code's bits.
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
                                previous = -1
                                continue
                            }
                            let emitted: Int
                            if code < nextCode {
                                guard code < 256 || code >= Self.firstFreeCode else {
                                    return Decompressed(produced: o, damage: .refused("LZW code \(code) is not a string"))
                                }
                                emitted = code
                                if previous >= 0 && nextCode < Self.maxCodes {
                                    prefix[nextCode] = UInt16(previous)
                                    suffix[nextCode] = first[code]
                                    first[nextCode] = first[previous]
                                    length[nextCode] = length[previous] &+ 1
                                    nextCode += 1
                                }
                            } else if code == nextCode && previous >= 0 && nextCode < Self.maxCodes {
                                // KwKwK: the string of the previous code and its own first byte.
                                prefix[nextCode] = UInt16(previous)
                                suffix[nextCode] = first[previous]
                                first[nextCode] = first[previous]
                                length[nextCode] = length[previous] &+ 1
                                nextCode += 1
                                emitted = code
                            } else {
                                return Decompressed(produced: o, damage: .refused("LZW code \(code) beyond the table (\(nextCode))"))
                            }
                            // Write the string back to front; a string that does not fit is
                            // written as far as the output goes.
                            let count = Int(length[emitted])
                            var c = emitted
                            var position = o + count - 1
                            while position >= end {
                                c = Int(prefix[c])
                                position -= 1
                            }
                            while position >= o {
                                output[position] = suffix[c]
                                c = Int(prefix[c])
                                position -= 1
                            }
                            o = min(o + count, end)
                            previous = emitted
                            if nextCode + early >= 1 << width && width < 12 { width += 1 }
                        }
                        return Decompressed(produced: o, damage: o < end ? .ended : nil)
                    }
                }
            }
        }
    }
}
