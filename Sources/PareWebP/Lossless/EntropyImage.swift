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

    /// §5.2.2: the 120 short distance codes as the specification lists them, nearest first:
    /// the pixel referred to is x columns to the left of the current one (right when
    /// negative) and y rows up, `y × width + x` pixels back.
    static let distanceMap: [(x: Int8, y: Int8)] = [
        (0, 1), (1, 0), (1, 1), (-1, 1), (0, 2), (2, 0), (1, 2), (-1, 2),
        (2, 1), (-2, 1), (2, 2), (-2, 2), (0, 3), (3, 0), (1, 3), (-1, 3),
        (3, 1), (-3, 1), (2, 3), (-2, 3), (3, 2), (-3, 2), (0, 4), (4, 0),
        (1, 4), (-1, 4), (4, 1), (-4, 1), (3, 3), (-3, 3), (2, 4), (-2, 4),
        (4, 2), (-4, 2), (0, 5), (3, 4), (-3, 4), (4, 3), (-4, 3), (5, 0),
        (1, 5), (-1, 5), (5, 1), (-5, 1), (2, 5), (-2, 5), (5, 2), (-5, 2),
        (4, 4), (-4, 4), (3, 5), (-3, 5), (5, 3), (-5, 3), (0, 6), (6, 0),
        (1, 6), (-1, 6), (6, 1), (-6, 1), (2, 6), (-2, 6), (6, 2), (-6, 2),
        (4, 5), (-4, 5), (5, 4), (-5, 4), (3, 6), (-3, 6), (6, 3), (-6, 3),
        (0, 7), (7, 0), (1, 7), (-1, 7), (5, 5), (-5, 5), (7, 1), (-7, 1),
        (4, 6), (-4, 6), (6, 4), (-6, 4), (2, 7), (-2, 7), (7, 2), (-7, 2),
        (3, 7), (-3, 7), (7, 3), (-7, 3), (5, 6), (-5, 6), (6, 5), (-6, 5),
        (8, 0), (4, 7), (-4, 7), (7, 4), (-7, 4), (8, 1), (8, 2), (6, 6),
        (-6, 6), (8, 3), (5, 7), (-5, 7), (7, 5), (-7, 5), (8, 4), (6, 7),
        (-6, 7), (7, 6), (-7, 6), (8, 5), (7, 7), (-7, 7), (8, 6), (8, 7),
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
        let offset = distanceMap[code - 1]
        let d = Int(offset.y) * width + Int(offset.x)
        return d >= 1 ? d : 1
    }

    /// Reads an image of `width` × `height` into a new buffer. `isMain` reads the meta prefix
    /// codes (only the main image has them). Returns the buffer and how many pixels were
    /// decoded (fewer than all when the data ran out; the rest are zero).
    mutating func decode(width: Int, height: Int, isMain: Bool,
                         reader: inout LosslessBitReader) throws(WebPError) -> (LedgerBuffer<UInt32>, Int) {
        var image = try readCodes(width: width, height: height, isMain: isMain, reader: &reader)
        let decoded = try Self.decodePixels(&image, reader: &reader)
        return (image.pixels, decoded)
    }

    /// Everything of an image before its pixels: the colour cache size, the meta prefix codes
    /// (`isMain` only), the prefix code groups; and the buffer its pixels will fill.
    mutating func readCodes(width: Int, height: Int, isMain: Bool,
                            reader: inout LosslessBitReader) throws(WebPError) -> CodedImage {
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
        return CodedImage(width: width, height: height, pixels: pixels, codes: codes, meta: meta, metaBits: metaBits,
                          cache: bits > 0 ? ColourCache(bits: bits) : nil)
    }

    /// The pixel loop (§5.2). Returns the number of pixels decoded. Each time the rows
    /// decoded whole reach a multiple of `reportEvery`, `rowsDone` is told how many there
    /// are: those rows are final (later codes only read them), so the rows can be handed on
    /// while the loop goes on.
    static func decodePixels(_ image: inout CodedImage, reader: inout LosslessBitReader, reportEvery: Int = Int.max,
                      rowsDone: (Int) throws(WebPError) -> Void = { _ in }) throws(WebPError) -> Int {
        let pixels = image.pixels, width = image.width, codes = image.codes, meta = image.meta
        let metaBits = image.metaBits
        let total = width * image.height
        var nextReport = reportEvery
        let metaWidth = (width + (1 << metaBits) - 1) >> metaBits
        let metaMask = metaBits == 0 ? Int.max : (1 << metaBits) - 1
        let cacheSize = image.cache.map { $0.entries.count } ?? 0
        let cacheShift = image.cache?.shift ?? 0
        var cacheEntries = image.cache?.entries ?? []
        defer { image.cache?.entries = cacheEntries }
        return try codes.tables.withUnsafeBufferPointer { (tables: UnsafeBufferPointer<UInt32>) throws(WebPError) -> Int in
            try cacheEntries.withUnsafeMutableBufferPointer { (cacheSlots: inout UnsafeMutableBufferPointer<UInt32>) throws(WebPError) -> Int in
                // SAFETY: every index into `out` is checked against `total` (= pixels.count) below;
                // group starts are offsets PrefixCode.build returned inside `tables`.
                let out = pixels.baseAddress
                let base = tables.baseAddress!
                // The loop reads through a copy of the reader local to this closure, which the
                // optimiser keeps in registers; the captured parameter would stay in memory,
                // written back after every symbol since the pixel stores might alias it.
                var bits = reader
                defer { reader = bits }
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
                    if y >= nextReport {
                        try rowsDone(y)
                        nextReport = (y / reportEvery + 1) * reportEvery
                    }
                    if x & metaMask == 0 && meta != nil { select(groupAt(x, y)) }
                    if bits.bitCount < 32 { bits.fill() }
                    let g = bits.readSymbol(green)
                    if g < 256 {
                        let r = bits.readSymbol(red)
                        if bits.bitCount < 32 { bits.fill() }
                        let b = bits.readSymbol(blue)
                        let a = bits.readSymbol(alpha)
                        if bits.overrun { break }
                        out[i] = UInt32(a) << 24 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
                        i += 1
                        x += 1
                        if x == width { x = 0; y += 1 }
                    } else if g < 280 {
                        let length = Self.prefixValue(g - 256, reader: &bits)
                        if bits.bitCount < 32 { bits.fill() }
                        let distanceSymbol = bits.readSymbol(dist)
                        if bits.bitCount < 32 { bits.fill() }
                        let code = Self.prefixValue(distanceSymbol, reader: &bits)
                        if bits.overrun { break }
                        let d = Self.distance(code: code, width: width)
                        guard d <= i, length <= total - i else {
                            throw .invalidVP8L(offset: bits.offset,
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
                            throw .invalidVP8L(offset: bits.offset, reason: "colour cache index \(slot) without a cache that large")
                        }
                        if bits.overrun { break }
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

/// An entropy-coded image whose codes are read (`EntropyImageDecoder.readCodes`), with the
/// buffer its pixels go into.
struct CodedImage {
    let width: Int
    let height: Int
    let pixels: LedgerBuffer<UInt32>
    let codes: PrefixCodeGroups
    let meta: LedgerBuffer<UInt32>?
    let metaBits: Int
    var cache: ColourCache?
}
