/// The reconstruction filters the resampler offers. Each is a kernel k(t) over the distance
/// t between an output sample's centre and an input pixel's centre, measured in input pixels
/// and divided by the stretch max(1, input/output): when shrinking, the kernel widens with
/// the scale factor so that it averages every input pixel it covers (no aliasing); when
/// enlarging, it keeps its own width and interpolates. Weights along a line are normalised
/// to sum to one.
public enum ResamplingFilter: Sendable {
    /// Lanczos, a = 3: k(t) = sinc(t)·sinc(t/3) for |t| < 3, else 0, with
    /// sinc(t) = sin(πt)/(πt). Support 3 (six input pixels at 1:1). Sharp, with a slight
    /// ringing on hard edges; the default for thumbnails.
    case lanczos3
    /// The tent (bilinear when enlarging): k(t) = max(0, 1 − |t|). Support 1.
    case triangle
    /// The box average: each output pixel is the exact mean of the input area it covers,
    /// with input pixels cut by the output cell's edges weighted by the fraction covered.
    /// Support ½ output cell. Not expressed as a kernel: the weights are the overlaps.
    case area

    /// The kernel's radius in units of the (stretched) kernel: k(t) = 0 for |t| ≥ support.
    var support: Double {
        switch self {
        case .lanczos3: return 3
        case .triangle: return 1
        case .area: return 0.5
        }
    }

    /// k(t) for the kernel filters (`area` uses coverage instead, see `ResamplingAxis`).
    func kernel(_ t: Double) -> Double {
        let d = t < 0 ? -t : t
        switch self {
        case .lanczos3:
            if d >= 3 { return 0 }
            if d < 1e-9 { return 1 }
            // sinc(d)·sinc(d/3) = 3·sin(πd)·sin(πd/3) / (πd)², with sin(πd) = sin(3·πd/3)
            // = s·(3 − 4s²) for s = sin(πd/3): one sine instead of two.
            let pd = Double.pi * d
            let s = sinPi(d / 3)
            return 3 * s * (3 - 4 * s * s) * s / (pd * pd)
        case .triangle:
            return d >= 1 ? 0 : 1 - d
        case .area:
            return d >= 0.5 ? 0 : 1
        }
    }
}

/// sin(πx), without a C maths library (PareCore must build for bare-metal targets). The
/// argument is reduced to [−½, ½], where a Taylor series to the 17th power is accurate to
/// about 1e−13; integers give exactly 0, so Lanczos weights at 1:1 are exactly 1 and 0.
/// The series is evaluated by Horner's rule in t² with the coefficients (−1)^k/(2k+1)!
/// folded at compile time: no division at run time (every resampler weight takes two of these).
func sinPi(_ x: Double) -> Double {
    var r = x - 2 * (x / 2).rounded()          // r ∈ [−1, 1], sin(πr) = sin(πx)
    if r > 0.5 { r = 1 - r } else if r < -0.5 { r = -1 - r }
    let t = Double.pi * r
    let t2 = t * t
    var p = 1.0 / 355_687_428_096_000          // 1/17!
    p = p * t2 - 1.0 / 1_307_674_368_000       // 1/15!
    p = p * t2 + 1.0 / 6_227_020_800           // 1/13!
    p = p * t2 - 1.0 / 39_916_800              // 1/11!
    p = p * t2 + 1.0 / 362_880                 // 1/9!
    p = p * t2 - 1.0 / 5040                    // 1/7!
    p = p * t2 + 1.0 / 120                     // 1/5!
    p = p * t2 - 1.0 / 6                       // 1/3!
    return t + t * t2 * p
}

/// One axis of a resize: which input pixels feed output pixel `j`, and with what weight.
///
/// Output pixel j's centre lies at (j + ½)·scale + shift in input coordinates, scale =
/// input/output (`shift` is 0 but for `ResamplingShift`).
/// Taps outside the image are left out and the rest renormalised (the window is clamped to
/// the image), so a constant picture stays constant up to its edges. Windows are monotonic
/// in j: `window(j).first` and `.last` never decrease, which lets rows stream.
struct ResamplingAxis {
    let inputCount: Int
    let outputCount: Int
    let filter: ResamplingFilter
    /// Input pixels per output pixel.
    let scale: Double
    /// Half the window width in input pixels: support × max(1, scale).
    let radius: Double
    /// Input pixels every output's placement is moved by.
    let shift: Double

