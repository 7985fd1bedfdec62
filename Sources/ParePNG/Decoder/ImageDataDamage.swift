import PareCore

/// Damage in the image data that a decode with `PNGOptions.strict` false survives (the file
/// cut off, a zlib data error, a bad IDAT CRC, once at least one scanline was decoded): the
/// rows decoded before it are kept, every pixel after it is filled with zeros, and this
/// warning says where and what.
///
/// PNG 3rd ed. §13.1 ("Error handling") leaves a decoder free to present what it could
/// decode of a datastream whose image data is truncated or corrupt (a transmission error),
/// as browsers present a PNG cut off in transfer. Only the image data qualifies: an error in
/// the signature, IHDR, PLTE or any chunk before the first IDAT (a syntax error, §13.1) still
/// throws, whatever `strict` says, since without them no pixel can be understood.
///
/// The fill: pixels that were not decoded are all-zero samples in the decoder's output
/// format, so transparent where that format has alpha (as a browser shows the missing part
/// of a cut-off PNG: the page shows through) and black where it has none. Zeros, not a
/// repeat of the last good row, so that what was missing stays visible and nothing is
/// invented. A sequential image's missing rows are sent to the sink as zero rows, so every
/// sink sees every row. An Adam7 image's missing scanlines (§8.2) are not sent: the image a
/// full decode builds is zero where they belong, while the thumbnail's area filter
/// (`AreaAccumulator`) averages the pixels that did arrive, as it was built to for a stream
/// cut short, so an image cut in its last passes still gives a fair thumbnail rather than
/// one darkened by the zeros between its pixels; output cells no pixel reached are zero.
public struct PNGWarning: Equatable, Sendable {
    /// What was wrong: the error a strict decode throws, with its byte offset.
    public var damage: PNGError
    /// Scanlines decoded before the damage, counted in the order the image data stores
    /// them (pass after pass for Adam7).
    public var scanlinesDecoded: Int
    /// Scanlines missing after it (sent as zeros for a sequential image, left out for
    /// Adam7); 0 when the damage came after the last scanline (a bad CRC on the last IDAT,
    /// the file cut before IEND).
    public var scanlinesFilled: Int
    /// True when the output format has alpha, so the filled pixels are transparent rather
    /// than black.
    public var filledTransparent: Bool

    public init(damage: PNGError, scanlinesDecoded: Int, scanlinesFilled: Int, filledTransparent: Bool) {
        self.damage = damage
        self.scanlinesDecoded = scanlinesDecoded
        self.scanlinesFilled = scanlinesFilled
        self.filledTransparent = filledTransparent
    }

    /// The byte offset the damage was found at (see `PNGError` for how each case places it).
    public var offset: Int { damage.offset ?? 0 }
}

extension PNGWarning: CustomStringConvertible {
    /// One line, as the errors': "PNG: zlib data error in image data: invalid distance too
    /// far back; 120 of 480 scanlines decoded, the rest filled transparent at byte 5021".
    public var description: String {
        var reason = damage.description
        if reason.hasPrefix("PNG: ") { reason = String(reason.dropFirst(5)) }
        let suffix = " at byte \(offset)"
        if reason.hasSuffix(suffix) { reason = String(reason.dropLast(suffix.count)) }
        let total = scanlinesDecoded + scanlinesFilled
        let rest = scanlinesFilled == 0 ? "after every scanline was decoded"
            : "\(scanlinesDecoded) of \(total) scanlines decoded, the rest filled \(filledTransparent ? "transparent" : "black")"
        return "PNG: \(reason); \(rest) at byte \(offset)"
    }
}

extension PNGError {
    /// The byte offset the error names, nil for those that name none (the ledger's, a
    /// missing signature at byte 0 aside, and the encoder's).
    public var offset: Int? {
        switch self {
        case .core, .unsupportedEncoding: return nil
        case .badSignature: return 0
        case let .truncated(offset, _, _), let .invalidChunkType(offset), let .chunkTooLong(_, offset, _, _),
             let .crcMismatch(_, offset), let .missingIHDR(offset), let .chunkOutOfOrder(_, offset, _),
             let .invalidIHDR(offset, _), let .invalidPalette(offset, _), let .missingPLTE(offset),
             let .missingIDAT(offset), let .unknownCriticalChunk(_, offset), let .zlibDataError(offset, _),
             let .notEnoughImageData(offset, _), let .invalidFilterType(offset, _, _),
             let .paletteIndexOutOfRange(offset, _, _, _), let .limitExceeded(_, _, _, offset), let .noImage(offset):
            return offset
        }
    }

