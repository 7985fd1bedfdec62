import CZlib

/// Decompression bombs: files whose headers claim an enormous image. Each comes in two
/// forms, one with a few bytes of image data (what an attacker sends: the decoder must refuse
/// it from the header alone) and one with every byte of image data present, written directly
/// from the structure of an all-zero image so that building it costs next to nothing.
public enum BombFiles {
    /// A baseline gray JPEG (T.81 SOF0, one component, 1×1 sampling) of `width` × `height`
    /// whose blocks are all zero. Its DC and AC tables each hold one 1-bit code (category 0
    /// and EOB), so a block costs two 0 bits and the entropy-coded data is a run of zero bytes:
    /// `dataBytes` of them, or, when nil, exactly as many as the blocks need.
    public static func jpeg(width: Int, height: Int, dataBytes: Int? = nil) -> [UInt8] {
        jpeg(width: width, height: height, sof: 0xC0, dataBytes: dataBytes)
    }

    /// The same headers with SOF2 (progressive) and a DC first scan (Ss = Se = 0), followed by
    /// `dataBytes` zero bytes.
    public static func progressiveJPEG(width: Int, height: Int, dataBytes: Int) -> [UInt8] {
        jpeg(width: width, height: height, sof: 0xC2, dataBytes: dataBytes)
    }

    static func jpeg(width: Int, height: Int, sof: UInt8, dataBytes: Int?) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ body: [UInt8]) {
            out += [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)]
            out += body
        }
        segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))
        segment(sof, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 1, 1, 0x11, 0])
        let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0]
        segment(0xC4, [0x00] + oneCode)
        segment(0xC4, [0x10] + oneCode)
        let progressive = sof == 0xC2
        segment(0xDA, [1, 1, 0x00, 0, progressive ? 0 : 63, 0])
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        let bits = blocks * (progressive ? 1 : 2)
        let count = dataBytes ?? (bits + 7) / 8
        out += [UInt8](repeating: 0, count: count)
        // Pad the last byte with 1 bits (T.81 F.1.2.3).
        if dataBytes == nil, bits % 8 != 0 { out[out.count - 1] = UInt8(0xFF >> (bits % 8)) }
        out += [0xFF, 0xD9]
        return out
    }

    /// A 1-bit gray PNG of `width` × `height` whose pixels are all 0 (filter type 0 on every
    /// scanline). With `completeData` its zlib stream inflates to every scanline: a literal 0
    /// followed by fixed-Huffman matches of 258 bytes at distance 1 (RFC 1951 §3.2.6), 13 bits
    /// per match; without, the IDAT holds one compressed scanline only.
    public static func png(width: Int, height: Int, completeData: Bool) -> [UInt8] {
        let lineBytes = 1 + (width + 7) / 8
        let total = completeData ? lineBytes * height : lineBytes
        var stream: [UInt8] = [0x78, 0x01]
        var bitBuffer: UInt64 = 0, bitCount = 0
        stream.reserveCapacity(total / 150 + 64)
        func put(_ value: UInt32, _ count: Int) {
            bitBuffer |= UInt64(value) << UInt64(bitCount)
            bitCount += count
            while bitCount >= 8 {
                stream.append(UInt8(truncatingIfNeeded: bitBuffer))
                bitBuffer >>= 8
                bitCount -= 8
            }
        }
        // Huffman codes go most significant bit first into the LSB-first bit stream.
        func code(_ value: UInt32, _ length: Int) {
            var reversed: UInt32 = 0
            for i in 0 ..< length { reversed |= (value >> UInt32(i) & 1) << UInt32(length - 1 - i) }
            put(reversed, length)
        }
        put(1, 1)  // BFINAL
        put(1, 2)  // BTYPE 01, fixed Huffman codes
        let literalZero: (UInt32, Int) = (0b0011_0000, 8)
        code(literalZero.0, literalZero.1)
        var left = total - 1
        while left >= 258 {
            code(0b1100_0101, 8)  // length code 285: 258 bytes
            code(0, 5)  // distance code 0: distance 1
            left -= 258
        }
        for _ in 0 ..< left { code(literalZero.0, literalZero.1) }
        code(0, 7)  // end of block (256)
        if bitCount > 0 { put(0, 8 - bitCount) }
        let adler = UInt32(total % 65521) << 16 | 1
        stream += be32(UInt32(adler))

        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func chunk(_ type: String, _ data: ArraySlice<UInt8>) {
            let typeBytes = Array(type.utf8)
            out += be32(UInt32(data.count)) + typeBytes
            out += data
            let crc = data.withUnsafeBufferPointer { body in
                crc32(crc32(0, typeBytes, uInt(typeBytes.count)), body.baseAddress, uInt(body.count))
            }
            out += be32(UInt32(truncatingIfNeeded: crc))
        }
        chunk("IHDR", (be32(UInt32(width)) + be32(UInt32(height)) + [1, 0, 0, 0, 0])[...])
        var start = 0
        while start < stream.count {
            let end = min(stream.count, start + (1 << 20))
            chunk("IDAT", stream[start ..< end])
            start = end
        }
        chunk("IEND", [][...])
        return out
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}
