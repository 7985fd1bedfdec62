/// Chroma upsampling: bringing a subsampled component (T.81 A.1.1) back to the output
/// resolution. T.81 leaves the filter to the decoder; these are the filters libjpeg calls
/// "fancy upsampling", so that Pare's output agrees with `djpeg`: each output sample is a
/// triangular (linear) interpolation of the two nearest input samples, weighted 3/4 and 1/4,
/// with the rounding biases alternating between neighbouring outputs so that errors do not
/// accumulate in one direction. Edges repeat the outermost sample. Other ratios replicate.
enum Upsampler {
    /// 2:1 horizontally: out[2i] = (3·in[i] + in[i−1] + 1) / 4, out[2i+1] = (3·in[i] + in[i+1] + 2) / 4.
    /// Writes 2·width samples.
    static func fancyH2V1(_ input: UnsafePointer<UInt8>, width: Int, output: UnsafeMutablePointer<UInt8>) {
        if width == 1 {
            output[0] = input[0]
            output[1] = input[0]
            return
        }
        output[0] = input[0]
        output[1] = UInt8(truncatingIfNeeded: (Int(input[0]) * 3 + Int(input[1]) + 2) >> 2)
        var i = 1
        while i < width - 1 {
            let here = Int(input[i]) * 3
            output[2 * i] = UInt8(truncatingIfNeeded: (here + Int(input[i - 1]) + 1) >> 2)
            output[2 * i + 1] = UInt8(truncatingIfNeeded: (here + Int(input[i + 1]) + 2) >> 2)
            i += 1
        }
        output[2 * i] = UInt8(truncatingIfNeeded: (Int(input[i]) * 3 + Int(input[i - 1]) + 1) >> 2)
        output[2 * i + 1] = input[i]
    }

    /// 2:1 vertically, one output row from the nearer input row and the farther one (above
    /// for the upper output row, bias 1; below for the lower, bias 2). Writes width samples.
    static func fancyH1V2(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, width: Int, lower: Bool,
                          output: UnsafeMutablePointer<UInt8>) {
        let bias = lower ? 2 : 1
        for i in 0 ..< width {
            output[i] = UInt8(truncatingIfNeeded: (Int(near[i]) * 3 + Int(far[i]) + bias) >> 2)
        }
    }

    /// 2:1 both ways, one output row: vertical sums 3·near + far, then horizontally
    /// (3·this + neighbour + 8) / 16 for even outputs and + 7 for odd ones. Writes 2·width
    /// samples. Eight inputs at a time in 16-bit lanes, each output pair stored as one 16-bit
    /// word; the plain loop (`fancyH2V2Plain`, the oracle) does the edges.
    static func fancyH2V2(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, width: Int,
                          output: UnsafeMutablePointer<UInt8>) {
        #if hasFeature(Embedded)
        // Small cores have no vector unit: the lane form only adds code there.
        fancyH2V2Plain(near: near, far: far, width: width, output: output)
        #else
        guard width >= 10 else {
            fancyH2V2Plain(near: near, far: far, width: width, output: output)
            return
        }
        @inline(__always) func columnSum(_ i: Int) -> ShortLanes.Short {
            ShortLanes.load(near + i) &* 3 &+ ShortLanes.load(far + i)
        }
        fancyH2V2Plain(near: near, far: far, width: width, output: output, only: 0 ... 0)
        var i = 1
        // SAFETY: each step reads inputs i − 1 ... i + 8 and writes outputs 2i ..< 2i + 16;
        // i + 9 ≤ width keeps both in the rows.
        while i + 9 <= width {
            let this = columnSum(i) &* 3, left = columnSum(i - 1), right = columnSum(i + 1)
            let even = (this &+ left &+ 8) &>> 4, odd = (this &+ right &+ 7) &>> 4
            // Little-endian 16-bit words: the even output, then the odd one.
            UnsafeMutableRawPointer(output + 2 * i).storeBytes(of: even | odd &<< 8, as: ShortLanes.Short.self)
            i += 8
        }
        fancyH2V2Plain(near: near, far: far, width: width, output: output, only: i ... width - 1)
        #endif
    }

    /// The plain 2:1 both-ways filter over the whole row: the oracle of `fancyH2V2`.
    static func fancyH2V2Plain(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, width: Int,
                               output: UnsafeMutablePointer<UInt8>) {
        fancyH2V2Plain(near: near, far: far, width: width, output: output, only: 0 ... width - 1)
    }

    /// The plain filter for inputs `only` (output pairs 2i, 2i + 1), edges included.
    static func fancyH2V2Plain(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, width: Int,
                               output: UnsafeMutablePointer<UInt8>, only: ClosedRange<Int>) {
        @inline(__always) func columnSum(_ i: Int) -> Int { Int(near[i]) * 3 + Int(far[i]) }
        for i in only {
            let this = columnSum(i)
            let left = i == 0 ? this : columnSum(i - 1), right = i == width - 1 ? this : columnSum(i + 1)
            output[2 * i] = UInt8(truncatingIfNeeded: (this * 3 + left + 8) >> 4)
            output[2 * i + 1] = UInt8(truncatingIfNeeded: (this * 3 + right + 7) >> 4)
        }
    }

    /// Repeats each of `width` samples `factor` times, stopping after `count` outputs.
    static func replicate(_ input: UnsafePointer<UInt8>, width: Int, factor: Int, count: Int,
                          output: UnsafeMutablePointer<UInt8>) {
        if factor == 1 {
            output.update(from: input, count: min(width, count))
            return
        }
        var o = 0
        for i in 0 ..< width {
            let value = input[i]
            for _ in 0 ..< factor where o < count {
                output[o] = value
                o += 1
            }
        }
    }
}
