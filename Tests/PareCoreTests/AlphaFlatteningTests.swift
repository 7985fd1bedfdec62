import Testing
import PareCore

@Suite struct AlphaFlatteningTests {
    /// Flattens a one-row image and returns the format and bytes that reached the sink.
    private func flatten(_ pixels: [UInt8], _ format: PixelFormat, over background: BackgroundColour,
                         ledger: MemoryLedger = MemoryLedger()) throws -> (PixelFormat, [UInt8]) {
        let image = Image(width: pixels.count / format.bytesPerPixel, height: 1, format: format, pixels: pixels)
        var flattener = AlphaFlattener(ImageBuilder(ledger: ledger), over: background, ledger: ledger)
        try image.send(to: &flattener)
        let out = try #require(flattener.downstream.image)
        return (out.format, out.pixels)
    }

    /// Opaque, transparent and half-covered pixels, rounded to nearest:
    /// (200 × 128 + 255 × 127) / 255 = 227.4 → 227.
    @Test func rgbaOverWhiteAndOverAColour() throws {
        let pixels: [UInt8] = [10, 20, 30, 255, 10, 20, 30, 0, 200, 100, 0, 128]
        let (format, white) = try flatten(pixels, .rgba8, over: .white)
        #expect(format == .rgb8)
        #expect(white == [10, 20, 30, 255, 255, 255, 227, 177, 127])
        let (_, teal) = try flatten(pixels, .rgba8, over: BackgroundColour(red: 0, green: 128, blue: 128))
        #expect(teal == [10, 20, 30, 0, 128, 128, 100, 114, 64])
    }

    /// Gray stays gray over a gray background and becomes RGB over a coloured one.
    @Test func grayAlphaKeepsOrGainsColour() throws {
        let pixels: [UInt8] = [100, 255, 100, 0, 100, 51]
        let (gray, onBlack) = try flatten(pixels, .grayAlpha8, over: .black)
        #expect(gray == .gray8 && onBlack == [100, 0, 20])
        let (rgb, onRed) = try flatten(pixels, .grayAlpha8, over: BackgroundColour(red: 255, green: 0, blue: 0))
        #expect(rgb == .rgb8 && onRed == [100, 100, 100, 255, 0, 0, 224, 20, 20])
    }

    /// 16-bit samples (big-endian) over the 8-bit background widened by 257.
    @Test func sixteenBitSamples() throws {
        // RGBA16: (0x1234, 0xFFFF, 0x0000, alpha 0x8000).
        let pixels: [UInt8] = [0x12, 0x34, 0xFF, 0xFF, 0x00, 0x00, 0x80, 0x00]
        let (format, out) = try flatten(pixels, .rgba16, over: .white)
        #expect(format == .rgb16)
        func expected(_ v: UInt64) -> UInt64 { (v * 0x8000 + 65535 * (65535 - 0x8000) + 32767) / 65535 }
        let values = (0 ..< 3).map { UInt64(out[2 * $0]) << 8 | UInt64(out[2 * $0 + 1]) }
        #expect(values == [expected(0x1234), expected(0xFFFF), expected(0)])
        #expect(values == [0x8919, 0xFFFF, 0x7FFF])
    }

    /// Rows without alpha pass through as they are, and nothing is held for them.
    @Test func opaqueRowsPassThrough() throws {
        let (format, out) = try flatten([1, 2, 3, 4, 5, 6], .rgb8, over: .black)
        #expect(format == .rgb8 && out == [1, 2, 3, 4, 5, 6])
        // Into a sink that keeps nothing, the flattener's own ledger never moves for opaque
        // rows (an RGBA image of the same width holds its 4 × 40-byte row: rowBufferIsCounted).
        let ledger = MemoryLedger()
        var flattener = AlphaFlattener(NullSink(), over: .black, ledger: ledger)
        try Image(width: 40, height: 2, format: .rgb8).send(to: &flattener)
        #expect(ledger.peakBytes == 0 && ledger.currentBytes == 0)
    }

    /// The row it holds is counted: a ledger too small for it refuses at `begin`.
    @Test func rowBufferIsCounted() throws {
        let ledger = MemoryLedger(limit: 100)
        let image = try Image(width: 40, height: 1, format: .rgba8)
        var flattener = AlphaFlattener(NullSink(), over: .white, ledger: ledger)
        #expect(throws: CoreError.self) { try image.send(to: &flattener) }
        let roomy = MemoryLedger(limit: 120)
        var fits = AlphaFlattener(NullSink(), over: .white, ledger: roomy)
        try image.send(to: &fits)
        #expect(roomy.currentBytes == 120)
    }

    @Test func hexColours() {
        #expect(BackgroundColour(hex: "#00ff7F") == BackgroundColour(red: 0, green: 255, blue: 127))
        #expect(BackgroundColour(hex: "FFFFFF") == .white)
        #expect(BackgroundColour(hex: "FFFFF") == nil)
        #expect(BackgroundColour(hex: "GG0000") == nil)
        #expect(BackgroundColour(red: 0, green: 171, blue: 15).hex == "00AB0F")
    }
}

private struct NullSink: RowSink {
    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}
    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {}
}
