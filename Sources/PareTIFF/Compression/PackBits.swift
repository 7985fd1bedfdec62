/// PackBits (TIFF 6.0 §9): a signed count byte n, then n+1 literal bytes (0…127), or one
/// byte repeated 1−n times (−1…−127); −128 is a no-op.
enum PackBits {
    static func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Decompressed {
        var i = 0, o = 0
        // SAFETY: every read is at i < input.count and every write at o < output.count, each
        // checked (runs are cut to both `available` and the output's room) before the access.
        while o < output.count {
            guard i < input.count else { return Decompressed(produced: o, damage: .ended) }
            let n = Int(Int8(bitPattern: input[i]))
            i += 1
            if n >= 0 {
                let run = n + 1
                let available = min(run, input.count - i, output.count - o)
                for k in 0 ..< available { output[o + k] = input[i + k] }
                o += available
                i += available
                if available < run && o < output.count { return Decompressed(produced: o, damage: .ended) }
            } else if n != -128 {
                guard i < input.count else { return Decompressed(produced: o, damage: .ended) }
                let byte = input[i]
                i += 1
                let run = min(1 - n, output.count - o)
                for k in 0 ..< run { output[o + k] = byte }
                o += run
            }
        }
        return Decompressed(produced: o, damage: nil)
    }
}
