import PareCore
import PareJPEG

/// The binary Netpbm formats (P5, P6, P7), the raw pictures that tools pass between them.
enum NetpbmFormatReader: FormatReader {
    static let format = ImageFormat.netpbm

    /// `P5`, `P6` or `P7` and the whitespace after it (pgm(5), ppm(5), pam(5)): two letters
    /// alone would take a text file beginning "P5" for a picture.
    static func matches(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 3 && prefix[0] == UInt8(ascii: "P")
            && (UInt8(ascii: "5") ... UInt8(ascii: "7")).contains(prefix[1]) && NetpbmHeaderReader.isSpace(prefix[2])
    }

    static func properties(of input: InputBytes, options: ThumbnailOptions,
                           ledger: MemoryLedger) throws(PareError) -> ImageProperties {
        let decoder = try NetpbmDecoder(source: input, ledger: ledger)
        return ImageProperties(format: .netpbm, pixelWidth: decoder.width, pixelHeight: decoder.height,
                               bitDepth: decoder.maxValue > 255 ? 16 : 8, hasAlpha: decoder.format.hasAlpha,
                               colorModel: decoder.format.isGray ? .gray : .rgb)
    }

    static func decodeMainImage<Sink: RowSink>(_ input: InputBytes, scale: JPEGScale, job: DecodeJob,
                                               into sink: inout Sink) throws(PareError) -> [ThumbnailWarning] {
        try NetpbmDecoder(source: input, ledger: job.ledger).decode(into: &sink)
        return []
    }
}
