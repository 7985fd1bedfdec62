import PareCore

/// The DCT-domain scales: the raw value is the numerator k of k/8. At k/8 every 8×8 block
/// becomes a k×k block (T.81 A.3.3 read backwards), so the output is ceil(W·k/8) × ceil(H·k/8),
/// the size `djpeg -scale k/8` writes.
public enum JPEGScale: Int, CaseIterable, Sendable {
    case eighth = 1, quarter = 2, half = 4, full = 8

    /// The samples one block yields along each axis.
    public var blockSize: Int { rawValue }

    /// "1/8", "1/4", "1/2" or "1", as on the command line.
    public var name: MessageText {
        switch self {
        case .eighth: return "1/8"
        case .quarter: return "1/4"
        case .half: return "1/2"
        case .full: return "1"
        }
    }

    #if !hasFeature(Embedded)
    /// Parses "1/8", "1/4", "1/2", "1", "1/1" or "8/8", compared as UTF-8 bytes (String's
    /// `==` would link Unicode normalisation tables into an Embedded build).
    public init?(name: String) {
        for scale in Self.allCases where name.utf8.elementsEqual(scale.name.utf8) {
            self = scale
            return
        }
        guard name.utf8.elementsEqual("1/1".utf8) || name.utf8.elementsEqual("8/8".utf8) else { return nil }
        self = .full
    }
    #endif
}

/// Limits and policy for one decode. Every limit has a default that real photographs never
/// reach and that keeps a hostile file from asking for unbounded work or memory; crossing one
/// throws `JPEGError.limitExceeded` naming it, before anything is sized from the value. The
/// README's "Limits" table lists them with the rest of Pare's. Memory itself is bounded by
/// the `MemoryLedger`'s limit (`CoreError.limitExceeded`, wrapped in `JPEGError.core`).
public struct JPEGOptions: Sendable, Equatable {
    /// Turn every `JPEGWarning` into `JPEGError.strict`. Default: false.
    public var strict = false
    /// Largest width × height accepted from SOF. Default: 2^28 (268,435,456), "pixel count".
    public var maxPixels: Int = 1 << 28
    /// Largest width or height accepted from SOF. Default: 65,535, all T.81 allows; "width"
    /// or "height".
    public var maxDimension = 65535
    /// Most markers in the file, those before the first scan (the segments among them
    /// recorded in `JPEGInfo.segments`) and those between scans together, stand-alone ones
    /// included, the closing EOI not (`MarkerReader`). Default: 4,096, "marker segment count".
    public var maxSegments = 4096
    /// Most scans read in a multi-scan file (non-interleaved sequential or progressive;
    /// a progressive file that sends each AC coefficient of three components alone needs 190).
    /// Default: 500, "scan count".
    public var maxScans = 500
    /// A progressive frame at a reduced scale keeps every coefficient its reduced IDCTs read
    /// (output identical to `djpeg -scale`) when that coefficient store takes at most this
    /// many bytes; otherwise only the k×k low-frequency corner of each block (see
    /// `CoefficientStore`). A choice, not a refusal: the store, whichever it is, is bounded
    /// by the ledger's limit. Default: 8 MiB.
    public var maxExactCoefficientBytes = 8 << 20
    /// What a progressive frame decoded at a reduced scale gives up when its exact
    /// coefficients do not fit `maxExactCoefficientBytes`. Default: `.exact`.
    public var progressiveFidelity = ProgressiveFidelity.exact
    /// Most warnings kept; later ones are counted in `JPEGDecoder.droppedWarnings`.
    /// Default: 64.
    public var maxWarnings = 64
    /// The window through which the input is read, in bytes: each refill is one call to the
    /// source's `read`. Large enough on a server that refills are rare; a microcontroller
    /// that reads its input over a slow link trades refills for RAM (at least 64 bytes are
    /// used). Default: 64 KiB.
    public var inputWindowBytes = 64 * 1024
    /// Hand out a four-component frame (CMYK, or YCCK turned into CMYK) as `cmyk8` rows of
    /// ink amounts, 0 for none, for a colour profile to convert, instead of converting it to
    /// RGB here. Adobe's inverted storage (APP14, every CMYK JPEG Photoshop and libjpeg
    /// write) is undone either way. Default: false.
    public var cmykSamples = false
    /// The most a decode at 1/8 on two threads holds for the second thread's half of the
    /// scan (`JPEGDecoder.decodePipelined`: its blocks' DC values and few coefficients, about
    /// 40 bytes an MCU of a 4:2:0 photo): a choice, not a refusal. Above it the second thread
    /// takes a smaller share, down to none (then the decode is `decode`'s, on one thread).
    /// Default: 3 MiB, what the second thread needs for half of a 24-megapixel photo.
    public var maxSplitScanBytes = 3 << 20

