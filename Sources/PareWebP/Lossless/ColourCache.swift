/// The colour cache (WebP Lossless Bitstream §5.2.3): the last colours seen, each stored at
/// the slot its multiplicative hash picks, so that a repeated colour costs one short symbol.
struct ColourCache {
    var entries: [UInt32]
    let shift: UInt32

    /// A cache of 2^`bits` slots (1…11), all zero.
    init(bits: Int) {
        entries = [UInt32](repeating: 0, count: 1 << bits)
        shift = UInt32(32 - bits)
    }

    /// §5.2.3: `(0x1e35a7bd * color) >> (32 - cache_bits)`.
    @inline(__always)
    static func slot(_ argb: UInt32, shift: UInt32) -> Int {
        Int((argb &* 0x1E35_A7BD) >> shift)
    }
}
