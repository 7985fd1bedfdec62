import PareCore
@testable import ParePNG
import Testing
import TestSupport

/// The vectorised filters (`FilterChoice`) against the plain ones (`ScanlineFilter.filter`,
/// their oracle): the same bytes and the same sums for every filter, pixel size and width
/// (widths around the 16-byte step and its tail), and the same choice of filter per row.
@Suite struct FilterChoiceTests {
    @Test(arguments: [1, 2, 3, 4, 6, 8])
    func vectorisedFiltersEqualThePlainOnes(bpp: Int) {
        var rng = SplitMix(state: UInt64(bpp))
        for count in Array(1 ... 70) + [255, 256, 257, 4099, 70_000] {
            let raw = (0 ..< count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Neighbours near each other as well as random ones, so that every Paeth branch runs.
            let previous = raw.enumerated().map { i, x in
                i % 3 == 0 ? UInt8(truncatingIfNeeded: rng.next()) : x &+ UInt8(truncatingIfNeeded: rng.next() % 5)
            }
            for type in UInt8(0) ... 4 {
                var plain = [UInt8](repeating: 0, count: count), fast = plain
                let plainSum = ScanlineFilter.filter(type, raw: raw, previous: previous, output: &plain, count: count, bpp: bpp)
                let fastSum = FilterChoice.filter(type, raw: raw, previous: previous, output: &fast, count: count, bpp: bpp)
                #expect(fast == plain, "filter \(type), \(count) bytes, bpp \(bpp)")
                #expect(fastSum == plainSum, "sum of filter \(type), \(count) bytes, bpp \(bpp)")
            }
        }
    }

    @Test func leastSumPicksThePlainChoice() {
        var rng = SplitMix(state: 5)
        let count = 3 * 97
        var previous = [UInt8](repeating: 0, count: count)
        var chosen = Set<Int>()
        for row in 0 ..< 200 {
            // Gradients with noise in some rows, pure noise in others.
            let raw = (0 ..< count).map { i in
                row % 4 == 0 ? UInt8(truncatingIfNeeded: rng.next())
                    : UInt8(truncatingIfNeeded: i / 3 * (row % 7) + row + Int(rng.next() % 3))
            }
            var candidates = [UInt8](repeating: 0, count: 5 * (count + 1))
            let best = FilterChoice.leastSum(raw: raw, previous: previous, count: count, bpp: 3, candidates: &candidates)
            var sums: [Int] = []
            for type in UInt8(0) ... 4 {
                var out = [UInt8](repeating: 0, count: count)
                sums.append(ScanlineFilter.filter(type, raw: raw, previous: previous, output: &out, count: count, bpp: 3))
                #expect(Array(candidates[Int(type) * (count + 1) ..< (Int(type) + 1) * (count + 1)]) == [type] + out)
            }
            #expect(best == sums.firstIndex(of: sums.min()!)!)
            chosen.insert(best)
            previous = raw
        }
        #expect(chosen.count >= 3, "filters chosen: \(chosen)")
    }
}
