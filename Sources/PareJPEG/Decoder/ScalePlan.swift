import PareCore

/// How each component is reconstructed at a DCT scale: its IDCT size, its size in samples,
/// and how it is brought to the output resolution.
///
/// The rule for the IDCT sizes (libjpeg-turbo's, so that outputs match `djpeg -scale`): the
/// components with the largest sampling factors get the scale's block size k (8, 4, 2, 1);
/// every other component's size is doubled from k, up to 8, as long as the doubled size still
/// divides its place in the MCU evenly in both directions, i.e. while
/// Hmax·k is a multiple of 2·Hi·size and Vmax·k is a multiple of 2·Vi·size (T.81 A.1.1 gives
/// the component's share of the MCU as Hi/Hmax × Vi/Vmax). So 4:2:0 at 1/8 decodes luma
/// 1×1 and chroma 2×2 and needs no upsampling; 4:2:2 at 1/8 decodes chroma 1×1 (doubling would
/// break the vertical condition) and replicates it horizontally. What is still smaller than
/// the output after its IDCT is upsampled: triangular ("fancy") for 2:1 ratios when k > 1,
/// replication otherwise, and ratios that are not whole numbers are unsupported.
struct ScalePlan {
    enum Method: Equatable {
        /// Already at the output resolution.
        case none
        /// 2:1 horizontally, triangular filter (3/4, 1/4).
        case fancyH2V1
        /// 2:1 vertically, triangular filter.
        case fancyH1V2
        /// 2:1 both ways, triangular filter in both directions (weights 9/16, 3/16, 3/16, 1/16).
        case fancyH2V2
        /// Whole-number ratios by repeating samples.
        case replicate
    }

    struct Component {
        /// Samples per block edge after the reduced IDCT: 8, 4, 2 or 1.
        var blockSize: Int
        /// Blocks per MCU horizontally and vertically (1×1 in a single-component frame).
        var horizontal: Int
        var vertical: Int
        /// Output samples per component sample.
        var horizontalFactor: Int
        var verticalFactor: Int
        var method: Method
        /// Samples that belong to the image, at the reduced size (the rest is MCU padding).
        var width: Int
        var height: Int
        /// Sample rows one MCU row yields.
        var rowsPerMCURow: Int
        /// Samples per row of the component's buffer: whole MCUs.
        var stride: Int
        /// Sample rows of the whole component, whole MCU rows.
        var totalRows: Int
    }

    var components: [Component]
    var outputWidth: Int
    var outputHeight: Int
    var mcusPerLine: Int
    var mcuRows: Int
    /// Widest upsampled row any component produces.
    var upsampledWidth: Int

    init(frame: JPEGFrameRecord, scale: JPEGScale, offset: Int) throws(JPEGError) {
        // Wrapping arithmetic throughout: the frame's sizes are 16-bit, its sampling factors
        // 1…4 (JPEGFrameRecord(parsing:marker:)) and k ≤ 8, so every product stays below 2^22.
        let k = scale.blockSize
        let single = frame.components.count == 1
        let hMax = single ? 1 : frame.maxHorizontal, vMax = single ? 1 : frame.maxVertical
        outputWidth = (frame.width &* k &+ 7) / 8
        outputHeight = (frame.height &* k &+ 7) / 8
        let mcuWidth = 8 &* hMax, mcuHeight = 8 &* vMax
        mcusPerLine = (frame.width &+ mcuWidth &- 1) / mcuWidth
        mcuRows = (frame.height &+ mcuHeight &- 1) / mcuHeight
        let mcusPerLine = mcusPerLine, mcuRows = mcuRows
        var upsampledWidth = outputWidth
        components = try frame.components.map { (info) throws(JPEGError) in
            let h = single ? 1 : info.horizontal, v = single ? 1 : info.vertical
            var size = k
            while size < 8, (hMax &* k) % (h &* size &* 2) == 0, (vMax &* k) % (v &* size &* 2) == 0 {
                size &*= 2
            }
            let hIn = h &* size / k, vIn = v &* size / k
            guard hMax % hIn == 0, vMax % vIn == 0 else {
                throw .unsupportedFeature(feature: "fractional sampling ratio \(hMax)/\(hIn) x \(vMax)/\(vIn)",
                                          offset: offset)
            }
            let hf = hMax / hIn, vf = vMax / vIn
            let width = (frame.width &* h &* size &+ mcuWidth &- 1) / mcuWidth
            let height = (frame.height &* v &* size &+ mcuHeight &- 1) / mcuHeight
            let fancy = k > 1
            let method: Method
            switch (hf, vf) {
            case (1, 1): method = .none
            case (2, 1): method = fancy && width > 2 ? .fancyH2V1 : .replicate
            case (1, 2): method = fancy ? .fancyH1V2 : .replicate
            case (2, 2): method = fancy && width > 2 ? .fancyH2V2 : .replicate
            default: method = .replicate
            }
            upsampledWidth = max(upsampledWidth, width &* hf)
            return Component(blockSize: size, horizontal: h, vertical: v, horizontalFactor: hf, verticalFactor: vf,
                             method: method, width: width, height: height, rowsPerMCURow: v &* size,
                             stride: mcusPerLine &* h &* size, totalRows: mcuRows &* v &* size)
        }
        self.upsampledWidth = upsampledWidth
    }

    /// The last component row that output row `y` reads.
    func lastRowNeeded(component c: Int, outputRow y: Int) -> Int {
        let p = components[c]
        let row: Int
        switch p.method {
        case .fancyH1V2, .fancyH2V2: row = (y >> 1) + (y & 1)
        default: row = y / p.verticalFactor
        }
        return min(row, p.height - 1)
    }

    /// The first component row that output row `y` reads.
    func firstRowNeeded(component c: Int, outputRow y: Int) -> Int {
        let p = components[c]
        let row: Int
        switch p.method {
        case .fancyH1V2, .fancyH2V2: row = y & 1 == 1 ? y >> 1 : max((y >> 1) - 1, 0)
        default: row = y / p.verticalFactor
        }
        return min(row, p.height - 1)
    }

    /// Whether the first output row of a band starting at MCU row m (and so every later one)
    /// reads samples of MCU row m − 1: only the vertical fancy upsamplers look a row back.
    func bandNeedsRowAbove(_ m: Int) -> Bool {
        guard m > 0 else { return false }
        let y = rowsCompleted(byMCURows: m)
        for c in 0 ..< components.count where firstRowNeeded(component: c, outputRow: y) < m * components[c].rowsPerMCURow {
            return true
        }
        return false
    }

    /// The first output row that the MCU rows `0 ..< m` do not complete: the streaming decode
    /// has emitted exactly the rows before it once MCU row m − 1 is in. A band of MCU rows
    /// [a, b) owns the output rows [rowsCompleted(a), rowsCompleted(b)).
    func rowsCompleted(byMCURows m: Int) -> Int {
        if m <= 0 { return 0 }
        if m >= mcuRows { return outputHeight }
        // lastRowNeeded grows with y, so the rows still waiting are a suffix: bisect for it.
        var low = 0, high = outputHeight
        while low < high {
            let y = (low + high) / 2
            var waiting = false
            for c in 0 ..< components.count where lastRowNeeded(component: c, outputRow: y) > m * components[c].rowsPerMCURow - 1 {
                waiting = true
            }
            if waiting { high = y } else { low = y + 1 }
        }
        return low
    }
}
