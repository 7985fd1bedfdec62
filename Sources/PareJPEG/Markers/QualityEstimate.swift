/// The IJG quality a JPEG's quantisation tables suggest, as ImageMagick's `identify` and
/// JPEGsnoop estimate it.
///
/// The IJG encoder (`cjpeg -quality Q`) scales the example tables of T.81 Annex K (Tables K.1
/// and K.2) by S = 5000/Q for Q < 50 and S = 200 − 2Q above, each entry becoming
/// ⌊(T·S + 50)/100⌋ limited to 1…255. The estimate compares two figures of the file's tables
/// with the same figures of the scaled tables for Q = 1…100: the sum of every entry of every
/// table, and a "hash" of four entries that move most with Q (natural positions 2 and 53 of
/// table 0, 0 and 63 of table 1; 2 and 53 only when there is one table). Going up from Q = 1,
/// the first Q whose figures are not both larger than the file's is the estimate; it is
/// called exact when both of the file's figures are at most that Q's. Below Q = 51 an inexact
/// match gives no estimate at all (the tables are not IJG-like).
@_spi(Explain)
public enum JPEGQualityEstimate {
    /// The quantisation tables in force when the first scan starts, by destination 0…3: the
    /// ones a decoder (and ImageMagick, which reads the headers only) sees.
    public static func tablesInForce(_ structure: JPEGStructure) -> [[Int]?] {
        var tables: [[Int]?] = [nil, nil, nil, nil]
        for marker in structure.markers {
            if case .scan = marker.content { break }
            if case .quantizationTables(let list) = marker.content {
                for table in list where table.id < 4 { tables[table.id] = table.values.map { Int($0) } }
            }
        }
        return tables
    }

    public struct Estimate: Sendable, Equatable {
        /// 1…100, nil when the tables are too far from IJG's for an estimate.
        public var quality: Int?
        /// Both figures at most those of the quality found.
        public var exact: Bool
        /// The file's tables equal IJG's scaled tables for `quality`, entry for entry.
        public var identical: Bool
    }

    /// `tables`: the quantisation tables in force at the first scan, by destination 0…3 (nil
    /// where none is defined), natural order.
    public static func estimate(_ tables: [[Int]?]) -> Estimate? {
        guard let first = tables.first ?? nil else { return nil }
        let second = tables.count > 1 ? tables[1] : nil
        let sum = tables.compactMap { $0 }.reduce(0) { $0 + $1.reduce(0, +) }
        let hash: Int
        if let second {
            hash = first[2] + first[53] + second[0] + second[63]
        } else {
            hash = first[2] + first[53]
        }
        for q in 1 ... 100 {
            let lum = scaled(IJGQuality.luminance, quality: q)
            let refHash: Int, refSum: Int
            if second != nil {
                let chroma = scaled(IJGQuality.chrominance, quality: q)
                refHash = lum[2] + lum[53] + chroma[0] + chroma[63]
                refSum = lum.reduce(0, +) + chroma.reduce(0, +)
            } else {
                refHash = lum[2] + lum[53]
                refSum = lum.reduce(0, +)
            }
            if hash < refHash && sum < refSum { continue }
            let exact = hash <= refHash && sum <= refSum
            guard exact || q > 50 else { return Estimate(quality: nil, exact: false, identical: false) }
            var identical = first == lum
            if let second { identical = identical && second == scaled(IJGQuality.chrominance, quality: q) }
            return Estimate(quality: q, exact: exact, identical: identical)
        }
        return Estimate(quality: nil, exact: false, identical: false)
    }

    /// `IJGQuality.scaled` for baseline files, as the figures above compare them.
    static func scaled(_ table: [UInt16], quality q: Int) -> [Int] {
        IJGQuality.scaled(table, quality: q).map { Int($0) }
    }
}