    /// `span`: the length the input's pixels stand for, in its pixels, when it is not
    /// `inputCount` (a box-shrunk input whose last box is partial, `BoxShrink`).
    init(inputCount: Int, outputCount: Int, filter: ResamplingFilter, shift: Double = 0, span: Double? = nil) {
        self.inputCount = inputCount
        self.outputCount = outputCount
        self.filter = filter
        self.shift = shift
        scale = (span ?? Double(inputCount)) / Double(outputCount)
        radius = filter.support * max(1, scale)
    }

    /// The first and last input pixel with a (possibly zero) weight for output `j`.
    func window(_ j: Int) -> (first: Int, last: Int) {
        let lo: Double, hi: Double
        if filter == .area {
            lo = (Double(j) * scale + shift).rounded(.down)
            hi = (Double(j + 1) * scale + shift).rounded(.up) - 1
        } else {
            let centre = (Double(j) + 0.5) * scale + shift
            lo = (centre - radius - 0.5).rounded(.up)
            hi = (centre + radius - 0.5).rounded(.down)
        }
        // Clamp in Double first: Int(Double) traps outside Int's range (32-bit targets).
        let last = Double(inputCount - 1)
        let first = Int(min(max(lo, 0), last))
        return (first, max(first, Int(min(max(hi, 0), last))))
    }

    /// The unnormalised weight of input pixel `x` in output `j`. For `area` it is the length
    /// of [x, x+1) ∩ [j·scale, (j+1)·scale).
    func weight(_ j: Int, _ x: Int) -> Double {
        if filter == .area {
            let lo = max(Double(x), Double(j) * scale + shift)
            let hi = min(Double(x + 1), Double(j + 1) * scale + shift)
            return hi > lo ? hi - lo : 0
        }
        let centre = (Double(j) + 0.5) * scale + shift
        return filter.kernel((Double(x) + 0.5 - centre) / max(1, scale))
    }

    /// The sum of output `j`'s unnormalised weights over its window (1 where it is not
    /// positive, so that a degenerate window passes zeros rather than dividing by zero).
    func weightSum(_ j: Int) -> Double {
        let w = window(j)
        var sum = 0.0
        for x in w.first ... w.last { sum += weight(j, x) }
        return sum > 0 ? sum : 1
    }

    /// The most taps any output pixel has.
    var maxTaps: Int {
        var most = 1
        for j in 0 ..< outputCount {
            let w = window(j)
            most = max(most, w.last - w.first + 1)
        }
        return most
    }

    /// A bound on how many outputs one input pixel can feed, and so on how many output rows
    /// are open at once while rows stream: the window spans 2·radius + 1 input pixels once
    /// rounded out to whole pixels, and outputs are `scale` apart. It depends only on the
    /// filter and the ratio (at most 9 for Lanczos3 when shrinking), never on the input size.
    var maxOutputsPerInput: Int { min(outputCount, outputsPerInputBound) }

    /// The same bound before it is limited to the number of outputs: a function of the filter
    /// and the ratio alone.
    var outputsPerInputBound: Int { outputsPerInputBound(rows: 1) }

    /// The same bound for `rows` consecutive input pixels taken together (an engine that adds
    /// input rows in pairs keeps open every output either row feeds).
    func outputsPerInputBound(rows: Int) -> Int {
        let span = (filter == .area ? 1 : 2 * radius + 1) + Double(rows - 1)
        return Int((span / scale).rounded(.down)) + 2
    }

    /// The outputs whose `area` cell overlaps input pixel `x` (interlaced accumulation).
    func outputsCovering(_ x: Int) -> (first: Int, last: Int) {
        let last = Double(outputCount - 1)
        let lo = (Double(x) / scale).rounded(.down)
        let hi = (Double(x + 1) / scale).rounded(.up) - 1
        let first = Int(min(max(lo, 0), last))
        return (first, max(first, Int(min(max(hi, 0), last))))
    }
}
