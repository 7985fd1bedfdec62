import PareCore
import PareJPEG
import PareEXIF

/// Why a thumbnail asked to keep its source's gain map has none: the plain picture is made.
public enum GainMapWarning: Sendable, Equatable, CustomStringConvertible {
    /// The source has no gain map.
    case absent
    /// The output format cannot hold a gain map (only JPEG's MPF container can).
    case notCarried(ImageFileFormat)
    /// The gain map's values are not in the file's standard metadata (Apple's are in the
    /// maker notes): without them no reader could apply it.
    case valuesUnknown(GainMapStandard)
    /// The thumbnail is cropped or stretched (`ThumbnailFit.cover`, `.fill`): the gain map
    /// is not cut alike.
    case notCropped
    /// The gain map image could not be decoded.
    case unreadable(PareError)

    public var description: String {
        switch self {
        case .absent: return "the source has none; not kept"
        case let .notCarried(format): return "\(format == .netpbm ? "Netpbm" : "PNG") cannot carry one; dropped"
        case let .valuesUnknown(standard): return "the \(standard.name) gain map's values are not readable; dropped"
        case .notCropped: return "a cropped or stretched thumbnail does not carry one; dropped"
        case let .unreadable(error): return "\(error); dropped"
        }
    }
}

/// A gain map made to go with a thumbnail: resampled to the thumbnail's size times the
/// source's gain-map-to-picture ratio, and oriented like the picture.
public struct GainMapThumbnail: Sendable {
    /// Gray8 (one channel) or RGB8 (a map per channel), as the source's gain map.
    public var image: Image
    /// The source's gain map: its standard and values, which the output carries.
    public var source: GainMapInfo
}

extension ImageSource {
    /// The gain map for a thumbnail of `pictureWidth`×`pictureHeight` (stored orientation)
    /// made from a main image of `mainWidth`×`mainHeight`: the thumbnail's size, or the
    /// source map's own where that is smaller. Not the source's fraction of the picture: a
    /// quarter-size map is there to save bytes on a 12 MP photo, and on a 256-pixel
    /// thumbnail it would spread each highlight's boost over four pixels (a 64×48 map
    /// under a 256×192 picture: 30 dB from the source's HDR rendition resized, in PQ, where
    /// the full-size map gives 35). Decoded at the smallest DCT scale that reaches it
    /// (no margin), resampled with the picture's filter
    /// and turned by the picture's orientation. No colour conversion: its values are ratios,
    /// not colours. A map with one channel of values (the usual case) becomes gray at once,
    /// whatever its JPEG's components (libultrahdr writes YCbCr with neutral chroma), so
    /// that the resampler and the encoder see a third of the samples.
    func gainMapThumbnail(_ info: GainMapInfo, pictureWidth: Int, pictureHeight: Int, mainWidth: Int,
                                  mainHeight: Int, orientation: Orientation, options: ThumbnailOptions, workers: Int,
                                  ledger: MemoryLedger, cancellation: CancellationCheck) throws(PareError) -> GainMapThumbnail {
        guard let width = info.width, let height = info.height, width > 0, height > 0, mainWidth > 0, mainHeight > 0
        else { throw .unsupported("gain map without a readable frame size") }
        let outWidth = max(1, min(width, pictureWidth)), outHeight = max(1, min(height, pictureHeight))
        let slice: ByteSourceSlice<InputBytes>
        do {
            slice = try ByteSourceSlice(input, offset: info.offset, count: info.length)
        } catch {
            throw PareError(error)
        }
        // A gain map is smooth (a boost varies slowly across a scene), and its errors are
        // of brightness in highlights, not of detail: the scale that reaches the size serves,
        // without the picture's factor of two for the resampler to filter aliasing away.
        let scale = SourceChooser.smallestScale(width: width, height: height, reaching: max(outWidth, outHeight),
                                                filterMargin: false)
        let channels = info.metadata.map { $0.gainMapMax.count == 1 ? 1 : 3 } ?? 3
        var resampler = Resampler(outputWidth: outWidth, outputHeight: outHeight, filter: options.filter, ledger: ledger,
                                  downstream: ImageBuilder(ledger: ledger))
        let decodedPerMapPixel = Double(JPEGScale.full.rawValue) / Double(scale.rawValue)
        let (flipsX, flipsY) = orientation.flipsStoredAxes
        resampler.shift = ResamplingShift(
            x: Self.gainMapShift(main: mainWidth, map: width, picture: pictureWidth, output: outWidth,
                                 decodedPerMapPixel: decodedPerMapPixel, flipped: flipsX),
            y: Self.gainMapShift(main: mainHeight, map: height, picture: pictureHeight, output: outHeight,
                                 decodedPerMapPixel: decodedPerMapPixel, flipped: flipsY))
        var sink = LumaSink(keepsColour: channels == 3, ledger: ledger, downstream: resampler)
        let job = DecodeJob(options: options, workers: workers, ledger: ledger, cancellation: cancellation)
        _ = try JPEGFormatReader.decodeJPEG(slice, scale: scale, job: job, into: &sink)
        do { try sink.downstream.finish() } catch { throw PareError(error) }
        guard var image = sink.downstream.downstream.image else { throw .unsupported("gain map decoder produced no rows") }
        do {
            if orientation != .up { image = try orientation.apply(to: image, ledger: ledger) }
        } catch {
            throw PareError(error)
        }
        return GainMapThumbnail(image: image, source: info)
    }

