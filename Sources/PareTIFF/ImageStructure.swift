import PareCore
@_spi(TIFF) import PareEXIF

/// The first IFD's image tags checked and turned into what decoding needs (TIFF 6.0 §8 and
/// §§14–22): the sample layout, how strips or tiles cover the image (strips are read as
/// tiles as wide as the image, RowsPerStrip high: §15 says the same of tiles), where their
/// bytes are, and what each photometric interpretation needs (ColorMap, ExtraSamples,
/// YCbCr subsampling, JPEGTables). Everything a later stage sizes from is checked here
/// against `TIFFOptions` before any allocation.
struct ImageStructure {
    var width = 0, height = 0
    var bitsPerSample = 1
    var samplesPerPixel = 1
    var photometric = 0
    var compression = 1
    var planar = 1
    var predictor = 1
    var fillOrderReversed = false
    var alpha = TIFFAlpha.none
    /// The sample that holds alpha, when `alpha` is not `.none`.
    var alphaSample = 0
    /// The colour samples of a pixel: 1 (gray, palette), 3 (RGB, YCbCr) or 4 (CMYK).
    var colorSamples = 1
    var tiled = false
    var segmentWidth = 0, segmentHeight = 0
    /// Segments across and down one plane, and planes (1, or SamplesPerPixel with planar 2).
    var across = 1, down = 1, planes = 1
    var offsets: [UInt64] = []
    var counts: [UInt64] = []
    /// Absolute offsets of the offsets' and byte counts' values, for errors.
    var offsetsAt = 0, countsAt = 0
    /// 256 RGB entries, already 8 bits (TIFF 6.0 §5: 16-bit; see `readColorMap`).
    var colorMap: [UInt8] = []
    var jpegTables: [UInt8]?
    /// YCbCr stored without JPEG, converted by the row stage.
    var ycbcr: YCbCrConversion?
    /// The chroma block of YCbCr stored without JPEG with subsampled chroma (TIFF 6.0 §21
    /// YCbCrSubsampling): each stored unit is `horizontal × vertical` Y samples, row by
    /// row, then one Cb and one Cr; a segment's stored rows are rows of such units, each
    /// covering `vertical` image rows. Nil for every other layout (JPEG strips carry their
    /// sampling inside).
    var chromaBlock: (horizontal: Int, vertical: Int)?
    var t4Options = 0, t6Options = 0
    var orientation = Orientation.up
    var icc: [UInt8]?
    /// Where the IFD is, for errors about tags that are absent.
    var ifdOffset = 0

    /// Samples in one plane's pixel: all of them interleaved, or one.
    var samplesPerSegmentPixel: Int { planar == 1 ? samplesPerPixel : 1 }
    var segmentsPerPlane: Int { across * down }
    /// Bytes of one stored row of a segment (rows start on a byte, TIFF 6.0 §8
    /// StripOffsets): a row of pixels or, with subsampled YCbCr, a row of chroma blocks
    /// (the last block padded to a whole one, §21).
    var segmentRowBytes: Int {
        if let block = chromaBlock {
            return (segmentWidth + block.horizontal - 1) / block.horizontal * (block.horizontal * block.vertical + 2)
        }
        return (segmentWidth * samplesPerSegmentPixel * bitsPerSample + 7) / 8
    }
    /// Image rows one stored row covers: the vertical subsampling, or 1.
    var rowsPerStoredRow: Int { chromaBlock?.vertical ?? 1 }
    /// Stored rows that hold `rows` image rows of a segment (a partial block row is stored whole).
    func storedRows(_ rows: Int) -> Int { (rows + rowsPerStoredRow - 1) / rowsPerStoredRow }
    /// Bytes one segment decompresses to (a strip at the bottom may hold fewer rows).
    var segmentBytes: Int { segmentRowBytes * storedRows(segmentHeight) }

    /// The pixel layout handed out: 8 bits a sample, gray or RGB with alpha when there is
    /// alpha, CMYK ink amounts for separated images.
    var outputFormat: PixelFormat {
        switch photometric {
        case TIFFPhotometric.minIsWhite, TIFFPhotometric.minIsBlack: return alpha == .none ? .gray8 : .grayAlpha8
        case TIFFPhotometric.separated: return .cmyk8
        case TIFFPhotometric.palette: return .rgb8
        default: return alpha == .none ? .rgb8 : .rgba8
        }
    }