    public init() {}
}

/// What a progressive frame at a reduced scale gives up when the coefficients `djpeg -scale`
/// would read do not fit `JPEGOptions.maxExactCoefficientBytes` (see `CoefficientStore`).
/// When they fit, and at full scale, both decode exactly as djpeg does.
public enum ProgressiveFidelity: Sendable, Equatable {
    /// Frequencies: each component keeps the low-frequency corner of its own IDCT size, each
    /// refined to full precision; refinement scans then need a nonzero map per block.
    case exact
    /// Frequencies and precision, for pictures that will be shrunk further (thumbnails): each
    /// component keeps only the k×k corner, k being the scale's block size (2×2 at least where
    /// its own IDCT is that large), and AC bands are
    /// taken from their first scan alone (T.81 G.1.2.2), without the refinement scans that add
    /// their last bits (G.1.2.3). The store is then 2·k² bytes a block with no nonzero map,
    /// and the refinement scans are passed over unread.
    case preview
}

/// The coding processes of T.81 Table B.1 (SOF0…SOF15) plus JPEG-LS (ITU-T T.87 SOF55).
/// `baseline`, `extendedSequential` and `progressive` (8-bit Huffman) are decoded here.
public enum JPEGProcess: Sendable, Equatable {
    case baseline
    case extendedSequential
    case progressive
    case lossless
    case differentialSequential
    case differentialProgressive
    case differentialLossless
    case arithmeticSequential
    case arithmeticProgressive
    case arithmeticLossless
    case arithmeticDifferentialSequential
    case arithmeticDifferentialProgressive
    case arithmeticDifferentialLossless
    case jpegLS

    /// The process a start-of-frame marker announces, or nil if the code is no SOF.
    init?(marker: UInt8) {
        switch marker {
        case 0xC0: self = .baseline
        case 0xC1: self = .extendedSequential
        case 0xC2: self = .progressive
        case 0xC3: self = .lossless
        case 0xC5: self = .differentialSequential
        case 0xC6: self = .differentialProgressive
        case 0xC7: self = .differentialLossless
        case 0xC9: self = .arithmeticSequential
        case 0xCA: self = .arithmeticProgressive
        case 0xCB: self = .arithmeticLossless
        case 0xCD: self = .arithmeticDifferentialSequential
        case 0xCE: self = .arithmeticDifferentialProgressive
        case 0xCF: self = .arithmeticDifferentialLossless
        case 0xF7: self = .jpegLS
        default: return nil
        }
    }

