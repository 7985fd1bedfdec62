import PareCore

/// Decodes one entropy-coded image of the lossless format (WebP Lossless Bitstream §5): the
/// colour cache size, for the main image the meta prefix codes (§6.2.2 "Decoding of Meta
/// Prefix Codes"), the prefix code groups, then the pixels: literals, LZ77 backward
/// references with the distance map (§5.2.2) and colour cache hits (§5.2.3).
struct EntropyImageDecoder {
    let ledger: MemoryLedger
    let maxPixels: Int

    /// The colour cache bits of the last main image read, for `VP8LInfo`.
    var cacheBits = 0
    var metaBits = 0

    /// §5.2.2: the 120 short distance codes, each `(dy << 4) | (8 - dx)`, nearest first.
    static let distanceMap: [UInt8] = [
        0x18, 0x07, 0x17, 0x19, 0x28, 0x06, 0x27, 0x29, 0x16, 0x1A, 0x26, 0x2A, 0x38, 0x05, 0x37, 0x39,
        0x15, 0x1B, 0x36, 0x3A, 0x25, 0x2B, 0x48, 0x04, 0x47, 0x49, 0x14, 0x1C, 0x35, 0x3B, 0x46, 0x4A,
        0x24, 0x2C, 0x58, 0x45, 0x4B, 0x34, 0x3C, 0x03, 0x57, 0x59, 0x13, 0x1D, 0x56, 0x5A, 0x23, 0x2D,
        0x44, 0x4C, 0x55, 0x5B, 0x33, 0x3D, 0x68, 0x02, 0x67, 0x69, 0x12, 0x1E, 0x66, 0x6A, 0x22, 0x2E,
        0x54, 0x5C, 0x43, 0x4D, 0x65, 0x6B, 0x32, 0x3E, 0x78, 0x01, 0x77, 0x79, 0x53, 0x5D, 0x11, 0x1F,
        0x64, 0x6C, 0x42, 0x4E, 0x76, 0x7A, 0x21, 0x2F, 0x75, 0x7B, 0x31, 0x3F, 0x63, 0x6D, 0x52, 0x5E,
        0x00, 0x74, 0x7C, 0x41, 0x4F, 0x10, 0x20, 0x62, 0x6E, 0x30, 0x73, 0x7D, 0x51, 0x5F, 0x40, 0x72,
        0x7E, 0x61, 0x6F, 0x50, 0x71, 0x7F, 0x60, 0x70,
    ]

    /// §5.2.2: a length or distance from its prefix symbol and extra bits.
    @inline(__always)
    static func prefixValue(_ symbol: Int, reader: inout LosslessBitReader) -> Int {
        if symbol < 4 { return symbol + 1 }
        let extra = (symbol - 2) >> 1
        let offset = (2 + (symbol & 1)) << extra
        return offset + reader.read(extra) + 1
    }

    /// §5.2.2: a distance code's pixel distance on a `width`-wide image.
    @inline(__always)
    static func distance(code: Int, width: Int) -> Int {
        if code > 120 { return code - 120 }
        let entry = Int(distanceMap[code - 1])
        let d = (entry >> 4) * width + (8 - (entry & 0xF))
        return d >= 1 ? d : 1
    }

    /// Reads an image of `width` × `height` into a new buffer. `isMain` reads the meta prefix
    /// codes (only the main image has them). Returns the buffer and how many pixels were
    /// decoded (fewer than all when the data ran out; the rest are zero).
    mutating func decode(width: Int, height: Int, isMain: Bool,
                         reader: inout LosslessBitReader) throws(WebPError) -> (LedgerBuffer<UInt32>, Int) {
        let start = reader.offset
        var bits = 0
        if reader.flag() {
            bits = reader.read(4)
            guard bits >= 1 && bits <= 11 else {
                throw .invalidVP8L(offset: start, reason: "colour cache bits \(bits) outside 1...11")
            }
        }
        var meta: LedgerBuffer<UInt32>?
        var metaBits = 0
        var groupCount = 1
        if isMain && reader.flag() {
            metaBits = reader.read(3) + 2
            let w = (width + (1 << metaBits) - 1) >> metaBits
            let h = (height + (1 << metaBits) - 1) >> metaBits
            var sub = EntropyImageDecoder(ledger: ledger, maxPixels: maxPixels)
            let (image, decoded) = try sub.decode(width: w, height: h, isMain: false, reader: &reader)
            if decoded < w * h { throw .truncated(what: "VP8L meta prefix image", offset: reader.offset, needed: 1) }
            var largest = 0
            for i in 0 ..< w * h {
                let index = Int((image[i] >> 8) & 0xFFFF)
                image[i] = UInt32(index)
                largest = max(largest, index)
            }
            groupCount = largest + 1
            meta = image
        }
        if isMain {
            cacheBits = bits
            self.metaBits = metaBits
        }
        if reader.overrun { throw .truncated(what: "VP8L header", offset: reader.offset, needed: 1) }
        let reservation = LedgerReservation(ledger: ledger)
        var codes = PrefixCodeGroups()
        try codes.read(count: groupCount, cacheBits: bits, reader: &reader, ledger: ledger, reservation: reservation)

        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, count <= maxPixels else {
            throw .limitExceeded(what: "pixel count", value: overflow ? Int.max : count, limit: maxPixels, offset: start)
        }
        let pixels: LedgerBuffer<UInt32>
        do { pixels = try ledger.allocate(UInt32.self, count: count, initialValue: 0) } catch { throw .core(error) }
        var cache: ColourCache? = bits > 0 ? ColourCache(bits: bits) : nil
        let decoded = try decodePixels(into: pixels, width: width, height: height, codes: codes, meta: meta,
                                       metaBits: metaBits, cache: &cache, reader: &reader)
        return (pixels, decoded)
    }

