@testable import PareWebP
import Testing
import TestSupport

/// The lossy decoder's vector stages against their plain forms: the loop filter's
/// transposed vertical edges.
@Suite struct LossyStagesTests {
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
