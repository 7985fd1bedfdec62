/// How chroma is sampled relative to luma (T.81 A.1.1: the Hi and Vi of the frame header).
public enum ChromaSampling: String, Sendable, CaseIterable {
    /// 4:4:4, no subsampling (Y, Cb and Cr 1×1; cjpeg `-sample 1x1`).
    case s444 = "4:4:4"
    /// 4:2:2, chroma halved horizontally (Y 2×1; cjpeg `-sample 2x1`).
    case s422 = "4:2:2"
    /// 4:2:0, chroma halved both ways (Y 2×2; cjpeg's default).
    case s420 = "4:2:0"

    /// Luma's sampling factors (H, V); chroma's are 1×1.
    var lumaFactors: (h: Int, v: Int) {
        switch self {
        case .s444: return (1, 1)
        case .s422: return (2, 1)
        case .s420: return (2, 2)
        }
    }
}

/// Where restart markers go (T.81 B.2.4.4, E.1.4).
public enum RestartInterval: Sendable, Equatable {
    /// Every N MCU rows (cjpeg `-restart N`): Ri = N × MCUs per row of each scan, at most 65,535.
    case mcuRows(Int)
    /// Every N MCUs (cjpeg `-restart NB`).
    case mcus(Int)
}

/// The encoder's choices. The defaults are cjpeg's: quality 75, 4:2:0 for colour, the
/// standard Huffman tables of T.81 K.3, baseline sequential, no restart markers, a JFIF
/// APP0, and quantisation tables of 16-bit values (SOF1) where a low quality needs them.
public struct JPEGEncoderOptions: Sendable {
    /// 1…100, scaling the T.81 K.1 tables as libjpeg does (50 is the tables as printed).
    public var quality = 75
    /// Chroma sampling for colour images; grayscale images have one component.
    public var sampling = ChromaSampling.s420
    /// Huffman tables made for the image (T.81 K.2) instead of the standard ones: smaller
    /// files, two passes, every quantised coefficient held (see `JPEGEncoder`).
    public var optimizeHuffmanTables = false
    public var restartInterval: RestartInterval?
    /// Progressive DCT (T.81 G.1) with libjpeg's default scan script; implies optimized tables.
    public var progressive = false
    /// Limit quantisation values to 255, so that the file stays baseline at low qualities
    /// (cjpeg `-baseline`).
    public var forceBaseline = false
    /// An ICC profile written in APP2 segments (ICC.1 Annex B.4); nil for none.
    public var iccProfile: [UInt8]?

    public init(quality: Int = 75, sampling: ChromaSampling = .s420) {
        self.quality = quality
        self.sampling = sampling
    }
}
