import PareCore

/// `SRGBConverter`'s conversion over rows, in integers: what a thumbnail runs on every
/// decoded pixel, before the resampler, so it is made of table lookups and a few adds.
///
/// - 8-bit RGB: the matrix is folded into the decoding tables. Entry v of channel c's
///   table holds column c of the matrix times the channel's linear light for v (its TRC,
///   ICC.1 10.6 and 10.18), one lane per output channel, × 2^22 in `Int32`: a pixel is
///   three loads and two vector adds, and a shift gives the encoding index. The products
///   are rounded once, in Double, when the table is made. `SRGBConverter` clips the matrix
///   to ±5, so a lane's sum stays below 3 × 5 · 2^22 < 2^31 for any input.
/// - 16-bit samples: linear light 0…1 as 0…2^15, interpolated in a 4,097-entry table per
///   channel (sample × 65537 / 2^32 is sample / 65535), then the matrix in `Int32`
///   (coefficients × 2^12, sums below 3 × 5·2^12 × 2^15 < 2^31).
/// - Encoding (IEC 61966-2-1): linear light, rounded to 2^14 steps and clipped to 0…1,
///   indexes a 16,385-entry table of 8-bit sRGB codes. A step near black is a fifth of a
///   code (sRGB's steepest slope is 12.92), so the table costs at most that against
///   encoding the exact value.
/// - 8-bit gray: decoding and encoding composed into one 256-entry table.
///
/// Output samples are 8-bit whatever the input's size; alpha is copied (16-bit alpha
/// rounded to 8 bits).
public struct SRGBRowConverter: Sendable {
    static let linearBits = 15
    static let coefficientBits = 12
    static let encodeBits = 14
    /// Entries of a 16-bit decoding table: 0…1 in 4,096 steps.
    static let wideEntries = 4097

    let model: SRGBConverter.Model
    /// 8 or 16.
    let sampleBits: Int
    /// Samples a pixel holds (1–4), set by `SRGBConverter.rows(for:)`.
    var channels: Int
    /// Per channel (1 for gray, 3 for RGB), one after another, `entries` each.
    let decode: [Int32]
    let entries: Int
    /// Row-major, × 2^coefficientBits.
    let coefficients: [Int32]
    /// 8-bit RGB: per channel, 256 entries of the matrix column times linear light, lanes
    /// R, G, B (and 0), × 2^(encodeBits + columnShift); channel 0's hold the rounding too.
    let columns: [SIMD4<Int32>]
    static let columnShift = 8
    /// Linear light in 2^encodeBits steps (and one more for 1.0) to the sRGB code.
    let encode: [UInt8]
    /// 8-bit gray: the code for each code.
    let gray8: [UInt8]
    /// A LUT profile's chain (`LUTRowConverter`), which then does all the work.
    var lut: LUTRowConverter?

    /// Bytes the conversion allocates when its first row arrives (a CMYK profile's resampled
    /// grid, `CMYKCodeGrid`), beyond the tables made with it.
    public var workingBytes: Int { lut?.usesGrid == true ? CMYKCodeGrid.bytes : 0 }

    /// Samples a converted pixel holds: `channels`, except that CMYK becomes RGB.
    var outputChannels: Int { lut?.outputChannels ?? channels }

    /// The rows of a LUT profile.
    init(lut: LUTRowConverter, model: SRGBConverter.Model) {
        self.model = model
        sampleBits = lut.sampleBits
        channels = lut.channels
        decode = []
        entries = 0
        coefficients = []
        columns = []
        encode = []
        gray8 = []
        self.lut = lut
    }