    init(ifd: IFD, fileSize: Int, options: TIFFOptions) throws(TIFFError) {
        ifdOffset = ifd.offset
        func entry(_ tag: UInt16, _ name: MessageText) throws(TIFFError) -> IFDEntry {
            guard let e = ifd.entry(tag), e.value != nil else { throw .missingTag(tag: tag, name: name, offset: ifd.offset) }
            return e
        }
        func invalid(_ e: IFDEntry, _ name: MessageText, _ reason: MessageText) -> TIFFError {
            .invalidTag(tag: e.tag, name: name, offset: e.valueOffset, reason: reason)
        }
        /// The tag's first value, or `defaultValue` when it is absent.
        func number(_ tag: UInt16, _ name: MessageText, default defaultValue: Int?) throws(TIFFError) -> Int {
            guard let e = ifd.entry(tag) else {
                if let defaultValue { return defaultValue }
                throw .missingTag(tag: tag, name: name, offset: ifd.offset)
            }
            guard let v = e.unsignedInteger(at: 0), v <= UInt64(Int32.max) else {
                throw invalid(e, name, "not an unsigned integer below 2^31")
            }
            return Int(v)
        }
        width = try number(TIFFTag.imageWidth, "ImageWidth", default: nil)
        height = try number(TIFFTag.imageLength, "ImageLength", default: nil)
        let sizeAt = ifd.entry(TIFFTag.imageWidth)?.valueOffset ?? ifd.offset
        guard width > 0, height > 0 else {
            throw .invalidTag(tag: TIFFTag.imageWidth, name: "ImageWidth", offset: sizeAt, reason: "zero width or height")
        }
        if let crossed = ImageSizeLimits.crossed(width: width, height: height, maxWidth: options.maxWidth,
                                                 maxHeight: options.maxHeight, maxPixels: options.maxPixels) {
            throw .limitExceeded(what: crossed.what, value: crossed.value, limit: crossed.limit, offset: sizeAt)
        }
        compression = try number(TIFFTag.compression, "Compression", default: 1)
        photometric = try number(TIFFTag.photometric, "PhotometricInterpretation",
                                 default: compression >= 2 && compression <= 4 ? 0 : nil)
        samplesPerPixel = try number(TIFFTag.samplesPerPixel, "SamplesPerPixel", default: 1)
        planar = try number(TIFFTag.planarConfiguration, "PlanarConfiguration", default: 1)
        predictor = try number(TIFFTag.predictor, "Predictor", default: 1)
        fillOrderReversed = try number(TIFFTag.fillOrder, "FillOrder", default: 1) == 2
        orientation = Orientation(exifValue: try number(TIFFTag.orientation, "Orientation", default: 1))
        t4Options = try number(TIFFTag.t4Options, "T4Options", default: 0)
        t6Options = try number(TIFFTag.t6Options, "T6Options", default: 0)
        icc = ifd.entry(TIFFTag.iccProfile)?.value

        let spp = samplesPerPixel
        guard spp >= 1, spp <= 16 else {
            throw .limitExceeded(what: "samples per pixel", value: spp, limit: 16,
                                 offset: ifd.entry(TIFFTag.samplesPerPixel)?.valueOffset ?? ifd.offset)
        }
        // BitsPerSample: one value per sample, all equal (the decoder's outputs have one depth).
        if let e = ifd.entry(TIFFTag.bitsPerSample) {
            guard let first = e.unsignedInteger(at: 0) else { throw invalid(e, "BitsPerSample", "no value") }
            for i in 1 ..< max(1, min(e.valueCount, spp)) where e.unsignedInteger(at: i) != first {
                throw .unsupported(what: "different BitsPerSample per sample", value: Int(clamping: e.unsignedInteger(at: i) ?? 0),
                                   offset: e.valueOffset)
            }
            bitsPerSample = Int(clamping: first)
        }
        let bpsAt = ifd.entry(TIFFTag.bitsPerSample)?.valueOffset ?? ifd.offset
        if let e = ifd.entry(TIFFTag.sampleFormat), let format = e.unsignedInteger(at: 0), format != 1 {
            let what: MessageText = format == 3 ? "floating-point samples (SampleFormat)"
                : format == 2 ? "signed integer samples (SampleFormat)" : "SampleFormat"
            throw .unsupported(what: what, value: Int(clamping: format), offset: e.valueOffset)
        }
        guard [1, 2, 4, 8, 16].contains(bitsPerSample) else {
            throw .unsupported(what: "BitsPerSample", value: bitsPerSample, offset: bpsAt)
        }
        let photometricAt = ifd.entry(TIFFTag.photometric)?.valueOffset ?? ifd.offset
        switch photometric {
        case TIFFPhotometric.minIsWhite, TIFFPhotometric.minIsBlack, TIFFPhotometric.palette: colorSamples = 1
        case TIFFPhotometric.rgb, TIFFPhotometric.ycbcr: colorSamples = 3
        case TIFFPhotometric.separated:
            colorSamples = 4
            if let e = ifd.entry(TIFFTag.inkSet), let inks = e.unsignedInteger(at: 0), inks != 1 {
                throw .unsupported(what: "InkSet other than CMYK", value: Int(clamping: inks), offset: e.valueOffset)
            }
        case TIFFPhotometric.mask: throw .unsupported(what: "PhotometricInterpretation transparency mask", value: photometric, offset: photometricAt)
        case TIFFPhotometric.cieLab, TIFFPhotometric.iccLab, TIFFPhotometric.ituLab:
            throw .unsupported(what: "PhotometricInterpretation CIELab", value: photometric, offset: photometricAt)
        case TIFFPhotometric.logL, TIFFPhotometric.logLuv:
            throw .unsupported(what: "PhotometricInterpretation LogLuv", value: photometric, offset: photometricAt)
        default: throw .unsupported(what: "PhotometricInterpretation", value: photometric, offset: photometricAt)
        }
        guard spp >= colorSamples else {
            throw .invalidTag(tag: TIFFTag.samplesPerPixel, name: "SamplesPerPixel",
                              offset: ifd.entry(TIFFTag.samplesPerPixel)?.valueOffset ?? ifd.offset,
                              reason: "\(spp) samples for photometric \(photometric)")
        }
        if photometric == TIFFPhotometric.palette && bitsPerSample > 8 {
            throw .unsupported(what: "palette BitsPerSample", value: bitsPerSample, offset: bpsAt)
        }
        try readAlpha(ifd)

        let compressionAt = ifd.entry(TIFFTag.compression)?.valueOffset ?? ifd.offset
        switch compression {
        case TIFFCompression.none, TIFFCompression.lzw, TIFFCompression.packBits, TIFFCompression.adobeDeflate,
             TIFFCompression.deflate: break
        case TIFFCompression.ccittRLE, TIFFCompression.ccittT4, TIFFCompression.ccittT6:
            guard bitsPerSample == 1, spp == 1 else {
                throw .invalidTag(tag: TIFFTag.compression, name: "Compression", offset: compressionAt,
                                  reason: "CCITT fax needs 1 bit and 1 sample per pixel")
            }
            if compression == TIFFCompression.ccittT4 && t4Options & 1 != 0 {
                // 2-D T.4 is read as well; only uncompressed mode (bit 1) is unsupported.
            }
            if (compression == TIFFCompression.ccittT4 && t4Options & 2 != 0)
                || (compression == TIFFCompression.ccittT6 && t6Options & 2 != 0) {
                throw .unsupported(what: "CCITT uncompressed mode", value: compression, offset: compressionAt)
            }
        case TIFFCompression.jpeg:
            guard bitsPerSample == 8 else { throw .unsupported(what: "JPEG BitsPerSample", value: bitsPerSample, offset: bpsAt) }
            jpegTables = ifd.entry(TIFFTag.jpegTables)?.value
        case TIFFCompression.oldJPEG:
            throw .unsupported(what: "old-style JPEG compression", value: compression, offset: compressionAt)
        default:
            throw .unsupported(what: "Compression", value: compression, offset: compressionAt)
        }
        if photometric == TIFFPhotometric.ycbcr && compression != TIFFCompression.jpeg {
            try readYCbCr(ifd, photometricAt: photometricAt)
        }
        guard planar == 1 || planar == 2 else {
            throw .invalidTag(tag: TIFFTag.planarConfiguration, name: "PlanarConfiguration",
                              offset: ifd.entry(TIFFTag.planarConfiguration)?.valueOffset ?? ifd.offset, reason: "\(planar)")
        }
        if spp == 1 { planar = 1 }
        if planar == 2 && photometric == TIFFPhotometric.ycbcr && compression == TIFFCompression.jpeg {
            // Each plane would be a one-component JPEG of Y, Cb or Cr, left unconverted.
            throw .unsupported(what: "JPEG-compressed YCbCr in separate planes (PlanarConfiguration)", value: planar,
                               offset: ifd.entry(TIFFTag.planarConfiguration)?.valueOffset ?? ifd.offset)
        }
        let predictorAt = ifd.entry(TIFFTag.predictor)?.valueOffset ?? ifd.offset
        switch predictor {
        case 1: break
        case 2:
            guard bitsPerSample == 8 || bitsPerSample == 16 else {
                throw .unsupported(what: "horizontal predictor with BitsPerSample", value: bitsPerSample, offset: predictorAt)
            }
        case 3: throw .unsupported(what: "floating-point predictor", value: predictor, offset: predictorAt)
        default: throw .invalidTag(tag: TIFFTag.predictor, name: "Predictor", offset: predictorAt, reason: "\(predictor)")
        }
        if compression == TIFFCompression.jpeg { predictor = 1 }
        if photometric == TIFFPhotometric.palette { try readColorMap(ifd) }
        try readSegments(ifd, fileSize: fileSize, options: options)
    }

