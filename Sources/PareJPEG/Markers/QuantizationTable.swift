import PareCore

/// Quantisation tables (T.81 B.2.4.1, Figure B.6): 64 values, 8- or 16-bit, sent in zig-zag
/// order and kept here in natural (row-major) order, ready to be fused into the inverse DCT.
struct QuantizationTable: Sendable {
    /// Q[u + 8·v] in natural order.
    var values: [UInt16]
    /// Pq = 1: the table was sent with 16-bit values (allowed only for 12-bit frames).
    var sixteenBit = false

    /// Every table a DQT segment defines, handed to `each` with its destination in the
    /// segment's order (as they come: no array of them is made).
    static func parse(_ bytes: [UInt8], offset: Int,
                      _ each: (_ id: Int, _ table: QuantizationTable) -> Void) throws(JPEGError) {
        var index = 0
        let order = ZigZag.naturalOrder
        while index < bytes.count {
            let precision = Int(bytes[index] >> 4), id = Int(bytes[index] & 15)
            guard precision <= 1, id <= 3 else {
                throw .invalidSegment(marker: Marker.dqt, offset: offset,
                                      reason: "table \(id) with precision code \(precision)")
            }
            let size = precision == 0 ? 64 : 128
            guard bytes.count - index - 1 >= size else {
                throw .invalidSegment(marker: Marker.dqt, offset: offset, reason: "table \(id) is cut short")
            }
            var values = [UInt16](repeating: 0, count: 64)
            for k in 0 ..< 64 {
                let value = precision == 0
                    ? UInt16(bytes[index + 1 + k])
                    : UInt16(bytes[index + 1 + 2 * k]) << 8 | UInt16(bytes[index + 2 + 2 * k])
                values[order[k]] = value
            }
            each(id, QuantizationTable(values: values, sixteenBit: precision == 1))
            index += 1 + size
        }
    }
}

/// The zig-zag sequence of T.81 Figure A.6: coefficient k of a block in coding order sits at
/// natural index `naturalOrder[k]`.
enum ZigZag {
    static let naturalOrder: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]
}