    /// Where the thumbnail's map samples the decoded source map along one axis, beyond the
    /// resampler's centre-to-centre placement, in decoded map pixels.
    ///
    /// Renderers (libultrahdr, Android's) sample a gain map at corner-aligned positions: the
    /// picture's pixel x reads the map at x / f, f being picture over map pixels, where a
    /// resize would place it at (x + ½) / f − ½. Both sides follow that rule here: thumbnail
    /// map pixel j is read at thumbnail pixel j · fOut (fOut = picture / output), which lies
    /// at ((j · fOut + ½) · s − ½) in source pixels (s = source / picture, the picture's own
    /// centre-aligned resize), which the source's renderer read at that over fSrc in its map;
    /// the decoded map (1/d of it, centre-aligned) holds map coordinate m at (m + ½) / d − ½.
    /// Against the resampler's (j + ½) · fOut · s / (fSrc · d) − ½ that leaves
    /// ½ / d · (1 − (1 + (fOut − 1) · s) / fSrc). An axis the orientation reverses is read
    /// from its other end, j · fOut + fOut − 1 in stored thumbnail pixels: (fOut − 1) · s /
    /// (fSrc · d) more. Unaligned, a 640×480 map under a 1024×768 picture turned 180° gave
    /// 29.8 dB from the source's HDR rendition resized, against 37.3 for the same thumbnail
    /// made unturned.
    static func gainMapShift(main: Int, map: Int, picture: Int, output: Int, decodedPerMapPixel d: Double,
                             flipped: Bool) -> Double {
        let fSrc = Double(main) / Double(map), s = Double(main) / Double(picture)
        let fOut = Double(picture) / Double(output)
        let shift = 0.5 / d * (1 - (1 + (fOut - 1) * s) / fSrc)
        return flipped ? shift + (fOut - 1) * s / (fSrc * d) : shift
    }
}

/// Passes rows on, or with `keepsColour` false turns RGB rows into gray ones on the way: the
/// luma of T.81's (JFIF's) YCbCr, Y = 0.299 R + 0.587 G + 0.114 B, which gives back the Y a
/// JPEG of neutral chroma was decoded from. Gray rows pass untouched.
struct LumaSink<Downstream: RowSink>: RowSink {
    let keepsColour: Bool
    let ledger: MemoryLedger
    var downstream: Downstream
    private var converts = false
    private var row: LedgerBuffer<UInt8>?

    init(keepsColour: Bool, ledger: MemoryLedger, downstream: Downstream) {
        self.keepsColour = keepsColour
        self.ledger = ledger
        self.downstream = downstream
    }

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        converts = !keepsColour && header.format == .rgb8
        var header = header
        if converts {
            row = try ledger.allocate(UInt8.self, count: header.width, initialValue: 0)
            header.format = .gray8
        }
        try downstream.begin(header)
    }

    mutating func consume(_ rgb: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        guard converts, let row else {
            try downstream.consume(rgb, at: placement)
            return
        }
        let width = min(placement.width, row.count, rgb.count / 3)
        let gray = row.baseAddress
        // 16-bit fixed point: 19595 + 38470 + 7471 = 65536, so white stays 255.
        // SAFETY: width ≤ row.count (gray's length) and 3 · width ≤ rgb.count.
        for x in 0 ..< width {
            let r = Int(rgb[3 * x]), g = Int(rgb[3 * x + 1]), b = Int(rgb[3 * x + 2])
            gray[x] = UInt8((19595 * r + 38470 * g + 7471 * b + 32768) >> 16)
        }
        try downstream.consume(UnsafeBufferPointer(start: gray, count: width), at: placement)
    }
}
