import PareCore
import PareWebP
import Testing
import TestSupport

/// Size limits and the memory ledger refuse before allocating; truncated data keeps the rows
/// decoded before the cut, with a warning (or an error when strict).
@Suite struct LimitTests {
    @Test func widthLimit() {
        var options = WebPOptions()
        options.maxWidth = 32
        #expect(decodeError(fixture("fx-lossy-segments.webp"), options: options)
            == .limitExceeded(what: "width", value: 64, limit: 32, offset: 12))
        #expect(decodeError(fixture("fx-lossless-z6.webp"), options: options)
            == .limitExceeded(what: "width", value: 64, limit: 32, offset: 12))
    }

    @Test func pixelLimit() {
        var options = WebPOptions()
        options.maxPixels = 1000
        #expect(decodeError(fixture("fx-lossy-segments.webp"), options: options)
            == .limitExceeded(what: "pixel count", value: 3072, limit: 1000, offset: 12))
    }

    @Test func canvasLimitFromVP8X() {
        // A VP8X canvas of 16384 x 1 is refused before anything else is read.
        let file = riff([("VP8X", [0, 0, 0, 0, 0xFF, 0x3F, 0, 0, 0, 0])])
        #expect(decodeError(file) == .limitExceeded(what: "width", value: 16384, limit: 16383, offset: 12))
    }

    @Test func ledgerRefusesBeforeAllocating() {
        for name in ["fx-lossy-segments.webp", "fx-lossless-z9.webp", "fx-alpha-best.webp"] {
            let ledger = MemoryLedger(limit: 2000)
            let error = decodeError(fixture(name), ledger: ledger)
            #expect(error?.kind == .memoryLimit, "\(name)")
            #expect(ledger.currentBytes == 0)
            #expect(ledger.peakBytes <= 2000)
        }
    }

    @Test func ledgerCountsLosslessImage() throws {
        let ledger = MemoryLedger()
        var decoder = try WebPDecoder(source: MemoryByteSource(fixture("fx-lossless-z9.webp")), ledger: ledger)
        var sink = CountingSink()
        try decoder.decode(into: &sink)
        // The ARGB picture (64 x 48 words) was held.
        #expect(ledger.peakBytes >= 64 * 48 * 4)
        #expect(sink.rows == Array(0 ..< 48))
    }

    /// A lossy decode holds a few macroblock rows: its peak grows with the width, not the height.
    @Test func lossyStreamsRows() throws {
        func peak(_ name: String) throws -> Int {
            let bytes = fixture(name)
            let ledger = MemoryLedger()
            var decoder = try WebPDecoder(source: MemoryByteSource(bytes), ledger: ledger)
            var sink = CountingSink()
            try decoder.decode(into: &sink)
            #expect(sink.rows == Array(0 ..< decoder.info.height))
            // The compressed payload is held too; leave it out.
            return ledger.peakBytes - bytes.count
        }
        let small = try peak("fx-lossy-small.webp"), tall = try peak("fx-lossy-tall.webp")
        let wide = try peak("fx-lossy-wide.webp")
        #expect(tall <= small + 64, "32x512 peak \(tall) vs 32x32 peak \(small)")
        #expect(wide > 4 * small, "512x32 peak \(wide) vs 32x32 peak \(small)")
        #expect(tall < 32 * 512 * 3 / 4)
    }

    @Test func cancellationStopsTheDecode() throws {
        for name in ["fx-lossy-tall.webp", "fx-lossless-z6.webp"] {
            let ledger = MemoryLedger()
            var decoder = try WebPDecoder(source: MemoryByteSource(fixture(name)), ledger: ledger)
            decoder.cancellation = CancellationCheck { true }
            var sink = CountingSink()
            #expect(throws: WebPError.core(.cancelled)) { try decoder.decode(into: &sink) }
            #expect(sink.rows.isEmpty)
        }
    }

    @Test func truncatedKeepsRows() throws {
        for name in ["fx-lossy-tall.webp", "fx-lossless-z6.webp", "fx-lossy-segments.webp"] {
            let whole = fixture(name)
            let full = try decodeWebP(whole)
            var lenient = WebPOptions()
            lenient.strict = false
            for cut in stride(from: 12, to: whole.count, by: max(1, whole.count / 40)) {
                let bytes = Array(whole[..<cut])
                // Strict: an error, never a trap.
                #expect(decodeError(bytes) != nil, "\(name) cut at \(cut)")
                // Lenient: the rows before the cut, or a header error.
                do {
                    let ledger = MemoryLedger()
                    var decoder = try WebPDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: lenient)
                    var builder = ImageBuilder(ledger: ledger)
                    try decoder.decode(into: &builder)
                    #expect(decoder.warnings.count >= 1, "\(name) cut at \(cut)")
                    if case let .truncated(row, _)? = decoder.warnings.first, let image = builder.image {
                        for y in 0 ..< min(row, full.height) where y < image.height {
                            #expect(Array(image.row(y)) == Array(full.row(y)), "\(name) cut at \(cut) row \(y)")
                        }
                    }
                } catch {
                    #expect(error.kind == .damaged || error.kind == .limit, "\(name) cut at \(cut): \(error)")
                }
            }
        }
    }
}
