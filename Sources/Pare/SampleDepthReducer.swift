import PareCore

/// Passes rows on with 16-bit samples reduced to 8 bits (v·255/65535, rounded), so that a
/// 16-bit PNG can feed the 8-bit resampler. 8-bit rows pass through untouched.
struct SampleDepthReducer<Downstream: RowSink>: RowSink {
    var downstream: Downstream
    let ledger: MemoryLedger
    private var scratch: LedgerBuffer<UInt8>?
    private var sixteenBit = false
    private var channels = 1

    init(ledger: MemoryLedger, downstream: Downstream) {
        self.ledger = ledger
        self.downstream = downstream
    }

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        sixteenBit = header.format.bytesPerSample == 2
        channels = header.format.channels
        if sixteenBit {
            scratch = try ledger.allocate(UInt8.self, count: header.width * channels, initialValue: 0)
        }
        var reduced = header
        reduced.format = header.format.eightBit
        try downstream.begin(reduced)
    }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
        guard sixteenBit, let scratch else {
            downstream.consume(row, at: placement)
            return
        }
        let samples = min(placement.width * channels, row.count / 2, scratch.count)
        let out = scratch.baseAddress
        for i in 0 ..< samples {
            let value = UInt32(row[2 * i]) << 8 | UInt32(row[2 * i + 1])
            out[i] = UInt8((value * 255 + 32767) / 65535)
        }
        downstream.consume(UnsafeBufferPointer(start: out, count: samples), at: placement)
    }
}