    /// The pixel loop (§5.2). Returns the number of pixels decoded.
    func decodePixels(into pixels: LedgerBuffer<UInt32>, width: Int, height: Int, codes: PrefixCodeGroups,
                      meta: LedgerBuffer<UInt32>?, metaBits: Int, cache: inout ColourCache?,
                      reader: inout LosslessBitReader) throws(WebPError) -> Int {
        let total = width * height
        let metaWidth = (width + (1 << metaBits) - 1) >> metaBits
        let metaMask = metaBits == 0 ? Int.max : (1 << metaBits) - 1
        let cacheSize = cache.map { $0.entries.count } ?? 0
        let cacheShift = cache?.shift ?? 0
        var cacheEntries = cache?.entries ?? []
        defer { cache?.entries = cacheEntries }
        return try codes.tables.withUnsafeBufferPointer { (tables: UnsafeBufferPointer<UInt32>) throws(WebPError) -> Int in
            try cacheEntries.withUnsafeMutableBufferPointer { (cacheSlots: inout UnsafeMutableBufferPointer<UInt32>) throws(WebPError) -> Int in
                // SAFETY: every index into `out` is checked against `total` (= pixels.count) below;
                // group starts are offsets PrefixCode.build returned inside `tables`.
                let out = pixels.baseAddress
                let base = tables.baseAddress!
                var i = 0, x = 0, y = 0
                var group = 0
                func groupAt(_ x: Int, _ y: Int) -> Int {
                    guard let meta else { return 0 }
                    return Int(meta[(y >> metaBits) * metaWidth + (x >> metaBits)]) * 5
                }
                group = groupAt(0, 0)
                var green = base + codes.groups[group], red = base + codes.groups[group + 1]
                var blue = base + codes.groups[group + 2], alpha = base + codes.groups[group + 3]
                var dist = base + codes.groups[group + 4]
                func select(_ g: Int) {
                    green = base + codes.groups[g]; red = base + codes.groups[g + 1]
                    blue = base + codes.groups[g + 2]; alpha = base + codes.groups[g + 3]
                    dist = base + codes.groups[g + 4]
                }
                var inserted = 0
                while i < total {
                    if x & metaMask == 0 && meta != nil { select(groupAt(x, y)) }
                    if reader.bitCount < 32 { reader.fill() }
                    let g = reader.readSymbol(green)
                    if g < 256 {
                        let r = reader.readSymbol(red)
                        if reader.bitCount < 32 { reader.fill() }
                        let b = reader.readSymbol(blue)
                        let a = reader.readSymbol(alpha)
                        if reader.overrun { break }
                        out[i] = UInt32(a) << 24 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
                        i += 1
                        x += 1
                        if x == width { x = 0; y += 1 }
                    } else if g < 280 {
                        let length = Self.prefixValue(g - 256, reader: &reader)
                        if reader.bitCount < 32 { reader.fill() }
                        let distanceSymbol = reader.readSymbol(dist)
                        if reader.bitCount < 32 { reader.fill() }
                        let code = Self.prefixValue(distanceSymbol, reader: &reader)
                        if reader.overrun { break }
                        let d = Self.distance(code: code, width: width)
                        guard d <= i, length <= total - i else {
                            throw .invalidVP8L(offset: reader.offset,
                                               reason: "backward reference (distance \(d), length \(length)) at pixel \(i) leaves the image")
                        }
                        for k in 0 ..< length { out[i + k] = out[i + k - d] }
                        i += length
                        x += length
                        while x >= width { x -= width; y += 1 }
                        if meta != nil && i < total { select(groupAt(x, y)) }
                    } else {
                        let slot = g - 280
                        guard slot < cacheSize else {
                            throw .invalidVP8L(offset: reader.offset, reason: "colour cache index \(slot) without a cache that large")
                        }
                        if reader.overrun { break }
                        while inserted < i {
                            let c = out[inserted]
                            cacheSlots[ColourCache.slot(c, shift: cacheShift)] = c
                            inserted += 1
                        }
                        out[i] = cacheSlots[slot]
                        i += 1
                        x += 1
                        if x == width { x = 0; y += 1 }
                    }
                    if cacheSize > 0 && g < 256 + 24 {
                        while inserted < i {
                            let c = out[inserted]
                            cacheSlots[ColourCache.slot(c, shift: cacheShift)] = c
                            inserted += 1
                        }
                    }
                }
                return i
            }
        }
    }
}
