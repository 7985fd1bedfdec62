/// Writes valid progressive JPEGs (T.81 SOF2) of any size and sampling, for tests that need
/// large progressive inputs without committing large files.
///
/// The picture is `SyntheticJPEG`'s (a flat square per block, quantiser 1) plus a first AC
/// coefficient of ±1 in every fifth block. The scan script is a common one with the DC scans
/// first: DC of all components interleaved at Al = 1, its refinement (Ah = 1, Al = 0), then
/// one AC first scan per component over the band 1…63 (spectral selection, no successive
/// approximation), in which the all-zero blocks are coded as end-of-band runs (EOBn, T.81
/// G.1.2.2) of up to 32767 blocks.
public enum SyntheticProgressiveJPEG {
    public static func make(width: Int, height: Int,
                            components: [SyntheticJPEG.Component] = SyntheticJPEG.yCbCr420) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ body: [UInt8]) {
            out += [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)]
            out += body
        }
        segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))
        var frame: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
                              UInt8(components.count)]
        for (i, c) in components.enumerated() {
            frame += [UInt8(i + 1), UInt8(c.horizontal << 4 | c.vertical), 0]
        }
        segment(0xC2, frame)
        // DC: T.81 Table K.3. AC: EOB0…EOB14 (symbols r << 4) in 4 bits, then (run 0, size 1) in 5.
        let dcBits: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
        let dcValues: [UInt8] = Array(0 ... 11)
        let acValues: [UInt8] = (0 ... 14).map { UInt8($0 << 4) } + [0x01]
        segment(0xC4, [0x00] + dcBits + dcValues)
        segment(0xC4, [0x10] + [0, 0, 0, 15, 1] + [UInt8](repeating: 0, count: 11) + acValues)
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
        // AC codes: EOBr is r in 4 bits; (0, 1) is 11110.
        let oneCode: (code: UInt32, length: Int) = (0b11110, 5)

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
        func scanHeader(_ ids: [Int], ss: Int, se: Int, ah: Int, al: Int) {
            var body: [UInt8] = [UInt8(ids.count)]
            for id in ids { body += [UInt8(id + 1), 0x00] }
            segment(0xDA, body + [UInt8(ss), UInt8(se), UInt8(ah << 4 | al)])
        }

        let hMax = components.map(\.horizontal).max() ?? 1, vMax = components.map(\.vertical).max() ?? 1
        let mcuColumns = (width + 8 * hMax - 1) / (8 * hMax), mcuRows = (height + 8 * vMax - 1) / (8 * vMax)
        func dc(_ ci: Int, _ blockX: Int, _ blockY: Int) -> Int {
            ((blockX * 5 + blockY * 3 + ci * 60) % 200 + 28 - 128) * 8
        }

        // DC first (Al = 1), then its refinement (one bit per block), both interleaved.
        for refinement in [false, true] {
            scanHeader(Array(0 ..< components.count), ss: 0, se: 0, ah: refinement ? 1 : 0, al: refinement ? 0 : 1)
            var predictors = [Int](repeating: 0, count: components.count)
            for my in 0 ..< mcuRows {
                for mx in 0 ..< mcuColumns {
                    for (ci, c) in components.enumerated() {
                        for by in 0 ..< c.vertical {
                            for bx in 0 ..< c.horizontal {
                                let value = dc(ci, mx * c.horizontal + bx, my * c.vertical + by)
                                if refinement {
                                    put(UInt32(value & 1), 1)
                                    continue
                                }
                                let diff = (value >> 1) - predictors[ci]
                                predictors[ci] = value >> 1
                                var category = 0
                                while (1 << category) <= abs(diff) { category += 1 }
                                put(dcCodes[category].code, dcCodes[category].length)
                                if category > 0 { put(UInt32(diff >= 0 ? diff : diff + (1 << category) - 1), category) }
                            }
                        }
                    }
                }
            }
            flush()
        }

        // One AC scan per component over its own blocks (T.81 A.2.2), in raster order.
        for (ci, c) in components.enumerated() {
            scanHeader([ci], ss: 1, se: 63, ah: 0, al: 0)
            let columns = ((width * c.horizontal + hMax - 1) / hMax + 7) / 8
            let rows = ((height * c.vertical + vMax - 1) / vMax + 7) / 8
            var run = 0
            func endRun() {
                var r = 0
                while (2 << r) <= run { r += 1 }
                put(UInt32(r), 4)
                if r > 0 { put(UInt32(run - (1 << r)), r) }
                run = 0
            }
            for y in 0 ..< rows {
                for x in 0 ..< columns {
                    if (x + y * columns) % 5 == 0 {
                        if run > 0 { endRun() }
                        put(oneCode.code, oneCode.length)
                        put((x + y) & 1 == 0 ? 1 : 0, 1)
                        run = 1
                    } else {
                        run += 1
                    }
                    if run == 32767 { endRun() }
                }
            }
            if run > 0 { endRun() }
            flush()
        }
        out += [0xFF, 0xD9]
        return out
    }
}