    init(model: SRGBConverter.Model, curves: [ICCToneCurve], lightness: Bool, matrix: [Double], sampleBits: Int) {
        self.model = model
        self.sampleBits = sampleBits
        channels = model == .gray ? 1 : 3
        let wide = sampleBits == 16
        let entries = wide ? Self.wideEntries : 256
        let one = Double(1 << Self.linearBits)
        var decode: [Int32] = []
        decode.reserveCapacity(curves.count * entries)
        for curve in curves {
            for i in 0 ..< entries {
                // 16-bit: entry i stands for i / 4096 of full scale.
                let x = wide ? Double(i) / 4096 : Double(i) / 255
                let y = SRGBConverter.linear(curve.evaluate(x), lightness: lightness)
                decode.append(Int32(min(max(y, 0), 1) * one + 0.5))
            }
        }
        self.decode = decode
        self.entries = entries
        let scale = Double(1 << Self.coefficientBits)
        coefficients = matrix.map { Int32(($0 * scale).rounded()) }
        let encode = Self.encodeTable()
        self.encode = encode
        if model == .gray && !wide {
            gray8 = (0 ..< 256).map { encode[Self.grayIndex(decode[$0])] }
        } else {
            gray8 = []
        }
        var columns: [SIMD4<Int32>] = []
        if model == .rgb && !wide {
            let columnScale = Double(1 << (Self.encodeBits + Self.columnShift))
            let half = Double(1 << (Self.columnShift - 1))
            columns.reserveCapacity(3 * 256)
            for c in 0 ..< 3 {
                for v in 0 ..< 256 {
                    let y = min(max(SRGBConverter.linear(curves[c].evaluate(Double(v) / 255), lightness: lightness), 0), 1)
                    func lane(_ row: Int) -> Int32 {
                        Int32((matrix[3 * row + c] * y * columnScale + (c == 0 ? half : 0)).rounded(.down))
                    }
                    columns.append(SIMD4(lane(0), lane(1), lane(2), 0))
                }
            }
        }
        self.columns = columns
    }

    /// Code c (1…255) begins at the first step whose linear light encodes to at least
    /// c − ½: each entry is the rounded code of its step's value, found with 255 powers
    /// rather than one per entry.
    static func encodeTable() -> [UInt8] {
        let steps = 1 << encodeBits
        var table = [UInt8](repeating: 255, count: steps + 1)
        var start = 0
        for code in 1 ... 255 {
            let threshold = SRGBCurve.decode((Double(code) - 0.5) / 255) * Double(steps)
            let begin = min(max(Int(threshold.rounded(.up)), start), steps + 1)
            for i in start ..< begin { table[i] = UInt8(code - 1) }
            start = begin
        }
        return table
    }

    /// The encoding table's index for a matrix sum (scale 2^(linearBits + coefficientBits)).
    @inline(__always)
    static func index(_ sum: Int32) -> Int {
        let shift = Int32(linearBits + coefficientBits - encodeBits)
        let i = (sum &+ (1 << (shift - 1))) >> shift
        return Int(min(max(i, 0), 1 << encodeBits))
    }

    /// The encoding table's index for linear light (scale 2^linearBits), 0…2^15.
    @inline(__always)
    static func grayIndex(_ linear: Int32) -> Int {
        let shift = Int32(linearBits - encodeBits)
        return Int(min(max((linear &+ (1 << (shift - 1))) >> shift, 0), 1 << encodeBits))
    }

    /// Converts `width` pixels of `source` into `destination` (8-bit samples, the same
    /// channels). Stops early rather than read or write past either buffer.
    public mutating func convert(_ source: UnsafeBufferPointer<UInt8>, into destination: UnsafeMutableBufferPointer<UInt8>,
                                 width: Int) {
        let inBytes = channels * sampleBits / 8
        let width = min(width, source.count / inBytes, destination.count / outputChannels)
        guard width > 0, let s = source.baseAddress, let d = destination.baseAddress else { return }
        if lut != nil {
            lut!.convert(s, d, width)
        } else if sampleBits == 16 {
            convert16(s, d, width)
        } else if model == .gray {
            convertGray8(s, d, width)
        } else {
            convertRGB8(s, d, width)
        }
    }

    private func convertGray8(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ width: Int) {
        gray8.withUnsafeBufferPointer { table in
            // SAFETY: i < width · channels, within both rows (checked by `convert`); the
            // table has 256 entries, indexed by a byte.
            for x in 0 ..< width {
                let i = x * channels
                d[i] = table[Int(s[i])]
                if channels == 2 { d[i + 1] = s[i + 1] }
            }
        }
    }

