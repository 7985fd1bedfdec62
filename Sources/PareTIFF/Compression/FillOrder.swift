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
        // SAFETY: i < bytes.count; the table has 256 entries, one per byte value.
        for i in 0 ..< bytes.count { bytes[i] = reversed[Int(bytes[i])] }
    }
}
