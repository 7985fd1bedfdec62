import PareCore

/// Converts decoded rows to sRGB on their way to `downstream` (the resampler, an encoder,
/// an image builder): colour is converted at the resolution the decoder gives (a JPEG's
/// reduced DCT scale), before any resampling, as a reference converts the whole image and
/// then resizes it. Converting after resampling would average pixels in the source's
/// encoding and then map the averages through the curves, which differs wherever those
/// curves bend strongly (a Cineon log curve, gamma 1.0 gray).
///
/// With no converter, with an sRGB source (`SRGBConverter.isIdentity`) or with rows the
/// converter does not fit (gray rows for an RGB profile), rows pass through untouched and
/// nothing is allocated. Otherwise one row of 8-bit samples is held (and for CMYK rows the
/// profile's resampled grid, `CMYKCodeGrid`, both counted in the ledger), and the downstream sees
/// 8-bit rows of the same channels (`PixelFormat.eightBit`), RGB for CMYK.
public struct SRGBConvertingSink<Downstream: RowSink>: RowSink {
    public var downstream: Downstream
    let converter: SRGBConverter?
    /// The converter for `cmyk8` rows.
    let cmyk: SRGBConverter?
    let ledger: MemoryLedger
    var rows: SRGBRowConverter?
    var scratch: LedgerBuffer<UInt8>?
    /// The ledger's record of what the rows allocate themselves (`workingBytes`).
    var working: LedgerReservation?
    /// Set by `begin`: true when the rows downstream are sRGB (converted, or sRGB already),
    /// false when there was no converter or it did not fit the rows' format.
    public private(set) var isSRGB = false
    /// Set by `begin`: true when CMYK rows are converted (`cmyk` took them).
    public private(set) var convertedCMYK = false

    public init(converter: SRGBConverter?, cmyk: SRGBConverter? = nil, ledger: MemoryLedger, downstream: Downstream) {
        self.converter = converter
        self.cmyk = cmyk
        self.ledger = ledger
        self.downstream = downstream
    }

    public mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        rows = nil
        scratch = nil
        working = nil
        isSRGB = false
        convertedCMYK = false
        guard let converter = header.format == .cmyk8 ? cmyk : self.converter, converter.accepts(header.format) else {
            try downstream.begin(header)
            return
        }
        isSRGB = true
        convertedCMYK = header.format == .cmyk8
        if converter.isIdentity {
            try downstream.begin(header)
            return
        }
        var converted = header
        converted.format = converter.outputFormat(for: header.format)
        let (bytes, overflow) = header.width.multipliedReportingOverflow(by: converted.format.bytesPerPixel)
        if overflow { throw .sizeOverflow }
        scratch = try ledger.allocate(UInt8.self, count: bytes, initialValue: 0)
        rows = converter.rows(for: header.format)
        if let bytes = rows?.workingBytes, bytes > 0 {
            let working = LedgerReservation(ledger: ledger)
            try working.grow(bytes: bytes)
            self.working = working
        }
        try downstream.begin(converted)
    }

    public mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        guard let outputChannels = rows?.outputChannels, let scratch else {
            try downstream.consume(row, at: placement)
            return
        }
        let width = min(placement.width, scratch.count / outputChannels)
        // In place: the rows' resampled CMYK grid fills as pixels reach its cells.
        rows!.convert(row, into: scratch.buffer, width: width)
        try downstream.consume(UnsafeBufferPointer(start: scratch.baseAddress, count: width * outputChannels),
                           at: placement)
    }
}
