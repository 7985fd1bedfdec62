import PareCore
import PareJPEG
import PareEXIF
@_spi(Pipeline) import PareTIFF
import ParePNG

/// TIFF (TIFF 6.0; BigTIFF): the first page's image (PareTIFF), its EXIF thumbnail, and in a
/// camera RAW file laid out as TIFF (DNG, NEF, ARW, CR2, PEF, SRW, ORF, RW2) the JPEG
/// previews, which are then the only sources: raw sensor data is never decoded.
enum TIFFFormatReader: FormatReader {
    static let format = ImageFormat.tiff

    /// A header's byte order and version, 42 or BigTIFF's 43 (TIFF 6.0 §2), or the magic
    /// numbers RAW formats put there instead: Olympus's "RO" and "RS", Panasonic's 0x55.
    static func matches(_ prefix: [UInt8]) -> Bool {
        signatures.contains { prefix.starts(with: $0) }
    }

    static let signatures: [[UInt8]] = [
        [0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B],
        Array("IIRO".utf8), Array("IIRS".utf8), Array("MMOR".utf8), [0x49, 0x49, 0x55, 0x00],
    ]

    static func properties(of input: InputBytes, options: ThumbnailOptions,
                           ledger: MemoryLedger) throws(PareError) -> ImageProperties {
        // A RAW file's previews; a plain TIFF has none worth the name (its IFD1 thumbnail is
        // the EXIF thumbnail below).
        var raw = try? EXIFReader.readRawPreviews(input, options: options.exif)
        if raw?.format == .tiff { raw = nil }
        let exif: EXIFMetadata
        do {
            exif = try EXIFReader.readTIFFFile(input, options: options.exif)
        } catch {
            // ORF and RW2 headers are not TIFF's: their previews alone describe them.
            guard let raw else { throw PareError(error) }
            var properties = ImageProperties(format: .tiff, pixelWidth: 0, pixelHeight: 0, orientation: raw.orientation)
            properties.describeRaw(raw)
            return properties
        }
        // The main image is the one IFD0 describes (TIFF 6.0 §3); Exif's size is a fallback.
        // TIFF 6.0 §8 stores a size as SHORT or LONG, BigTIFF also as LONG8: a size outside
        // 1 … 2^31 − 1 (PNG's bound, the largest any format here describes) counts as
        // unknown, so that the source choice's arithmetic on it cannot overflow.
        func dimension(_ value: Int?) -> Int? {
            value.flatMap { (1 ... Int(Int32.max)).contains($0) ? $0 : nil }
        }
        var properties = ImageProperties(format: .tiff,
                                         pixelWidth: dimension(exif.imageWidth) ?? dimension(exif.pixelWidth) ?? 0,
                                         pixelHeight: dimension(exif.imageHeight) ?? dimension(exif.pixelHeight) ?? 0,
                                         orientation: exif.orientation)
        properties.describe(exif)
        properties.metadataWarnings = exif.warnings
        properties.colour = SourceColour.tiff(exif, in: input, options: options.icc)
        let ifd0 = exif.ifds.first { $0.name == "IFD0" }
        properties.bitDepth = ifd0?.entry(0x0102)?.integer().flatMap { Int(exactly: $0) }
        properties.hasAlpha = ifd0?.entry(0x0152) != nil
        switch ifd0?.entry(0x0106)?.integer() {
        case 0, 1: properties.colorModel = .gray
        case 2: properties.colorModel = .rgb
        case 3: properties.colorModel = .palette
        case 5: properties.colorModel = .cmyk
        case 6: properties.colorModel = .yCbCr
        default: properties.colorModel = .unknown
        }
        properties.exifThumbnail = EmbeddedImageInfo(exifThumbnailOf: exif)
        if let raw { properties.describeRaw(raw) }
        return properties
    }

