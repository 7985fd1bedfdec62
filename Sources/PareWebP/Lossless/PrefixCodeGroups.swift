@_spi(Codec) import PareCore

/// The prefix codes of one entropy-coded image (WebP Lossless Bitstream §6.2): one group of
/// five codes (green + length + cache, red, blue, alpha, distance) per meta prefix code, all
/// tables in one array; `groups` holds each group's five table starts.
struct PrefixCodeGroups {
    var tables: [UInt32] = []
    var groups: [Int] = []

    /// §6.2.1: the alphabets' sizes: green with the 24 length prefixes and the cache's slots.
    static func alphabetSizes(cacheBits: Int) -> [Int] {
        [256 + 24 + (cacheBits > 0 ? 1 << cacheBits : 0), 256, 256, 256, 40]
    }

    /// The order in which the code length code's lengths are stored (§6.2.2).
    static let codeLengthOrder: [Int] = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]

    /// Reads `count` groups of five codes.
    mutating func read(count: Int, cacheBits: Int, reader: inout LosslessBitReader,
                       ledger: MemoryLedger, reservation: LedgerReservation) throws(WebPError) {
        let sizes = Self.alphabetSizes(cacheBits: cacheBits)
        // Every code takes a root table at least: that much is counted before any is built,
        // so that a meta prefix image naming thousands of groups is refused up front.
        let rootBytes = (1 << PrefixCode.rootBits) * MemoryLayout<UInt32>.stride
        let (upfront, overflow) = count.multipliedReportingOverflow(by: 5 * rootBytes + 5 * MemoryLayout<Int>.stride)
        if overflow { throw .core(.sizeOverflow) }
        do { try reservation.grow(bytes: upfront) } catch { throw .core(error) }
        var counted = count * 5 * rootBytes
        var lengths = [UInt8](repeating: 0, count: sizes[0])
        var scratch = [UInt16](repeating: 0, count: HuffmanDecodeTable.scratchCount(symbols: sizes[0]))
        groups.reserveCapacity(count * 5)
        tables.reserveCapacity(count * 5 * (1 << PrefixCode.rootBits))
        for _ in 0 ..< count {
            for size in sizes {
                // A build takes room for its largest table first and gives back what it did
                // not use: the room is counted before it is taken.
                let most = (tables.count + PrefixCode.capacity(alphabetSize: size)) * MemoryLayout<UInt32>.stride
                if most > counted {
                    do { try reservation.grow(bytes: most - counted) } catch { throw .core(error) }
                    counted = most
                }
                try scratch.withUnsafeMutableBufferPointer { (scratch: inout UnsafeMutableBufferPointer<UInt16>) throws(WebPError) in
                    try readCode(alphabetSize: size, lengths: &lengths, scratch: scratch.baseAddress!, reader: &reader)
                }
            }
        }
    }

    /// §6.2.2: a simple code (one or two symbols) or a normal one whose lengths are themselves
    /// prefix-coded, with runs (16: repeat the last non-zero length, 17 and 18: zeros).
    /// `scratch` holds `HuffmanDecodeTable.scratchCount(symbols: alphabetSize)`.
    mutating func readCode(alphabetSize: Int, lengths: inout [UInt8], scratch: UnsafeMutablePointer<UInt16>,
                           reader: inout LosslessBitReader) throws(WebPError) {
        let at = reader.offset
        for i in 0 ..< alphabetSize { lengths[i] = 0 }
        if reader.flag() {
            let symbols = reader.read(1) + 1
            let first = reader.read(reader.read(1) == 0 ? 1 : 8)
            if first < alphabetSize { lengths[first] = 1 }
            if symbols == 2 {
                let second = reader.read(8)
                if second < alphabetSize { lengths[second] = 1 }
            }
        } else {
            var codeLengthLengths = [UInt8](repeating: 0, count: 19)
            let n = reader.read(4) + 4
            for i in 0 ..< n { codeLengthLengths[Self.codeLengthOrder[i]] = UInt8(reader.read(3)) }
            var lengthTable: [UInt32] = []
            let built = codeLengthLengths.withUnsafeBufferPointer { PrefixCode.build(lengths: $0, scratch: scratch, into: &lengthTable) }
            guard built != nil else { throw .invalidVP8L(offset: at, reason: "code length code is not a prefix code") }
            var maxSymbol = alphabetSize
            if reader.flag() {
                let bits = 2 + 2 * reader.read(3)
                maxSymbol = 2 + reader.read(bits)
                guard maxSymbol <= alphabetSize else {
                    throw .invalidVP8L(offset: at, reason: "max_symbol \(maxSymbol) over the alphabet's \(alphabetSize)")
                }
            }
            var symbol = 0
            var previous: UInt8 = 8
            // SAFETY: lengthTable was just built (the pointer is its own buffer).
            try lengthTable.withUnsafeBufferPointer { (table: UnsafeBufferPointer<UInt32>) throws(WebPError) in
                while symbol < alphabetSize {
                    if maxSymbol == 0 { break }
                    maxSymbol -= 1
                    let code = reader.readSymbol(table.baseAddress!)
                    if code < 16 {
                        lengths[symbol] = UInt8(code)
                        symbol += 1
                        if code != 0 { previous = UInt8(code) }
                    } else {
                        let extra = code == 16 ? 2 : code == 17 ? 3 : 7
                        let repeatCount = reader.read(extra) + (code == 18 ? 11 : 3)
                        guard symbol + repeatCount <= alphabetSize else {
                            throw .invalidVP8L(offset: reader.offset, reason: "code lengths run past the alphabet")
                        }
                        let value: UInt8 = code == 16 ? previous : 0
                        for _ in 0 ..< repeatCount {
                            lengths[symbol] = value
                            symbol += 1
                        }
                    }
                    if reader.overrun { break }
                }
            }
        }
        if reader.overrun { throw .truncated(what: "VP8L prefix codes", offset: reader.offset, needed: 1) }
        let start = lengths.withUnsafeBufferPointer {
            PrefixCode.build(lengths: UnsafeBufferPointer(rebasing: $0[0 ..< alphabetSize]), scratch: scratch,
                             into: &tables)
        }
        guard let start else { throw .invalidVP8L(offset: at, reason: "prefix code is not complete") }
        groups.append(start)
    }
}
