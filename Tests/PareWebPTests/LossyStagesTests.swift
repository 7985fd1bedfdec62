@testable import PareWebP
import Testing
import TestSupport

/// The lossy decoder's vector stages against their plain forms: colour conversion at full
/// and half size, the inverse DCT, and the loop filter's transposed vertical edges.
@Suite struct LossyStagesTests {
    /// `convertRow` (eight pixels at a time in 16-bit lanes) gives `convert`'s bytes for
    /// every sample value, with three and four channels (alpha left alone), at widths that
    /// end inside and outside a step of eight.
    @Test(arguments: [3, 4])
    func convertRowMatchesConvert(channels: Int) {
        var rng = SplitMix(state: 0xC0_10_0B)
        for width in [1, 7, 8, 9, 16, 17, 40, 256] {
            // Every combination of extreme values shows up: ends of the range and random ones.
            let pick: () -> UInt8 = { [0, 255, 16, 235, 128][Int(rng.next() % 5)] }
            var y = (0 ..< width).map { _ in rng.next() % 3 == 0 ? pick() : UInt8(truncatingIfNeeded: rng.next()) }
            var u = (0 ..< width).map { _ in UInt16(rng.next() % 3 == 0 ? pick() : UInt8(truncatingIfNeeded: rng.next())) }
            var v = (0 ..< width).map { _ in UInt16(rng.next() % 3 == 0 ? pick() : UInt8(truncatingIfNeeded: rng.next())) }
            var fast = [UInt8](repeating: 0xA5, count: width * channels)
            var plain = fast
            YUVToRGB.convertRow(y: &y, u: &u, v: &v, width: width, out: &fast, channels: channels)
            for x in 0 ..< width {
                plain.withUnsafeMutableBufferPointer {
                    YUVToRGB.convert(Int32(y[x]), Int32(u[x]), Int32(v[x]), to: $0.baseAddress! + x * channels)
                }
            }
            #expect(fast == plain, "width \(width), \(channels) channels")
        }
    }

    /// `halfRow` gives `halfRowPlain`'s pixels, odd widths (the last column alone) included.
    @Test func halfRowMatchesItsPlainForm() {
        var rng = SplitMix(state: 0x4A1F)
        for width in [1, 2, 15, 16, 17, 31, 32, 33, 100] {
            let half = (width + 1) / 2
            var top = (0 ..< width).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var bottom = (0 ..< width).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var u = (0 ..< half).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var v = (0 ..< half).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var luma = [UInt8](repeating: 0, count: half)
            var scratch = [UInt16](repeating: 0, count: 2 * width)
            var fast = [UInt8](repeating: 0, count: half * 3), plain = fast
            YUVToRGB.halfRow(top: &top, bottom: &bottom, u: &u, v: &v, width: width, luma: &luma, out: &fast,
                             channels: 3, scratch: &scratch)
            YUVToRGB.halfRowPlain(top: &top, bottom: &bottom, u: &u, v: &v, width: width, luma: &luma, out: &plain,
                                  channels: 3, scratch: &scratch)
            #expect(fast == plain, "width \(width)")
        }
    }

    /// `InverseTransform.add` (four lanes at a time) gives `addPlain`'s pixels for random
    /// blocks, from small coefficients to the extremes of 16 bits, over random predictions.
    @Test func inverseDCTMatchesItsPlainForm() {
        var rng = SplitMix(state: 0x1DC7)
        let stride = 7
        for round in 0 ..< 2000 {
            let range: Int = [64, 1024, 65536][round % 3]
            let coefficients = (0 ..< 16).map { _ in Int16(truncatingIfNeeded: Int(rng.next() % UInt64(range)) - range / 2) }
            let prediction = (0 ..< 4 * stride).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var fast = prediction, plain = prediction
            coefficients.withUnsafeBufferPointer { c in
                InverseTransform.add(c.baseAddress!, to: &fast, stride: stride)
                InverseTransform.addPlain(c.baseAddress!, to: &plain, stride: stride)
            }
            #expect(fast == plain, "round \(round): \(coefficients)")
        }
    }

    @Test func transposeOfEightByEightBytes() {
        var words = LoopFilter.Transpose8x8()
        for i in 0 ..< 8 {
            var word: UInt64 = 0
            for j in 0 ..< 8 { word |= UInt64(i * 8 + j) << (8 * j) }
            words[i] = word
        }
        let rows = (0 ..< 8).map { words[$0] }
        words.transpose()
        for j in 0 ..< 8 {
            for i in 0 ..< 8 { #expect((words[j] >> (8 * i)) & 0xFF == UInt64(i * 8 + j)) }
        }
        words.transpose()
        #expect((0 ..< 8).map { words[$0] } == rows)
    }

    /// The vertical edge filter (rows transposed with 64-bit words) against the horizontal
    /// one on a copy transposed a byte at a time, on smooth rows that the filter changes.
    @Test func verticalEdgeMatchesTheHorizontalFilterOnATransposedCopy() {
        var rng = SplitMix(state: 0xED6E)
        let stride = 24
        var changed = 0
        for round in 0 ..< 200 {
            var pixels = [UInt8](repeating: 0, count: 16 * stride)
            for r in 0 ..< 16 {
                let base = Int(rng.next() % 200) + 20, step = Int(rng.next() % 7) - 3
                for c in 0 ..< stride {
                    let edge = c >= 8 ? Int(rng.next() % 24) : 0
                    pixels[r * stride + c] = UInt8(clamping: base + step * c + edge + Int(rng.next() % 5) - 2)
                }
            }
            let limit = Int(rng.next() % 64), interior = Int(rng.next() % 16) + 1
            let hev = Int(rng.next() % 4), edge = round % 2 == 0
            var expected = pixels
            let before = pixels
            // The plain way: each row's 8 pixels around the edge (column 8) as a column.
            var block = [UInt8](repeating: 0, count: 128)
            for lane in 0 ..< 16 { for k in 0 ..< 8 { block[k * 16 + lane] = expected[lane * stride + 4 + k] } }
            block.withUnsafeMutableBufferPointer {
                LoopFilter.normalHorizontalEdge16($0.baseAddress! + 64, $0.baseAddress! + 72, stride: 16, limit: limit,
                                                  interior: interior, hevThreshold: hev, macroblockEdge: edge)
            }
            for lane in 0 ..< 16 { for k in 0 ..< 8 { expected[lane * stride + 4 + k] = block[k * 16 + lane] } }
            pixels.withUnsafeMutableBufferPointer {
                let q0 = $0.baseAddress! + 8
                LoopFilter.normalVerticalEdge16(q0, q0 + 8 * stride, stride: stride, limit: limit, interior: interior,
                                                hevThreshold: hev, macroblockEdge: edge)
            }
            #expect(pixels == expected, "round \(round)")
            if pixels != before { changed += 1 }
        }
        // Most rounds give the filter something to do.
        #expect(changed > 100)
    }
}
