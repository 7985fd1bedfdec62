/// A classic little-endian TIFF assembled field by field, for the malformed-input tests:
/// the header, one IFD right after it (entries sorted, values out of line after it), then
/// `data`. Offsets in the entries are written as given, so a test can point them anywhere;
/// `dataOffset` is where `data` starts.
struct TinyTIFF {
    enum FieldType: UInt16 { case byte = 1, short = 3, long = 4 }
    var entries: [(tag: UInt16, type: FieldType, values: [UInt32])] = []
    var data: [UInt8] = []
    var nextIFD: UInt32 = 0

    mutating func set(_ tag: UInt16, _ type: FieldType, _ values: [UInt32]) {
        entries.removeAll { $0.tag == tag }
        entries.append((tag, type, values))
    }

    /// Header (8) + count (2) + entries (12 each) + next (4) + out-of-line values.
    var dataOffset: Int {
        8 + 2 + 12 * entries.count + 4 + entries.reduce(0) { sum, e in
            let size = e.values.count * (e.type == .byte ? 1 : e.type == .short ? 2 : 4)
            return sum + (size > 4 ? (size + 1) & ~1 : 0)
        }
    }

    var bytes: [UInt8] {
        var out: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        func le(_ v: UInt32, _ n: Int) -> [UInt8] { (0 ..< n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
        let sorted = entries.sorted { $0.tag < $1.tag }
        var extra: [UInt8] = []
        let extraStart = 8 + 2 + 12 * sorted.count + 4
        out += le(UInt32(sorted.count), 2)
        for e in sorted {
            let width = e.type == .byte ? 1 : e.type == .short ? 2 : 4
            var value: [UInt8] = []
            for v in e.values { value += le(v, width) }
            out += le(UInt32(e.tag), 2) + le(UInt32(e.type.rawValue), 2) + le(UInt32(e.values.count), 4)
            if value.count <= 4 {
                out += value + [UInt8](repeating: 0, count: 4 - value.count)
            } else {
                out += le(UInt32(extraStart + extra.count), 4)
                extra += value
                if extra.count & 1 == 1 { extra.append(0) }
            }
        }
        out += le(nextIFD, 4)
        return out + extra + data
    }

    /// An uncompressed 8-bit gray image of `width` × `height` in strips of `rowsPerStrip`
    /// rows, its pixels `pixel(x, y)`.
    static func gray(width: Int, height: Int, rowsPerStrip: Int, pixel: (Int, Int) -> UInt8 = { x, y in UInt8((x + y) & 255) })
        -> TinyTIFF {
        var t = TinyTIFF()
        let strips = (height + rowsPerStrip - 1) / rowsPerStrip
        t.set(256, .long, [UInt32(width)])
        t.set(257, .long, [UInt32(height)])
        t.set(258, .short, [8])
        t.set(259, .short, [1])
        t.set(262, .short, [1])
        t.set(273, .long, [UInt32](repeating: 0, count: strips))
        t.set(278, .long, [UInt32(rowsPerStrip)])
        t.set(279, .long, [UInt32](repeating: 0, count: strips))
        let start = t.dataOffset
        var offsets: [UInt32] = [], counts: [UInt32] = []
        for s in 0 ..< strips {
            let rows = min(rowsPerStrip, height - s * rowsPerStrip)
            offsets.append(UInt32(start + t.data.count))
            counts.append(UInt32(rows * width))
            for y in s * rowsPerStrip ..< s * rowsPerStrip + rows {
                for x in 0 ..< width { t.data.append(pixel(x, y)) }
            }
        }
        t.set(273, .long, offsets)
        t.set(279, .long, counts)
        return t
    }
}
