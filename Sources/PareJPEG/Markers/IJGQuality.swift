/// The example quantisation tables of T.81 Annex K (Tables K.1 and K.2) and the way the IJG
/// encoder (`cjpeg -quality Q`) scales them for a quality Q: the encoder writes these tables,
/// and the quality estimate compares a file's tables with them.
enum IJGQuality {
    /// T.81 Table K.1, luminance, natural (row-major) order.
    static let luminance: [UInt16] = [
        16, 11, 10, 16, 24, 40, 51, 61,
        12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56,
        14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77,
        24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101,
        72, 92, 95, 98, 112, 100, 103, 99,
    ]

    /// T.81 Table K.2, chrominance, natural order: the table is 99 outside its top-left 4×4
    /// corner, which `chrominanceCorner` holds.
    static let chrominance: [UInt16] = (0 ..< 64).map { index in
        let row = index / 8, column = index % 8
        return row < 4 && column < 4 ? chrominanceCorner[row * 4 + column] : 99
    }

    /// Rows 0…3, columns 0…3 of Table K.2.
    private static let chrominanceCorner: [UInt16] = [
        17, 18, 24, 47,
        18, 21, 26, 66,
        24, 26, 56, 99,
        47, 66, 99, 99,
    ]

    /// The percentage a quality 1…100 scales the tables by: 5000 / Q below 50, 200 − 2Q from
    /// 50 (so 50 is the tables themselves and 100 is all ones). Qualities outside 1…100 are
    /// taken as the nearest end.
    static func scale(quality: Int) -> Int {
        let q = min(max(quality, 1), 100)
        return q < 50 ? 5000 / q : 200 - 2 * q
    }

    /// A base table scaled: ⌊(value × scale + 50) / 100⌋, at least 1 and at most `ceiling`
    /// (255 for the 8-bit entries of a baseline file, T.81 B.2.4.1; 32,767 for 16-bit ones).
    static func scaled(_ base: [UInt16], quality: Int, ceiling: Int = 255) -> [UInt16] {
        let factor = scale(quality: quality)
        return base.map { UInt16(min(max((Int($0) * factor + 50) / 100, 1), ceiling)) }
    }
}