    /// Strips or tiles streamed a strip or a row of tiles at a time (`TIFFDecoder`); never
    /// a RAW file's sensor data.
    static func decodeMainImage<Sink: RowSink>(_ input: InputBytes, scale: JPEGScale, job: DecodeJob,
                                               into sink: inout Sink) throws(PareError) -> [ThumbnailWarning] {
        if let raw = try? EXIFReader.readRawPreviews(input, options: job.options.exif), raw.format != .tiff {
            throw .unsupported("camera RAW sensor data (only its JPEG previews are read)")
        }
        return try decodeMain(input, options: job.options.tiff, job: job, error: PareError.init,
                              warning: ThumbnailWarning.tiff) { (decoder: inout TIFFDecoder<InputBytes>) throws(TIFFError) in
            // With a second core, the strips' decompression is shared between two threads.
            func decode<Target: RowSink>(into target: inout Target) throws(TIFFError) {
                if job.workers > 1 {
                    try decoder.decodePipelined(handoff: DecodePipelineThreads(slots: 4), into: &target)
                } else {
                    try decoder.decode(into: &target)
                }
            }
            if decoder.outputFormat == .cmyk8 && !job.options.jpeg.cmykSamples {
                // No CMYK profile to convert with (the colour stage asks for ink samples only
                // when it has one): the inks become RGB as tiff2rgba makes them.
                var inks = InkToRGBSink(ledger: job.ledger, downstream: sink)
                try decode(into: &inks)
                sink = inks.downstream
            } else {
                try decode(into: &sink)
            }
        }
    }
}

extension ImageProperties {
    /// A RAW file is described by its previews: the largest is the picture's size (the
    /// sensor's is of no use, its data never being decoded), each with a size is a source,
    /// and IFD0's orientation turns them.
    mutating func describeRaw(_ raw: RawPreviews) {
        isRaw = true
        orientation = raw.orientation
        previews = raw.previews.enumerated().compactMap { index, preview in
            guard let width = preview.width, let height = preview.height, width > 0, height > 0 else { return nil }
            return EmbeddedImageInfo(kind: .rawPreview(index: index), offset: preview.offset, length: preview.length,
                                     width: width, height: height)
        }
        exifThumbnail = nil
        if let largest = previews.max(by: { $0.width * $0.height < $1.width * $1.height }) {
            pixelWidth = largest.width
            pixelHeight = largest.height
        }
        colorModel = .yCbCr
        bitDepth = 8
        hasAlpha = false
    }
}

/// CMYK rows (TIFF Photometric 5, inks: 0 none, 255 full) made RGB without a profile, as
/// libtiff's RGBA interface does: R = (255 − C)(255 − K) / 255, truncated, and so for G
/// with M and B with Y.
struct InkToRGBSink<Downstream: RowSink>: RowSink {
    var downstream: Downstream
    let ledger: MemoryLedger
    var scratch: LedgerBuffer<UInt8>?

    init(ledger: MemoryLedger, downstream: Downstream) {
        self.ledger = ledger
        self.downstream = downstream
    }

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        guard header.format == .cmyk8 else { return try downstream.begin(header) }
        let (bytes, overflow) = header.width.multipliedReportingOverflow(by: 3)
        if overflow { throw .sizeOverflow }
        scratch = try ledger.allocate(UInt8.self, count: bytes, initialValue: 0)
        var rgb = header
        rgb.format = .rgb8
        try downstream.begin(rgb)
    }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        guard let scratch else { return try downstream.consume(row, at: placement) }
        let width = min(placement.width, row.count / 4, scratch.count / 3)
        for x in 0 ..< width {
            let k = 255 - Int(row[4 * x + 3])
            for c in 0 ..< 3 { scratch.buffer[3 * x + c] = UInt8((255 - Int(row[4 * x + c])) * k / 255) }
        }
        try downstream.consume(UnsafeBufferPointer(start: scratch.baseAddress, count: width * 3), at: placement)
    }
}
