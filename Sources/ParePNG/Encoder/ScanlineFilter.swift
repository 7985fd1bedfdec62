/// The five scanline filters of PNG 3rd ed. §7.3 (filter method 0, Table 9.1): None, Sub,
/// Up, Average and Paeth, reversed in place for decoding (§9.2–§9.4) and applied for the
/// encoder. `bpp` is the bytes per complete pixel, 1 for bit depths below 8 (§9.2).
///
/// The loops run on raw pointers: callers prove `count` bytes at `current` and `previous`
/// before calling. Each filter is specialised for the usual pixel sizes so that the
/// compiler keeps the left-hand pixel in registers.
enum ScanlineFilter {
    /// Reverses filter `type` on `current[0 ..< count]`; `previous` is the reconstructed
    /// previous scanline of the same pass (zeros for its first). Returns false for a filter
    /// type outside 0–4.
    static func unfilter(_ type: UInt8, current: UnsafeMutablePointer<UInt8>,
                         previous: UnsafePointer<UInt8>, count: Int, bpp: Int) -> Bool {
        switch type {
        case 0:
            return true
        case 1:
            switch bpp {
            case 1: unfilterSub(current, count, 1)
            case 2: unfilterSub(current, count, 2)
            case 3: unfilterSub(current, count, 3)
            case 4: unfilterSub(current, count, 4)
            case 6: unfilterSub(current, count, 6)
            case 8: unfilterSub(current, count, 8)
            default: unfilterSub(current, count, bpp)
            }
        case 2:
            for i in 0 ..< count { current[i] &+= previous[i] }
        case 3:
            switch bpp {
            case 1: unfilterAverage(current, previous, count, 1)
            case 3: unfilterAverage(current, previous, count, 3)
            case 4: unfilterAverage(current, previous, count, 4)
            default: unfilterAverage(current, previous, count, bpp)
            }
        case 4:
            switch bpp {
            case 1: unfilterPaeth(current, previous, count, 1)
            case 2: unfilterPaeth(current, previous, count, 2)
            case 3: unfilterPaeth(current, previous, count, 3)
            case 4: unfilterPaeth(current, previous, count, 4)
            case 6: unfilterPaeth(current, previous, count, 6)
            case 8: unfilterPaeth(current, previous, count, 8)
            default: unfilterPaeth(current, previous, count, bpp)
            }
        default:
            return false
        }
        return true
    }

    @inline(__always)
    private static func unfilterSub(_ current: UnsafeMutablePointer<UInt8>, _ count: Int, _ bpp: Int) {
        var i = bpp
        while i < count {
            current[i] &+= current[i - bpp]
            i += 1
        }
    }

    @inline(__always)
    private static func unfilterAverage(_ current: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>,
                                        _ count: Int, _ bpp: Int) {
        let lead = min(bpp, count)
        for i in 0 ..< lead { current[i] &+= previous[i] >> 1 }
        var i = lead
        while i < count {
            current[i] &+= UInt8(truncatingIfNeeded: (UInt16(current[i - bpp]) &+ UInt16(previous[i])) >> 1)
            i += 1
        }
    }

    @inline(__always)
    private static func unfilterPaeth(_ current: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>,
                                      _ count: Int, _ bpp: Int) {
        // With no pixel to the left, a = c = 0 and the predictor is b (§9.4).
        let lead = min(bpp, count)
        for i in 0 ..< lead { current[i] &+= previous[i] }
        var i = lead
        while i < count {
            current[i] &+= paethPredictor(current[i - bpp], previous[i], previous[i - bpp])
            i += 1
        }
    }

    /// §9.4: the neighbour nearest to a + b − c, ties broken in the order a, b, c.
    @inline(__always)
    static func paethPredictor(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let ia = Int16(a), ib = Int16(b), ic = Int16(c)
        let pa = abs(ib &- ic), pb = abs(ia &- ic), pc = abs(ia &+ ib &- ic &- ic)
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }

    /// Applies filter `type` to `raw[0 ..< count]` into `output`, with `previous` the raw
    /// previous row (zeros for the first), and returns the sum of the filtered bytes read as
    /// signed values' magnitudes: the heuristic of §12.7 for choosing a filter per row.
    static func filter(_ type: UInt8, raw: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>,
                       output: UnsafeMutablePointer<UInt8>, count: Int, bpp: Int) -> Int {
        var sum = 0
        for i in 0 ..< count {
            let a: UInt8 = i >= bpp ? raw[i - bpp] : 0
            let c: UInt8 = i >= bpp ? previous[i - bpp] : 0
            let value = filtered(type, raw[i], a: a, b: previous[i], c: c)
            output[i] = value
            sum += Int(magnitude(value))
        }
        return sum
    }

    /// One byte `x` filtered by `type`, with `a`, `b`, `c` its left, upper and upper-left
    /// neighbours (§7.3, Figure 7.2).
    @inline(__always)
    static func filtered(_ type: UInt8, _ x: UInt8, a: UInt8, b: UInt8, c: UInt8) -> UInt8 {
        switch type {
        case 1: return x &- a
        case 2: return x &- b
        case 3: return x &- UInt8(truncatingIfNeeded: (UInt16(a) + UInt16(b)) >> 1)
        case 4: return x &- paethPredictor(a, b, c)
        default: return x
        }
    }

    /// A filtered byte read as a signed value's magnitude (§12.7's measure).
    @inline(__always)
    static func magnitude(_ value: UInt8) -> UInt8 { min(value, 0 &- value) }
}