    /// TIFF 6.0 §18 ExtraSamples: the first extra sample that is alpha. Files that omit the
    /// tag for a fourth RGB sample, or call it unspecified, mean associated alpha (as
    /// libtiff reads them).
    private mutating func readAlpha(_ ifd: IFD) throws(TIFFError) {
        let extras = samplesPerPixel - colorSamples
        guard extras > 0, photometric != TIFFPhotometric.separated else { return }
        alphaSample = colorSamples
        guard let e = ifd.entry(TIFFTag.extraSamples), e.valueCount > 0 else {
            if photometric == TIFFPhotometric.rgb && samplesPerPixel == 4 { alpha = .associated }
            return
        }
        switch e.unsignedInteger(at: 0) {
        case 1: alpha = .associated
        case 2: alpha = .unassociated
        default: if samplesPerPixel > 3 && photometric == TIFFPhotometric.rgb { alpha = .associated }
        }
        if photometric == TIFFPhotometric.palette { alpha = .none }
    }

    /// TIFF 6.0 §21: YCbCrCoefficients, YCbCrSubsampling and ReferenceBlackWhite of YCbCr
    /// stored without JPEG. Subsampling (default 2×2) is 1, 2 or 4 each way; subsampled
    /// chroma is read interleaved (PlanarConfiguration 1), three samples, no predictor, as
    /// libtiff's RGBA interface reads it.
    private mutating func readYCbCr(_ ifd: IFD, photometricAt: Int) throws(TIFFError) {
        var horizontal = 2, vertical = 2
        let subsamplingAt = ifd.entry(TIFFTag.ycbcrSubsampling)?.valueOffset ?? photometricAt
        if let e = ifd.entry(TIFFTag.ycbcrSubsampling), let h = e.unsignedInteger(at: 0), let v = e.unsignedInteger(at: 1) {
            horizontal = Int(clamping: h)
            vertical = Int(clamping: v)
        }
        guard bitsPerSample == 8 else {
            throw .unsupported(what: "YCbCr BitsPerSample", value: bitsPerSample, offset: photometricAt)
        }
        for factor in [horizontal, vertical] where ![1, 2, 4].contains(factor) {
            throw .invalidTag(tag: TIFFTag.ycbcrSubsampling, name: "YCbCrSubsampling", offset: subsamplingAt,
                              reason: "\(factor), not 1, 2 or 4")
        }
        if horizontal != 1 || vertical != 1 {
            if planar != 1 && samplesPerPixel > 1 {
                throw .unsupported(what: "subsampled YCbCr in separate planes (PlanarConfiguration)", value: planar,
                                   offset: ifd.entry(TIFFTag.planarConfiguration)?.valueOffset ?? photometricAt)
            }
            guard samplesPerPixel == 3 else {
                throw .unsupported(what: "subsampled YCbCr with extra samples (SamplesPerPixel)", value: samplesPerPixel,
                                   offset: ifd.entry(TIFFTag.samplesPerPixel)?.valueOffset ?? photometricAt)
            }
            guard predictor == 1 else {
                throw .unsupported(what: "subsampled YCbCr with a predictor", value: predictor,
                                   offset: ifd.entry(TIFFTag.predictor)?.valueOffset ?? photometricAt)
            }
            chromaBlock = (horizontal, vertical)
        }
        func floats(_ tag: UInt16, _ defaults: [Float]) -> [Float] {
            guard let e = ifd.entry(tag), e.valueCount >= defaults.count else { return defaults }
            var values: [Float] = []
            for i in 0 ..< defaults.count {
                guard let v = e.double(at: i), v.isFinite, abs(v) < 1e6 else { return defaults }
                values.append(Float(v))
            }
            return values
        }
        ycbcr = YCbCrConversion(coefficients: floats(TIFFTag.ycbcrCoefficients, YCbCrConversion.defaultCoefficients),
                                reference: floats(TIFFTag.referenceBlackWhite, YCbCrConversion.defaultReference))
    }

