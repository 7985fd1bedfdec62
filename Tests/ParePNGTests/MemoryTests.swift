import PareCore
import ParePNG
import Testing
import TestSupport

/// Streaming a sequential 8-bit RGBA PNG costs two scanlines plus fixed buffers (the read
/// window, zlib's input buffer, zlib's state and window), whatever the height.
@Suite(.serialized) struct PNGMemoryTests {
    static func makePNG(width: Int, height: Int) throws -> [UInt8] {
        let ledger = MemoryLedger()
        var image = try Image(width: width, height: height, format: .rgba8)
        var rng = SplitMix(state: UInt64(height))
        for y in 0 ..< height {
            image.withMutableRow(y) { row in
                for i in 0 ..< row.count { row[i] = UInt8(truncatingIfNeeded: (i / 4 + y) & 0xF0) | UInt8(rng.next() & 3) }
            }
        }
        return try PNGEncoder(ledger: ledger, compression: .fast).encode(image)
    }

    @Test func streamingPeakIsBoundedByWidthNotHeight() throws {
        let width = 3000
        let bound = 3 * (4 * width + 1) + 300 * 1024
        var peaks: [Int] = []
        for height in [64, 600] {
            let png = try Self.makePNG(width: width, height: height)
            let ledger = MemoryLedger()
            let source = MemoryByteSource(png)
            let (sink, heap) = try HeapMeter.peakGrowth(ledger: ledger) { () throws -> CountingSink in
                var decoder = try PNGDecoder(source: source, ledger: ledger)
                var sink = CountingSink()
                try decoder.decode(into: &sink)
                return sink
            }
            #expect(sink.rows == height)
            #expect(sink.header?.format == .rgba8)
            #expect(ledger.currentBytes == 0)
            print("PNG streaming \(width)x\(height) RGBA (\(png.count) bytes): ledger peak \(ledger.peakBytes) B, "
                  + "bound \(bound) B, heap growth \(heap.map(String.init) ?? "n/a") B, allocations \(ledger.allocationCount)")
            #expect(ledger.peakBytes <= bound)
            if let heap {
                #expect(abs(heap - ledger.peakBytes) <= ledger.peakBytes / 10 + 64 * 1024,
                        "heap \(heap) vs ledger \(ledger.peakBytes)")
            }
            peaks.append(ledger.peakBytes)
        }
        #expect(peaks[0] == peaks[1])
    }
}
