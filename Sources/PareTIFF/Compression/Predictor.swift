import PareCore

/// Horizontal differencing (TIFF 6.0 §14, Predictor 2): each sample is stored as its
/// difference from the same sample of the pixel to its left, modulo 2^BitsPerSample, row by
/// row. Undone in place on a decompressed segment, 8- or 16-bit samples (16-bit ones in
/// the file's byte order).
enum HorizontalPredictor {
    /// Undoes the differencing on `rows` rows of `rowBytes` bytes, `samples` interleaved
    /// samples a pixel.
    static func undo(_ data: UnsafeMutableRawBufferPointer, rows: Int, rowBytes: Int, samples: Int,
                     bitsPerSample: Int, byteOrder: ByteOrder) {
        guard rows > 0, rowBytes > 0, rows * rowBytes <= data.count else { return }
        // SAFETY: every index is row + i with i < rowBytes (i + 1 < rowBytes for 16-bit
        // samples) and row ≤ (rows − 1) × rowBytes, inside `data` by the guard above.
        if bitsPerSample == 8 {
            for r in 0 ..< rows {
                let row = r * rowBytes
                var i = samples
                while i < rowBytes {
                    data[row + i] = data[row + i] &+ data[row + i - samples]
                    i += 1
                }
            }
            return
        }
        let big = byteOrder == .bigEndian
        func load(_ at: Int) -> UInt16 {
            big ? UInt16(data[at]) << 8 | UInt16(data[at + 1]) : UInt16(data[at + 1]) << 8 | UInt16(data[at])
        }
        func store(_ at: Int, _ v: UInt16) {
            data[at + (big ? 0 : 1)] = UInt8(v >> 8)
            data[at + (big ? 1 : 0)] = UInt8(truncatingIfNeeded: v)
        }
        let stride = 2 * samples
        for r in 0 ..< rows {
            let row = r * rowBytes
            var i = stride
            while i + 1 < rowBytes {
                store(row + i, load(row + i) &+ load(row + i - stride))
                i += 2
            }
        }
    }
}