    /// TIFF 6.0 §5 ColorMap: 3 × 2^BitsPerSample 16-bit values, all reds, then greens, then
    /// blues. Some writers store 8-bit values in them; as libtiff does, a map with no value
    /// above 255 is taken as 8-bit, any other keeps each value's high byte.
    private mutating func readColorMap(_ ifd: IFD) throws(TIFFError) {
        guard let e = ifd.entry(TIFFTag.colorMap), e.value != nil else {
            throw .missingTag(tag: TIFFTag.colorMap, name: "ColorMap", offset: ifd.offset)
        }
        let entries = 1 << bitsPerSample
        guard e.valueCount >= 3 * entries else {
            throw .invalidTag(tag: TIFFTag.colorMap, name: "ColorMap", offset: e.valueOffset,
                              reason: "\(e.valueCount) values, \(3 * entries) needed")
        }
        var values = [Int](repeating: 0, count: 3 * entries)
        var wide = false
        for i in 0 ..< 3 * entries {
            values[i] = Int(clamping: e.unsignedInteger(at: i) ?? 0)
            if values[i] > 255 { wide = true }
        }
        colorMap = [UInt8](repeating: 0, count: 3 * 256)
        for i in 0 ..< entries {
            for c in 0 ..< 3 {
                let v = values[c * entries + i]
                colorMap[3 * i + c] = UInt8(truncatingIfNeeded: wide ? v >> 8 : v)
            }
        }
    }