    private func convertRGB8(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ width: Int) {
        columns.withUnsafeBufferPointer { t in
            encode.withUnsafeBufferPointer { e in
                if channels == 4 {
                    // SAFETY: as below, four samples a pixel; alpha is copied.
                    for x in 0 ..< width {
                        let p = 4 * x
                        Self.pixel(s + p, d + p, t, e)
                        d[p + 3] = s[p + 3]
                    }
                } else {
                    // SAFETY: pixel x's samples lie within both rows for x < width (checked by
                    // `convert`); column indices are a byte plus 0, 256 or 512 (768 entries);
                    // encoding indices are 0…2^14 (2^14 + 1 entries), checked or clipped.
                    for x in 0 ..< width {
                        let p = 3 * x
                        Self.pixel(s + p, d + p, t, e)
                    }
                }
            }
        }
    }

    /// One 8-bit RGB pixel: three column loads, two adds, the shift to encoding indices.
    /// Most pixels are in gamut, all three indices in 0 ..< 2^14 (their OR is then below
    /// 2^14, negatives having the sign bit), and need no clipping.
    @inline(__always)
    private static func pixel(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>,
                              _ t: UnsafeBufferPointer<SIMD4<Int32>>, _ e: UnsafeBufferPointer<UInt8>) {
        let sum = t[Int(s[0])] &+ t[256 + Int(s[1])] &+ t[512 + Int(s[2])]
        let i = sum &>> Int32(columnShift)
        let r = i[0], g = i[1], b = i[2]
        if UInt32(bitPattern: r | g | b) < 1 << encodeBits {
            d[0] = e[Int(r)]
            d[1] = e[Int(g)]
            d[2] = e[Int(b)]
        } else {
            let top: Int32 = 1 << encodeBits
            d[0] = e[Int(min(max(r, 0), top))]
            d[1] = e[Int(min(max(g, 0), top))]
            d[2] = e[Int(min(max(b, 0), top))]
        }
    }

    /// 16-bit big-endian samples: interpolated decoding, then the 8-bit path's arithmetic.
    private func convert16(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ width: Int) {
        let colours = model == .gray ? 1 : 3
        decode.withUnsafeBufferPointer { t in
            encode.withUnsafeBufferPointer { e in
                // SAFETY: pixel x's samples lie within both rows for x < width (checked by
                // `convert`); a decoding index is k + 1 ≤ 4096 within a channel's 4,097
                // entries; encoding indices come from `index`/`grayIndex`, 0…2^14.
                for x in 0 ..< width {
                    var linear: (Int32, Int32, Int32) = (0, 0, 0)
                    for c in 0 ..< colours {
                        let at = 2 * (x * channels + c)
                        let sample = UInt32(s[at]) << 8 | UInt32(s[at + 1])
                        // sample / 65535 in 20 bits of fraction: 12 of index, 8 of weight.
                        let position = (sample &* 65537) >> 12
                        let k = c * Self.wideEntries + Int(position >> 8), weight = Int32(position & 255)
                        let value = t[k] &+ ((t[k + 1] &- t[k]) &* weight) >> 8
                        if c == 0 { linear.0 = value } else if c == 1 { linear.1 = value } else { linear.2 = value }
                    }
                    let o = x * channels
                    if colours == 1 {
                        d[o] = e[Self.grayIndex(linear.0)]
                    } else {
                        let (r, g, b) = linear
                        d[o] = e[Self.index(coefficients[0] &* r &+ coefficients[1] &* g &+ coefficients[2] &* b)]
                        d[o + 1] = e[Self.index(coefficients[3] &* r &+ coefficients[4] &* g &+ coefficients[5] &* b)]
                        d[o + 2] = e[Self.index(coefficients[6] &* r &+ coefficients[7] &* g &+ coefficients[8] &* b)]
                    }
                    if channels == 2 || channels == 4 {
                        // Alpha to 8 bits, rounded (v / 257).
                        let at = 2 * (x * channels + colours)
                        let alpha = UInt32(s[at]) << 8 | UInt32(s[at + 1])
                        d[o + colours] = UInt8((alpha &* 255 &+ 32767) / 65535)
                    }
                }
            }
        }
    }
}
