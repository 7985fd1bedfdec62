/// Writes valid baseline JPEGs (T.81 SOF0, one interleaved scan) of any size, sampling and
/// restart interval, for tests that need large inputs without committing large files.
///
/// Every block carries only its DC coefficient (all AC coefficients zero, coded as EOB), with
/// a quantiser of 1, so each 8×8 block decodes to a flat square whose level follows a smooth
/// pattern over the image. That exercises every stage of a decoder (markers, Huffman,
/// restart handling, IDCT, upsampling, colour) at almost no encoding cost.
public enum SyntheticJPEG {
    public struct Component: Sendable {
        public var horizontal: Int
        public var vertical: Int
        public init(_ horizontal: Int, _ vertical: Int) {
            self.horizontal = horizontal
            self.vertical = vertical
        }
    }

    /// 4:2:0 YCbCr.
    public static let yCbCr420 = [Component(2, 2), Component(1, 1), Component(1, 1)]

    /// A marker segment (T.81 B.1.1.4): the marker, its length (two bytes, counting
    /// themselves) and `body`.
    public static func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
    }

    public static func make(width: Int, height: Int, components: [Component] = yCbCr420,
                            restartInterval: Int = 0) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ body: [UInt8]) { out += Self.segment(marker, body) }
        segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))
        var frame: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
                              UInt8(components.count)]
        for (i, c) in components.enumerated() {
            frame += [UInt8(i + 1), UInt8(c.horizontal << 4 | c.vertical), 0]
        }
        segment(0xC0, frame)
        // T.81 Table K.3 (luminance DC) and K.5 (luminance AC): only EOB is used from the latter.
        let dcBits: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
        let dcValues: [UInt8] = Array(0 ... 11)
        segment(0xC4, [0x00] + dcBits + dcValues)
        segment(0xC4, [0x10] + [0, 0, 0, 1] + [UInt8](repeating: 0, count: 12) + [0x00])
        if restartInterval > 0 {
            segment(0xDD, [UInt8(restartInterval >> 8), UInt8(restartInterval & 0xFF)])
        }
        var scan: [UInt8] = [UInt8(components.count)]
        for i in 0 ..< components.count { scan += [UInt8(i + 1), 0x00] }
        segment(0xDA, scan + [0, 63, 0])

        // Canonical DC codes (T.81 C.2): category -> (code, length).
        var dcCodes = [(code: UInt32, length: Int)](repeating: (0, 0), count: 12)
        var code: UInt32 = 0, k = 0
        for length in 1 ... 16 {
            for _ in 0 ..< Int(dcBits[length - 1]) {
                dcCodes[Int(dcValues[k])] = (code, length)
                code += 1
                k += 1
            }
            code <<= 1
        }
        let eob: (code: UInt32, length: Int) = (0, 4)

        var bitBuffer: UInt32 = 0, bitCount = 0
        func put(_ value: UInt32, _ length: Int) {
            for i in stride(from: length - 1, through: 0, by: -1) {
                bitBuffer = bitBuffer << 1 | (value >> UInt32(i) & 1)
                bitCount += 1
                if bitCount == 8 {
                    out.append(UInt8(bitBuffer))
                    if bitBuffer == 0xFF { out.append(0) }
                    bitBuffer = 0
                    bitCount = 0
                }
            }
        }
        func flush() {
            while bitCount != 0 { put(1, 1) }
        }

        let hMax = components.map(\.horizontal).max() ?? 1, vMax = components.map(\.vertical).max() ?? 1
        let mcuColumns = (width + 8 * hMax - 1) / (8 * hMax), mcuRows = (height + 8 * vMax - 1) / (8 * vMax)
        var predictors = [Int](repeating: 0, count: components.count)
        var mcuIndex = 0, restartNumber = 0
        for my in 0 ..< mcuRows {
            for mx in 0 ..< mcuColumns {
                if restartInterval > 0, mcuIndex > 0, mcuIndex % restartInterval == 0 {
                    flush()
                    out += [0xFF, 0xD0 + UInt8(restartNumber)]
                    restartNumber = (restartNumber + 1) & 7
                    predictors = [Int](repeating: 0, count: components.count)
                }
                mcuIndex += 1
                for (ci, c) in components.enumerated() {
                    for by in 0 ..< c.vertical {
                        for bx in 0 ..< c.horizontal {
                            let blockX = mx * c.horizontal + bx, blockY = my * c.vertical + by
                            let level = (blockX * 5 + blockY * 3 + ci * 60) % 200 + 28
                            let dc = (level - 128) * 8
                            let diff = dc - predictors[ci]
                            predictors[ci] = dc
                            let magnitude = abs(diff)
                            var category = 0
                            while (1 << category) <= magnitude { category += 1 }
                            put(dcCodes[category].code, dcCodes[category].length)
                            if category > 0 {
                                let bits = diff >= 0 ? diff : diff + (1 << category) - 1
                                put(UInt32(bits), category)
                            }
                            put(eob.code, eob.length)
                        }
                    }
                }
            }
        }
        flush()
        out += [0xFF, 0xD9]
        return out
    }
}
