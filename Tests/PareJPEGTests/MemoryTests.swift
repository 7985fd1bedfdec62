import PareCore
import TestSupport
import Testing
@testable import PareJPEG

/// The streaming footprint: what the ledger counts, cross-checked with the process heap.
@Suite struct MemoryTests {
    struct Footprint {
        var ledgerPeak: Int
        var heapGrowth: Int?
        var rows: Int
    }

    static func decode(_ bytes: [UInt8], scale: JPEGScale) throws -> Footprint {
        let ledger = MemoryLedger()
        let (rows, growth) = try HeapMeter.peakGrowth(ledger: ledger) { () throws -> Int in
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger)
            var sink = RowCounter()
            try decoder.decode(scale: scale, into: &sink)
            return sink.rows
        }
        return Footprint(ledgerPeak: ledger.peakBytes, heapGrowth: growth, rows: rows)
    }

    /// Full decode of W×H 4:2:0: at most 48·W + 256 KiB, the same for two heights, and the
    /// heap agrees with the ledger.
    @Test func fullDecodeFootprintIndependentOfHeight() throws {
        let width = 2000
        var peaks: [Int] = []
        for height in [256, 2048] {
            let bytes = SyntheticJPEG.make(width: width, height: height, restartInterval: 7)
            let footprint = try Self.decode(bytes, scale: .full)
            #expect(footprint.rows == height)
            #expect(footprint.ledgerPeak <= 48 * width + 256 * 1024)
            if let growth = footprint.heapGrowth {
                let slack = footprint.ledgerPeak / 10 + 64 * 1024
                #expect(abs(growth - footprint.ledgerPeak) <= slack,
                        "heap growth \(growth), ledger peak \(footprint.ledgerPeak)")
            }
            print("JPEG memory: \(width)x\(height) 4:2:0 full decode, ledger peak \(footprint.ledgerPeak) B "
                + "(bound \(48 * width + 256 * 1024)), heap growth \(footprint.heapGrowth.map(String.init) ?? "n/a") B")
            peaks.append(footprint.ledgerPeak)
        }
        #expect(peaks[0] == peaks[1])
    }

    /// 1/8 of a 24 MP 4:2:0 image in at most 256 KiB (the input bytes are the caller's).
    @Test func eighthScaleOf24Megapixels() throws {
        let bytes = SyntheticJPEG.make(width: 6000, height: 4000)
        let footprint = try Self.decode(bytes, scale: .eighth)
        #expect(footprint.rows == 500)
        #expect(footprint.ledgerPeak <= 256 * 1024)
        if let growth = footprint.heapGrowth {
            #expect(abs(growth - footprint.ledgerPeak) <= footprint.ledgerPeak / 10 + 64 * 1024)
        }
        print("JPEG memory: 6000x4000 4:2:0 at 1/8, ledger peak \(footprint.ledgerPeak) B, "
            + "heap growth \(footprint.heapGrowth.map(String.init) ?? "n/a") B")
    }
}
