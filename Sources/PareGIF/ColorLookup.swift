/// The colour of each of the 256 possible indices of the first frame, and what fills the
/// canvas around it: the rules of GIF89a §19–§21 and §23 with the choices, where the
/// specification leaves them open, of Pillow's `Image.open(f).convert("RGBA")`, the oracle:
///
/// - The frame's colour table is the local one (§21), else the global one (§19).
/// - An index at or past the table's entries is black (Pillow's palette has 256 entries,
///   the ones the file does not give black). The table's entries are 2^(n+1) as its size
///   field says, however many the encoder meant to use.
/// - A table that is the gray ramp (entry i is (i, i, i) throughout), or no table at all,
///   makes Pillow open the frame as 8-bit gray: then every index i is (i, i, i), in range or not.
/// - The transparent index of the frame's Graphic Control Extension (§23) keeps its colour
///   with alpha 0, wherever the colour comes from (even past the table: black, alpha 0).
/// - Canvas outside the frame holds the transparent index when there is one, else index 0;
///   the background colour index of §18 is not used (Pillow uses it only when disposing).
struct ColorLookup {
    /// 256 RGBA entries.
    var rgba: [UInt8]
    /// The index that fills the canvas outside the frame.
    let fillIndex: Int

    init(palette: [UInt8]?, transparentIndex: Int?) {
        rgba = [UInt8](repeating: 0, count: 1024)
        let entries = (palette?.count ?? 0) / 3
        let isGrayRamp = palette.map(Self.isGrayRamp) ?? true
        for i in 0 ..< 256 {
            if isGrayRamp {
                rgba[4 * i] = UInt8(i)
                rgba[4 * i + 1] = UInt8(i)
                rgba[4 * i + 2] = UInt8(i)
            } else if let palette, i < entries {
                rgba[4 * i] = palette[3 * i]
                rgba[4 * i + 1] = palette[3 * i + 1]
                rgba[4 * i + 2] = palette[3 * i + 2]
            }
            rgba[4 * i + 3] = 255
        }
        if let transparentIndex { rgba[4 * transparentIndex + 3] = 0 }
        fillIndex = transparentIndex ?? 0
    }

    /// True when entry i is (i, i, i) for every entry: Pillow then reads no palette.
    static func isGrayRamp(_ palette: [UInt8]) -> Bool {
        for i in 0 ..< palette.count / 3 {
            let value = UInt8(truncatingIfNeeded: i)
            if palette[3 * i] != value || palette[3 * i + 1] != value || palette[3 * i + 2] != value { return false }
        }
        return true
    }
}
