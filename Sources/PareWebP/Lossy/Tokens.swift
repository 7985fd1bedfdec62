/// The DCT/WHT coefficient tokens of RFC 6386 §13: per block, a tree of tokens (end of block,
/// zero, one, two… and the categories with extra bits), each read with the probability for
/// its block type, band (§13.3, by position) and context (the neighbours' "has coefficients").
/// Values are dequantised (§14.1) as they are stored, at their zigzag-order places.
enum Tokens {
    /// §13.3: the band of each coefficient position.
    static let bands: [Int] = [0, 1, 2, 3, 6, 4, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 0]
    /// §13.3 `zigzag`: the raster place of the n-th coefficient.
    static let zigzag: [Int] = [0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15]
    /// §13.2: the extra-bit probabilities of DCT_CAT3 … DCT_CAT6.
    static let category3: [UInt8] = [173, 148, 140]
    static let category4: [UInt8] = [176, 155, 140, 135]
    static let category5: [UInt8] = [180, 157, 141, 134, 130]
    static let category6: [UInt8] = [254, 254, 243, 230, 196, 177, 153, 140, 133, 130, 129]

    /// The block types of §13.3, the first index of the probability table.
    static var typeY16AC: Int { 0 }
    static var typeY2: Int { 1 }
    static var typeChroma: Int { 2 }
    static var typeY4: Int { 3 }
    /// One block type's probabilities: 8 bands × 3 contexts × 11 tree nodes.
    static var probabilitiesPerType: Int { 8 * 3 * 11 }

    /// §13.2: a token past ONE: TWO, THREE, FOUR, or a category's base plus its extra bits.
    @inline(__always)
    static func largeValue(_ br: inout BooleanDecoder, _ p: UnsafePointer<UInt8>) -> Int {
        if !br.bit(p[3]) {
            if !br.bit(p[4]) { return 2 }
            return 3 + (br.bit(p[5]) ? 1 : 0)
        }
        if !br.bit(p[6]) {
            if !br.bit(p[7]) { return 5 + (br.bit(159) ? 1 : 0) }
            return 7 + 2 * (br.bit(165) ? 1 : 0) + (br.bit(145) ? 1 : 0)
        }
        let high = br.bit(p[8]) ? 1 : 0
        let low = br.bit(p[9 + high]) ? 1 : 0
        let category = 2 * high + low
        let table = category == 0 ? category3 : category == 1 ? category4 : category == 2 ? category5 : category6
        var v = 0
        for probability in table { v = 2 * v + (br.bit(probability) ? 1 : 0) }
        return v + 3 + (8 << category)
    }

    /// Reads one block's tokens from position `first` (1 for luma blocks whose DC is in Y2)
    /// into `out`, multiplying by `dc` / `ac`. `probabilities` points at the block type's
    /// [band][context][node] table. Returns the position after the last token read before
    /// the end of block (16 when none ended it): the context its neighbours read.
    /// `bands` as offsets in a block type's table (band × 3 contexts × 11 nodes, with the
    /// sentinel for position 16), then `zigzag`: the 33 values `Residuals` keeps in a buffer,
    /// so that the token loop reads them without the checks of global arrays.
    static var positionTable: [Int] { bands.map { $0 * 33 } + zigzag }

    // SAFETY: `probabilities` is one block type's 8 × 3 × 11 table; band offsets stay below 8 × 33,
    // contexts below 3; `out` holds 16 coefficients and zigzag places are 0...15.
    @inline(__always)
    static func readBlock(_ br: inout BooleanDecoder, probabilities: UnsafePointer<UInt8>, context: Int,
                          first: Int, dc: Int32, ac: Int32, out: UnsafeMutablePointer<Int16>,
                          positions: UnsafePointer<Int>) -> Int {
        let bandOffset = positions, zigzag = positions + 17
        var n = first
        var p = probabilities + bandOffset[n] + context * 11
        while n < 16 {
            if !br.bit(p[0]) { return n }
            while !br.bit(p[1]) {
                n += 1
                if n == 16 { return 16 }
                p = probabilities + bandOffset[n]
            }
            let v: Int
            let next: Int
            if !br.bit(p[2]) {
                v = 1
                next = 1
            } else {
                v = largeValue(&br, p)
                next = 2
            }
            let signed = Int32(br.signed(v))
            out[zigzag[n]] = Int16(truncatingIfNeeded: signed &* (n > 0 ? ac : dc))
            n += 1
            p = probabilities + bandOffset[n] + next * 11
        }
        return 16
    }
}
