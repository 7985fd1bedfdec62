import Testing
@_spi(Codec) import PareCore

/// `StridedCopy` against a byte-by-byte copy: every piece size from 1 to 9 bytes (the fixed
/// loads, the split ones, and the plain copy past them), forward and backward steps.
@Suite struct StridedCopyTests {
    @Test(arguments: 1 ... 9)
    func piecesLandAsABytewiseCopyPutsThem(bytes: Int) {
        let count = 5
        let source = (0 ..< 200).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        for (start, sourceStep, targetStep) in [(0, bytes, bytes), (10, 13, bytes + 2), (180, -(bytes + 1), bytes)] {
            var expected = [UInt8](repeating: 0xEE, count: 120)
            for k in 0 ..< count {
                for b in 0 ..< bytes { expected[k * targetStep + b] = source[start + k * sourceStep + b] }
            }
            var copied = [UInt8](repeating: 0xEE, count: 120)
            source.withUnsafeBytes { from in
                copied.withUnsafeMutableBytes { to in
                    StridedCopy.copy(count, bytes: bytes, from: from.baseAddress! + start, step: sourceStep,
                                     to: to.baseAddress!, step: targetStep)
                }
            }
            #expect(copied == expected, "\(bytes) bytes, steps \(sourceStep) and \(targetStep)")
        }
    }
}
