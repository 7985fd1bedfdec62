/// No compression (TIFF 6.0 §3, value 1): the bytes are the samples; a short strip is the
/// file cut off.
enum Uncompressed {
    static func copy(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Decompressed {
        // SAFETY: n bytes fit both buffers (the smaller of their sizes).
        let n = min(input.count, output.count)
        if n > 0 { output.baseAddress!.copyMemory(from: input.baseAddress!, byteCount: n) }
        return Decompressed(produced: n, damage: n < output.count ? .ended : nil)
    }
}