    /// TIFF 6.0 §8 (strips) and §15 (tiles): the segment grid, its offsets and byte counts,
    /// and the sizes a decode will allocate, checked before it does.
    private mutating func readSegments(_ ifd: IFD, fileSize: Int, options: TIFFOptions) throws(TIFFError) {
        let offsetsTag: UInt16, countsTag: UInt16
        let offsetsName: MessageText, countsName: MessageText
        if ifd.entry(TIFFTag.tileWidth) != nil || ifd.entry(TIFFTag.tileOffsets) != nil {
            tiled = true
            offsetsTag = TIFFTag.tileOffsets; countsTag = TIFFTag.tileByteCounts
            offsetsName = "TileOffsets"; countsName = "TileByteCounts"
            for (tag, name) in [(TIFFTag.tileWidth, "TileWidth" as MessageText), (TIFFTag.tileLength, "TileLength")] {
                guard let e = ifd.entry(tag) else { throw .missingTag(tag: tag, name: name, offset: ifd.offset) }
                guard let v = e.unsignedInteger(at: 0), v > 0, v <= UInt64(options.maxWidth), v <= UInt64(Int32.max) else {
                    throw .invalidTag(tag: tag, name: name, offset: e.valueOffset,
                                      reason: "zero or above the width limit \(options.maxWidth)")
                }
                if tag == TIFFTag.tileWidth { segmentWidth = Int(v) } else { segmentHeight = Int(v) }
            }
        } else {
            offsetsTag = TIFFTag.stripOffsets; countsTag = TIFFTag.stripByteCounts
            offsetsName = "StripOffsets"; countsName = "StripByteCounts"
            segmentWidth = width
            var rows = height
            if let e = ifd.entry(TIFFTag.rowsPerStrip), let v = e.unsignedInteger(at: 0) {
                guard v > 0 else {
                    throw .invalidTag(tag: TIFFTag.rowsPerStrip, name: "RowsPerStrip", offset: e.valueOffset, reason: "zero")
                }
                rows = Int(min(v, UInt64(height)))
            }
            segmentHeight = rows
        }
        across = (width + segmentWidth - 1) / segmentWidth
        down = (height + segmentHeight - 1) / segmentHeight
        planes = planar == 2 ? samplesPerPixel : 1
        let at = ifd.entry(offsetsTag)?.valueOffset ?? ifd.offset
        let (perPlane, o1) = across.multipliedReportingOverflow(by: down)
        let (total, o2) = perPlane.multipliedReportingOverflow(by: planes)
        guard !o1, !o2, total <= options.maxSegments else {
            throw .limitExceeded(what: "strip/tile count", value: o1 || o2 ? Int.max : total, limit: options.maxSegments, offset: at)
        }
        // Segment sides are at most the width limit (tiles) or the image's (strips), and
        // below 2^31: a row of blocks is at most 18 bytes a pixel.
        let (rowBits, o3) = (segmentWidth * samplesPerSegmentPixel).multipliedReportingOverflow(by: bitsPerSample)
        let (bytes, o4) = max((rowBits + 7) / 8, segmentRowBytes).multipliedReportingOverflow(by: segmentHeight)
        guard !o3, !o4, bytes <= options.maxSegmentBytes else {
            throw .limitExceeded(what: "strip/tile bytes", value: o3 || o4 ? Int.max : bytes,
                                 limit: options.maxSegmentBytes, offset: at)
        }
        let offsetsEntry = try required(ifd, offsetsTag, offsetsName)
        let countsEntry = try required(ifd, countsTag, countsName)
        offsetsAt = offsetsEntry.valueOffset
        countsAt = countsEntry.valueOffset
        for (e, name) in [(offsetsEntry, offsetsName), (countsEntry, countsName)] where e.valueCount < total {
            throw .invalidTag(tag: e.tag, name: name, offset: e.valueOffset, reason: "\(e.valueCount) values for \(total) strips/tiles")
        }
        offsets.reserveCapacity(total)
        counts.reserveCapacity(total)
        for i in 0 ..< total {
            guard let o = offsetsEntry.unsignedInteger(at: i), let c = countsEntry.unsignedInteger(at: i) else {
                throw .invalidTag(tag: offsetsTag, name: offsetsName, offset: offsetsAt, reason: "not unsigned integers")
            }
            offsets.append(o)
            counts.append(c)
        }
        // The first segment must at least start inside the file: nothing could be decoded.
        if total > 0 && offsets[0] >= UInt64(fileSize) {
            throw .segmentOutOfBounds(index: 0, pointer: Int(clamping: offsets[0]), fileSize: fileSize, offset: offsetsAt)
        }
    }

    private func required(_ ifd: IFD, _ tag: UInt16, _ name: MessageText) throws(TIFFError) -> IFDEntry {
        guard let e = ifd.entry(tag) else { throw .missingTag(tag: tag, name: name, offset: ifd.offset) }
        guard e.value != nil else {
            throw .invalidTag(tag: tag, name: name, offset: e.valueOffset, reason: "value unreadable (outside the file or too large)")
        }
        return e
    }
}
