import PareCore

/// One chunk of the file as the container lists it: its name, where its header starts and
/// the payload size it declares (the padding byte of an odd size not counted).
public struct WebPChunk: Sendable, Equatable {
    /// The chunk's four ASCII bytes read big-endian ("VP8 " is 0x56503820).
    public let fourCC: UInt32
    /// The byte offset of the chunk's header; the payload starts 8 bytes later.
    public let offset: Int
    /// The payload size the header declares.
    public let size: Int
    /// The chunk inside an `ANMF` frame, and which frame (0 for the first); nil at the top level.
    public let frame: Int?

    /// The four bytes of the name, first to last.
    public var fourCCBytes: [UInt8] {
        [UInt8(truncatingIfNeeded: fourCC >> 24), UInt8(truncatingIfNeeded: fourCC >> 16),
         UInt8(truncatingIfNeeded: fourCC >> 8), UInt8(truncatingIfNeeded: fourCC)]
    }

    /// Where the payload starts.
    public var payloadOffset: Int { offset + 8 }
}

/// The facts of a lossy frame header (RFC 6386 §9), for `inspect` and `explain`.
public struct VP8FrameInfo: Sendable, Equatable {
    /// The frame's size and its upscaling hints (RFC 6386 §9.1: 0 none, 1 5/4, 2 5/3, 3 2).
    public var width: Int, height: Int
    public var horizontalScale: Int, verticalScale: Int
    /// The size of the first partition (modes and headers) and the number of token partitions.
    public var firstPartitionSize: Int
    public var partitionCount: Int
    /// Segmentation (§9.3): on or off, whether the map is coded, and the segments' quantizer
    /// indices (or deltas, `segmentDeltas` true) and filter levels.
    public var segmentationEnabled: Bool
    public var segmentMapUpdated: Bool
    public var segmentDeltas: Bool
    public var segmentQuantizers: [Int]
    public var segmentFilterLevels: [Int]
    /// The loop filter (§9.6): simple or normal, its level and sharpness.
    public var simpleFilter: Bool
    public var filterLevel: Int
    public var sharpness: Int
    /// The base quantizer index (§9.6) and the colour space and clamping bits.
    public var baseQuantizer: Int
    public var colorSpace: Int
    public var clampingRequired: Bool
}

/// The four transforms of the lossless format (WebP Lossless Bitstream §4).
public enum VP8LTransformKind: Int, Sendable, Equatable {
    case predictor = 0, crossColor = 1, subtractGreen = 2, colorIndexing = 3
}

/// The facts of a lossless stream, for `inspect` and `explain`.
public struct VP8LInfo: Sendable, Equatable {
    public var width: Int, height: Int
    /// The header's "alpha is used" hint.
    public var alphaHint: Bool
    /// The transforms in the order the stream lists them, with their block-size bits (or, for
    /// colour indexing, the palette size).
    public var transforms: [(kind: VP8LTransformKind, parameter: Int)] {
        zip(transformKinds, transformParameters).map { ($0, $1) }
    }
    var transformKinds: [VP8LTransformKind] = []
    var transformParameters: [Int] = []
    /// The main image's colour cache size in bits (0: no cache).
    public var colorCacheBits: Int = 0
    /// The meta prefix code image's block-size bits (0: one prefix code group).
    public var metaPrefixBits: Int = 0

    init(width: Int, height: Int, alphaHint: Bool) {
        self.width = width
        self.height = height
        self.alphaHint = alphaHint
    }

    public static func == (a: VP8LInfo, b: VP8LInfo) -> Bool {
        a.width == b.width && a.height == b.height && a.alphaHint == b.alphaHint && a.transformKinds == b.transformKinds
            && a.transformParameters == b.transformParameters && a.colorCacheBits == b.colorCacheBits
            && a.metaPrefixBits == b.metaPrefixBits
    }
}

/// The `ALPH` chunk's header byte (WebP Container §"Alpha").
public struct WebPAlphaInfo: Sendable, Equatable {
    /// 0 raw, 1 lossless-compressed.
    public var compression: Int
    /// 0 none, 1 horizontal, 2 vertical, 3 gradient.
    public var filter: Int
    /// 0 none, 1 level reduction.
    public var preprocessing: Int
}

/// What `WebPDecoder.init` learns from the container and the image's headers.
public struct WebPInfo: Sendable, Equatable {
    /// The canvas size (the frame's for a simple file).
    public var width: Int
    public var height: Int
    public var hasAlpha: Bool
    public var isLossless: Bool
    public var isAnimated: Bool
    /// ANMF chunks in the file (1 for a still).
    public var frameCount: Int
    /// ANIM's loop count (0: forever); 0 for a still.
    public var loopCount: Int
    /// ANIM's background colour as the bytes B, G, R, A read little-endian into a word (0xAARRGGBB).
    public var backgroundColor: UInt32
    /// Every chunk, in file order, with those inside the ANMF frames.
    public var chunks: [WebPChunk]
    /// The VP8X flags byte (nil for a simple file).
    public var extendedFlags: UInt8?
    /// The payloads of ICCP, EXIF and XMP (nil when absent or over `maxMetadataBytes`: their
    /// chunks are in `chunks`).
    public var iccProfile: [UInt8]?
    public var exif: [UInt8]?
    public var xmp: [UInt8]?
    /// The image's bitstream facts (of the first frame for an animation).
    public var vp8: VP8FrameInfo?
    public var vp8l: VP8LInfo?
    public var alpha: WebPAlphaInfo?
    /// The first frame's place on the canvas and its blending and disposal bits.
    public var frameX: Int = 0, frameY: Int = 0, frameWidth: Int = 0, frameHeight: Int = 0
    public var frameBlends: Bool = false, frameDisposesToBackground: Bool = false

    /// The first chunk named `fourCC`.
    public func chunk(_ fourCC: UInt32) -> WebPChunk? { chunks.first { $0.fourCC == fourCC } }
}
