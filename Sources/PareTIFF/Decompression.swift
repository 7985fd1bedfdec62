import PareCore

/// What a decompressor made of one strip or tile: the bytes it wrote (never more than the
/// output it was given, so no stream can make more than the segment's size: the bound on
/// a decompression bomb) and, when it stopped early, why.
struct Decompressed {
    var produced: Int
    /// Why the output is not full: the data ended, or was refused (the reason).
    var damage: Damage?

    enum Damage {
        case ended
        case refused(MessageText)
    }
}

/// TIFF 6.0 §10 FillOrder 2: the compressed bytes' bits run from the least significant.
/// Every codec reads the most significant first, so such data is reversed first, as a byte table.
enum FillOrder {
    static let reversed: [UInt8] = (0 ..< 256).map { (value: Int) -> UInt8 in
        var v = value, r = 0
        for _ in 0 ..< 8 {
            r = r << 1 | v & 1
            v >>= 1
        }
        return UInt8(r)
    }

    static func reverse(_ bytes: UnsafeMutableRawBufferPointer) {
        for i in 0 ..< bytes.count { bytes[i] = reversed[Int(bytes[i])] }
    }
}

/// No compression (TIFF 6.0 §3, value 1): the bytes are the samples; a short strip is the
/// file cut off.
enum Uncompressed {
    static func copy(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Decompressed {
        let n = min(input.count, output.count)
        if n > 0 { output.baseAddress!.copyMemory(from: input.baseAddress!, byteCount: n) }
        return Decompressed(produced: n, damage: n < output.count ? .ended : nil)
    }
}
