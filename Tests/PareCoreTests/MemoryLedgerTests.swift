import Testing
import PareCore
import TestSupport

@Suite struct MemoryLedgerTests {
    @Test func countsCurrentPeakAndAllocations() throws {
        let ledger = MemoryLedger()
        do {
            let a = try ledger.allocate(UInt8.self, count: 1000, initialValue: 0)
            let b = try ledger.allocate(Int32.self, count: 250, initialValue: 7)
            #expect(ledger.currentBytes == 2000)
            #expect(b[249] == 7)
            #expect(a.count == 1000)
        }
        #expect(ledger.currentBytes == 0)
        #expect(ledger.peakBytes == 2000)
        #expect(ledger.allocationCount == 2)
        let c = try ledger.allocate(UInt16.self, count: 100, initialValue: 0)
        #expect(ledger.currentBytes == 200)
        #expect(ledger.peakBytes == 2000)
        _ = c
    }

    @Test func limitThrowsBeforeAllocating() throws {
        let ledger = MemoryLedger(limit: 4096)
        let kept = try ledger.allocate(UInt8.self, count: 4000, initialValue: 0)
        #expect(throws: CoreError.limitExceeded(requested: 100, inUse: 4000, limit: 4096)) {
            _ = try ledger.allocate(UInt8.self, count: 100, initialValue: 0)
        }
        #expect(ledger.currentBytes == 4000)
        #expect(ledger.allocationCount == 1)
        _ = kept
    }

    @Test func overflowingRequestIsAnError() {
        let ledger = MemoryLedger()
        #expect(throws: CoreError.sizeOverflow) {
            _ = try ledger.allocate(UInt64.self, count: Int.max / 4, initialValue: 0)
        }
        #expect(throws: CoreError.sizeOverflow) {
            _ = try ledger.allocate(UInt8.self, count: -1, initialValue: 0)
        }
        #expect(ledger.currentBytes == 0)
    }

    @Test func reservationsAreCountedLikeBuffers() throws {
        let ledger = MemoryLedger(limit: 1000)
        try ledger.reserve(bytes: 600)
        #expect(throws: CoreError.self) { try ledger.reserve(bytes: 500) }
        ledger.release(bytes: 600)
        try ledger.reserve(bytes: 1000)
        #expect(ledger.peakBytes == 1000)
        ledger.release(bytes: 1000)
    }

    /// The ledger's figures are what the heap really does: glibc's count grows by about the
    /// same amount while ledger buffers are alive.
    @Test func heapMeterAgreesWithLedger() throws {
        let ledger = MemoryLedger()
        let (_, growth) = try HeapMeter.peakGrowth(ledger: ledger) {
            var buffers: [LedgerBuffer<UInt8>] = []
            buffers.reserveCapacity(8)
            for _ in 0 ..< 8 {
                buffers.append(try ledger.allocate(UInt8.self, count: 256 * 1024, initialValue: 1))
            }
            return buffers.count
        }
        #expect(ledger.peakBytes == 8 * 256 * 1024)
        let measured = try #require(growth)
        let peak = ledger.peakBytes
        #expect(measured >= peak - 64 * 1024, "heap grew \(measured), ledger peak \(peak)")
        #expect(measured <= peak + peak / 10 + 64 * 1024, "heap grew \(measured), ledger peak \(peak)")
    }

    /// Peaks counted elsewhere (a helper thread's own ledger) raise the peak on top of what is
    /// held now, without counting anything or refusing past the limit: that limit was
    /// enforced where the bytes were counted.
    @Test func recordedPeaksRaiseThePeakOnly() throws {
        let ledger = MemoryLedger(limit: 1000)
        try ledger.reserve(bytes: 300)
        ledger.recordPeak(additional: 500)
        #expect(ledger.peakBytes == 800 && ledger.currentBytes == 300)
        ledger.recordPeak(additional: 100)
        #expect(ledger.peakBytes == 800)
        ledger.recordPeak(additional: 900)
        #expect(ledger.peakBytes == 1200 && ledger.currentBytes == 300)
        ledger.release(bytes: 300)
        #expect(ledger.currentBytes == 0)
    }

    /// An image made in a job is counted while the job holds it; the value handed out is
    /// counted by no ledger and outlives the count.
    @Test func imageBuffersAreCountedWhileHeld() throws {
        let ledger = MemoryLedger(limit: 100)
        var image: Image?
        do {
            let buffer = try ImageBuffer(width: 4, height: 3, format: .rgb8, ledger: ledger)
            #expect(ledger.currentBytes == 36)
            buffer.withMutableRow(2) { $0[0] = 9 }
            image = buffer.image
            #expect(throws: CoreError.limitExceeded(requested: 72, inUse: 36, limit: 100)) {
                _ = try ImageBuffer(width: 4, height: 6, format: .rgb8, ledger: ledger)
            }
        }
        #expect(ledger.currentBytes == 0 && ledger.peakBytes == 36)
        #expect(image?.row(2)[0] == 9 && image?.pixels.count == 36)
    }
}