    /// Whether this error, met once the image data has begun, is damage a non-strict decode
    /// survives (§13.1's transmission errors): the file ends (`truncated`: cut off in
    /// transfer), zlib refuses the data (`zlibDataError`, RFC 1950/1951), or an IDAT's CRC
    /// does not match (`crcMismatch`, §5.3). The rest stay errors: limits, the ledger and
    /// cancellation are no damage; and an IDAT run that ends, whole, before the last scanline
    /// (`notEnoughImageData`), a filter type outside 0–4 (§7.3) or a palette index past PLTE
    /// are what libpng refuses as fatal and the conformance corpus lists as rejected, the
    /// mark of a broken encoder or a fuzzed file rather than of a transfer cut short.
    var isImageDataDamage: Bool {
        switch self {
        case .truncated, .zlibDataError, .crcMismatch:
            return true
        default:
            return false
        }
    }
}

extension PNGDecoder {
    /// Ends a decode that met `error` after `beginRows(into:)`: a strict decode, an error
    /// that is no image data damage, or damage before the first scanline rethrows it;
    /// otherwise the scanlines not yet sent are made zero (`fillRemaining`) and a
    /// `PNGWarning` is added to `warnings`. The chunks after
    /// the damage are not read (the reader's place in the file is no longer known), so
    /// metadata after the image data is missing.
    @_spi(Stages)
    public mutating func survive<Sink: RowSink>(_ error: PNGError, rows: inout ScanlineReconstruction,
                                                into sink: inout Sink) throws(PNGError) {
        // With no scanline decoded there is nothing to keep: the damage is the whole image.
        guard !options.strict, error.isImageDataDamage, rows.delivered > 0 else { throw error }
        let decoded = rows.delivered
        let filled = try rows.fillRemaining(into: &sink, ledger: ledger)
        warnings.append(PNGWarning(damage: error, scanlinesDecoded: decoded, scanlinesFilled: filled,
                                   filledTransparent: outputFormat.hasAlpha))
    }
}

extension ScanlineReconstruction {
    /// Passes over every scanline not yet sent and returns how many there were; for a
    /// sequential image each is sent as a row of zeros (see `PNGWarning` for why Adam7's are
    /// not). The zero row is counted by `ledger`.
    mutating func fillRemaining<Sink: RowSink>(into sink: inout Sink, ledger: MemoryLedger) throws(PNGError) -> Int {
        let missing = order.count - delivered
        guard missing > 0 else { return 0 }
        // Only the one pass of a sequential image has steps of 1 both ways.
        guard order.passes.count == 1, order.passes[0].pass.xStep == 1, order.passes[0].pass.yStep == 1 else {
            delivered = order.count
            return missing
        }
        let pixelBytes = expander.outputFormat.bytesPerPixel
        let zeros: LedgerBuffer<UInt8>
        do {
            // The widest pass is the image's width (pass 7 of Adam7, or the one pass).
            let width = order.passes.reduce(0) { max($0, $1.width) }
            zeros = try ledger.allocate(UInt8.self, count: width * pixelBytes, initialValue: 0)
        } catch {
            throw .core(error)
        }
        for _ in 0 ..< missing {
            let pass = order.passes[cursor.passIndex]
            let y = pass.pass.yOrigin + cursor.row * pass.pass.yStep
            do {
                try sink.consume(UnsafeBufferPointer(start: zeros.baseAddress, count: pass.width * pixelBytes),
                                 at: RowPlacement(y: y, xOrigin: pass.pass.xOrigin, xStep: pass.pass.xStep, width: pass.width))
            } catch {
                throw .core(error)
            }
            cursor.advance(in: order)
            delivered += 1
        }
        return missing
    }
}