    /// The process's name; on the board its SOF marker's code ("0xFFC9"), which takes no
    /// flash for the names.
    public var name: MessageText {
        #if hasFeature(Embedded)
        return markerName(marker)
        #else
        switch self {
        case .baseline: return "baseline sequential (SOF0)"
        case .extendedSequential: return "extended sequential Huffman (SOF1)"
        case .progressive: return "progressive Huffman (SOF2)"
        case .lossless: return "lossless Huffman (SOF3)"
        case .differentialSequential: return "differential sequential Huffman (SOF5)"
        case .differentialProgressive: return "differential progressive Huffman (SOF6)"
        case .differentialLossless: return "differential lossless Huffman (SOF7)"
        case .arithmeticSequential: return "extended sequential arithmetic (SOF9)"
        case .arithmeticProgressive: return "progressive arithmetic (SOF10)"
        case .arithmeticLossless: return "lossless arithmetic (SOF11)"
        case .arithmeticDifferentialSequential: return "differential sequential arithmetic (SOF13)"
        case .arithmeticDifferentialProgressive: return "differential progressive arithmetic (SOF14)"
        case .arithmeticDifferentialLossless: return "differential lossless arithmetic (SOF15)"
        case .jpegLS: return "JPEG-LS (SOF55)"
        }
        #endif
    }

    #if hasFeature(Embedded)
    /// The start-of-frame marker that announces the process (the inverse of `init(marker:)`).
    var marker: UInt8 {
        switch self {
        case .baseline: return 0xC0
        case .extendedSequential: return 0xC1
        case .progressive: return 0xC2
        case .lossless: return 0xC3
        case .differentialSequential: return 0xC5
        case .differentialProgressive: return 0xC6
        case .differentialLossless: return 0xC7
        case .arithmeticSequential: return 0xC9
        case .arithmeticProgressive: return 0xCA
        case .arithmeticLossless: return 0xCB
        case .arithmeticDifferentialSequential: return 0xCD
        case .arithmeticDifferentialProgressive: return 0xCE
        case .arithmeticDifferentialLossless: return 0xCF
        case .jpegLS: return 0xF7
        }
    }
    #endif

    /// True for the processes this decoder implements.
    public var isSupported: Bool { self == .baseline || self == .extendedSequential || self == .progressive }
}

/// The colour model of the coded components, decided as libjpeg does: JFIF means YCbCr;
/// an Adobe APP14 transform flag says RGB/YCbCr (3 components) or CMYK/YCCK (4); otherwise
/// component ids 'R','G','B' mean RGB, and 4 components without Adobe mean CMYK.
public enum JPEGColorSpace: Sendable, Equatable {
    case gray, yCbCr, rgb, cmyk, ycck
}

/// One frame component (T.81 B.2.2, Table B.2).
public struct JPEGComponentInfo: Sendable, Equatable {
    /// Ci, the component identifier.
    public var id: Int
    /// Hi, horizontal sampling factor (1…4).
    public var horizontal: Int
    /// Vi, vertical sampling factor (1…4).
    public var vertical: Int
    /// Tqi, quantisation table selector (0…3).
    public var quantizationTable: Int
}

/// What a marker segment holds, for the stages after decoding (EXIF, ICC, MPF).
public enum JPEGSegmentKind: Sendable, Equatable {
    case jfif, jfxx, exif, xmp, icc, mpf, adobe, other
}

/// One marker segment met before the first scan (T.81 B.1.1.4).
public struct JPEGSegment: Sendable, Equatable {
    /// The marker code (the byte after 0xFF).
    public var marker: UInt8
    /// The absolute offset of the marker's 0xFF byte.
    public var offset: Int
    /// The segment length field: the parameter bytes plus the two length bytes.
    public var length: Int
    public var kind: JPEGSegmentKind

    /// Where the parameters start (after marker and length).
    public var dataOffset: Int { offset + 4 }
    /// The number of parameter bytes.
    public var dataLength: Int { max(0, length - 2) }
}

/// What the headers say, read up to the first scan.
public struct JPEGInfo: Sendable {
    public var width: Int
    public var height: Int
    /// P, the sample precision in bits.
    public var precision: Int
    public var components: [JPEGComponentInfo]
    public var process: JPEGProcess
    public var colorSpace: JPEGColorSpace
    /// Ri from the last DRI before the first scan; 0 when restarts are off.
    public var restartInterval: Int
    /// The Adobe APP14 transform flag, when that segment is present.
    public var adobeTransform: Int?
    public var segments: [JPEGSegment]
}
