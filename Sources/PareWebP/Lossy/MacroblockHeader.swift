/// The 4×4 intra prediction modes (RFC 6386 §11.2), in the order the decoder's tables use.
enum SubblockMode {
    static let dc: UInt8 = 0, tm: UInt8 = 1, ve: UInt8 = 2, he: UInt8 = 3, rd: UInt8 = 4
    static let vr: UInt8 = 5, ld: UInt8 = 6, vl: UInt8 = 7, hd: UInt8 = 8, hu: UInt8 = 9
}

/// The 16×16 luma and 8×8 chroma modes (RFC 6386 §11.2, §12.2). They share their numbers with
/// the 4×4 modes of the same meaning, so that a 16×16 macroblock's mode is the context its
/// neighbours' 4×4 modes read (§11.3).
enum MacroblockMode {
    static let dc: UInt8 = 0, tm: UInt8 = 1, v: UInt8 = 2, h: UInt8 = 3
    /// DC prediction at the frame's edge: without the row above, the column to the left, or both.
    static let dcNoTop: UInt8 = 4, dcNoLeft: UInt8 = 5, dcNoTopLeft: UInt8 = 6
}

/// One macroblock's header from the first partition (RFC 6386 §19.3 `macroblock_header`,
/// key frames): segment, skip flag, luma mode (16×16, or sixteen 4×4 modes) and chroma mode.
struct MacroblockHeader {
    var segment = 0
    var skip = false
    var is4x4 = false
    var lumaMode: UInt8 = 0
    var chromaMode: UInt8 = 0
    /// The sixteen 4×4 modes in raster order, when `is4x4`.
    var subblockModes = [UInt8](repeating: 0, count: 16)

    /// §11.4 `bmode_tree`: node pairs; a value ≤ 0 is a leaf (minus the mode), above 0 the
    /// next node.
    static let subblockModeTree: [Int8] = [
        -Int8(SubblockMode.dc), 1, -Int8(SubblockMode.tm), 2, -Int8(SubblockMode.ve), 3, 4, 6,
        -Int8(SubblockMode.he), 5, -Int8(SubblockMode.rd), -Int8(SubblockMode.vr),
        -Int8(SubblockMode.ld), 7, -Int8(SubblockMode.vl), 8, -Int8(SubblockMode.hd), -Int8(SubblockMode.hu),
    ]

    /// Reads the header; `top` (4 modes of the macroblock above) and `left` (4 of the one to
    /// the left) are the contexts of §11.3 and are updated for the next macroblocks.
    // SAFETY: `top` and `left` hold four modes each; modes are 0...9, so the table index
    // (top × 10 + left) × 9 + node stays inside its 900 entries.
    mutating func read(_ br: inout BooleanDecoder, frame: VP8FrameHeader, top: UnsafeMutablePointer<UInt8>,
                       left: UnsafeMutablePointer<UInt8>) {
        // §10: the segment id tree.
        if frame.segmentMapUpdated {
            let p = frame.segmentProbabilities
            segment = !br.bit(p[0]) ? (br.bit(p[1]) ? 1 : 0) : (br.bit(p[2]) ? 3 : 2)
        } else {
            segment = 0
        }
        if let p = frame.skipProbability { skip = br.bit(p) } else { skip = false }
        // §11.2 `kf_ymode_tree` with its fixed probabilities.
        is4x4 = !br.bit(145)
        if !is4x4 {
            let mode = br.bit(156) ? (br.bit(128) ? MacroblockMode.tm : MacroblockMode.h)
                : (br.bit(163) ? MacroblockMode.v : MacroblockMode.dc)
            lumaMode = mode
            for i in 0 ..< 4 {
                top[i] = mode
                left[i] = mode
            }
        } else {
            VP8Tables.subblockModeProbabilities.withUnsafeBufferPointer { table in
                for y in 0 ..< 4 {
                    var mode = left[y]
                    for x in 0 ..< 4 {
                        let probabilities = table.baseAddress! + (Int(top[x]) * 10 + Int(mode)) * 9
                        var i = Int(Self.subblockModeTree[br.bit(probabilities[0]) ? 1 : 0])
                        while i > 0 {
                            i = Int(Self.subblockModeTree[2 * i + (br.bit(probabilities[i]) ? 1 : 0)])
                        }
                        mode = UInt8(-i)
                        top[x] = mode
                        subblockModes[y * 4 + x] = mode
                    }
                    left[y] = mode
                }
            }
        }
        // §11.2 `uv_mode_tree`.
        chromaMode = !br.bit(142) ? MacroblockMode.dc : !br.bit(114) ? MacroblockMode.v
            : br.bit(183) ? MacroblockMode.tm : MacroblockMode.h
    }
}
