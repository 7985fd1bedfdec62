/// The encoder's choice of scanline filter (PNG 3rd ed. §12.7), sixteen bytes at a time.
///
/// Filtering for the encoder reads only raw bytes (the row and the one above), never its own
/// output, so every filter vectorises, Paeth included. `ScanlineFilter.filter` is the plain
/// version of the same arithmetic and the oracle these are tested against (FilterChoiceTests):
/// equal bytes and equal sums on every width and pixel size.
enum FilterChoice {
    /// Lanes per step.
    static let lanes = 16
    typealias Bytes = SIMD16<UInt8>
    typealias Wide = SIMD16<Int16>

    /// Filters `raw` with each of the five filters into `candidates` (five slots of
    /// `count + 1` bytes, each behind its filter-type byte) and returns the type whose sum of
    /// magnitudes is least, ties to the lower type: §12.7's heuristic.
    static func leastSum(raw: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>, count: Int, bpp: Int,
                         candidates: UnsafeMutablePointer<UInt8>) -> Int {
        var best = 0, bestSum = Int.max
        for type in 0 ..< 5 {
            let slot = candidates + type * (count + 1)
            slot[0] = UInt8(type)
            let sum = filter(UInt8(type), raw: raw, previous: previous, output: slot + 1, count: count, bpp: bpp)
            if sum < bestSum {
                best = type
                bestSum = sum
            }
        }
        return best
    }

    /// `ScanlineFilter.filter`'s result, vectorised: filters `raw[0 ..< count]` by `type`
    /// into `output` and returns the sum of the filtered bytes' magnitudes.
    static func filter(_ type: UInt8, raw: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>,
                       output: UnsafeMutablePointer<UInt8>, count: Int, bpp: Int) -> Int {
        // The first pixel has no left neighbour; the plain filter takes it and the tail.
        let lead = min(bpp, count)
        var sum = ScanlineFilter.filter(type, raw: raw, previous: previous, output: output, count: lead, bpp: bpp)
        var i = lead
        // Magnitudes are at most 128: sixteen-bit lanes hold 256 steps' worth (32,768 each),
        // then go into `sum`.
        var sums = SIMD16<UInt16>(), steps = 0
        @inline(__always) func add(_ v: Bytes) {
            sums &+= widen(magnitude(v), to: UInt16.self)
            steps += 1
            if steps == 256 {
                sum += total(sums)
                sums = SIMD16<UInt16>()
                steps = 0
            }
        }
        switch type {
        case 0:
            while i + lanes <= count {
                let x = load(raw, i)
                store(x, output, i)
                add(x)
                i += lanes
            }
        case 1:
            while i + lanes <= count {
                let v = load(raw, i) &- load(raw, i - bpp)
                store(v, output, i)
                add(v)
                i += lanes
            }
        case 2:
            while i + lanes <= count {
                let v = load(raw, i) &- load(previous, i)
                store(v, output, i)
                add(v)
                i += lanes
            }
        case 3:
            while i + lanes <= count {
                let a = load(raw, i - bpp), b = load(previous, i)
                // ⌊(a + b) / 2⌋ without leaving eight bits.
                let v = load(raw, i) &- ((a & b) &+ ((a ^ b) &>> 1))
                store(v, output, i)
                add(v)
                i += lanes
            }
        default:
            while i + lanes <= count {
                let a = widen(load(raw, i - bpp), to: Int16.self), b = widen(load(previous, i), to: Int16.self)
                let c = widen(load(previous, i - bpp), to: Int16.self)
                // §9.4 with p = a + b − c: pa = |b − c|, pb = |a − c|, pc = |a + b − 2c|.
                let pa = absolute(b &- c), pb = absolute(a &- c), pc = absolute(a &+ b &- c &- c)
                let predictor = c.replacing(with: b, where: pb .<= pc).replacing(with: a, where: (pa .<= pb) .& (pa .<= pc))
                let v = load(raw, i) &- narrow(predictor)
                store(v, output, i)
                add(v)
                i += lanes
            }
        }
        sum += total(sums)
        // The tail, fewer than 16 bytes, one at a time.
        while i < count {
            let value = ScanlineFilter.filtered(type, raw[i], a: raw[i - bpp], b: previous[i], c: previous[i - bpp])
            output[i] = value
            sum += Int(ScanlineFilter.magnitude(value))
            i += 1
        }
        return sum
    }

    // Lane conversions written lane by lane: the standard library's generic
    // `init(truncatingIfNeeded:)` between vector types was left as a call that converts one
    // lane at a time; spelled out and inlined, each is one unpack or pack.
    @inline(__always)
    private static func widen<Lane: FixedWidthInteger & SIMDScalar>(_ v: Bytes, to: Lane.Type) -> SIMD16<Lane> {
        var wide = SIMD16<Lane>()
        for lane in 0 ..< lanes { wide[lane] = Lane(truncatingIfNeeded: v[lane]) }
        return wide
    }

    @inline(__always)
    private static func narrow(_ v: Wide) -> Bytes {
        var bytes = Bytes()
        for lane in 0 ..< lanes { bytes[lane] = UInt8(truncatingIfNeeded: v[lane]) }
        return bytes
    }

    /// The lanes' sum (at most 16 × 65,535).
    @inline(__always)
    private static func total(_ sums: SIMD16<UInt16>) -> Int {
        var sum = 0
        for lane in 0 ..< lanes { sum += Int(sums[lane]) }
        return sum
    }

    // SAFETY (load, store): every caller's loop runs while i + 16 ≤ count with i ≥ bpp, so
    // bytes i − bpp ..< i + 16 lie inside the rows of `count` bytes.
    @inline(__always)
    private static func load(_ row: UnsafePointer<UInt8>, _ at: Int) -> Bytes {
        UnsafeRawPointer(row + at).loadUnaligned(as: Bytes.self)
    }

    @inline(__always)
    private static func store(_ value: Bytes, _ row: UnsafeMutablePointer<UInt8>, _ at: Int) {
        UnsafeMutableRawPointer(row + at).storeBytes(of: value, as: Bytes.self)
    }

    @inline(__always)
    private static func magnitude(_ value: Bytes) -> Bytes { pointwiseMin(value, 0 &- value) }

    @inline(__always)
    private static func absolute(_ value: Wide) -> Wide {
        let sign = value &>> 15
        return (value ^ sign) &- sign
    }
}
