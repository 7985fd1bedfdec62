import PareCore

/// The row stage (PNG 3rd ed. §9.2–§9.4, §11.2): each inflated scanline unfiltered against
/// the previous one of its pass, expanded into the output pixel format by `PixelExpander`,
/// and handed to the sink at its place in the image (§8.2 for Adam7 passes). It needs only
/// the scanlines, in `ScanlineOrder`, and its own two row buffers, counted by the decoder's
/// ledger.
@_spi(Stages)
public struct ScanlineReconstruction {
    let expander: PixelExpander
    let order: ScanlineOrder
    /// Bytes per complete pixel for the filters, 1 below 8 bits per pixel (§9.2).
    let bpp: Int
    let nativeRow: LedgerBuffer<UInt8>?
    let outputRow: LedgerBuffer<UInt8>?
    let paletteSize: Int
    var cursor = ScanlineOrder.Cursor()
    /// Scanlines sent to the sink so far, in `order`.
    public internal(set) var delivered = 0

    /// True when the next scanline is the first of its pass: its previous scanline is then
    /// all zeros (§9.2).
    public var startsPass: Bool { cursor.row == 0 }

    /// Unfilters `line` (a filtered scanline, filter byte first) in place against
    /// `previous` (the reconstructed scanline before it in its pass, or zeros for its first,
    /// filter byte first too) and sends its pixels to `sink`. Both hold the scanline's
    /// bytes. `offset` is the file position errors point at.
    public mutating func reconstruct<Sink: RowSink>(_ line: UnsafeMutablePointer<UInt8>, previous: UnsafePointer<UInt8>,
                                                    offset: Int, into sink: inout Sink) throws(PNGError) {
        let pass = order.passes[cursor.passIndex]
        let y = pass.pass.yOrigin + cursor.row * pass.pass.yStep
        let data = line + 1
        let filter = line[0]
        guard ScanlineFilter.unfilter(filter, current: data, previous: previous + 1, count: pass.rowBytes, bpp: bpp) else {
            throw .invalidFilterType(offset: offset, row: y, filter: filter)
        }
        var pixels = UnsafePointer(data)
        if let nativeRow {
            if let index = expander.expandToNative(data, width: pass.width, into: nativeRow.baseAddress) {
                throw .paletteIndexOutOfRange(offset: offset, row: y, index: index, entries: paletteSize)
            }
            pixels = UnsafePointer(nativeRow.baseAddress)
        }
        if let outputRow {
            expander.convertToRGBA8(pixels, width: pass.width, into: outputRow.baseAddress)
            pixels = UnsafePointer(outputRow.baseAddress)
        }
        do {
            try sink.consume(UnsafeBufferPointer(start: pixels, count: pass.width * expander.outputFormat.bytesPerPixel),
                             at: RowPlacement(y: y, xOrigin: pass.pass.xOrigin, xStep: pass.pass.xStep, width: pass.width))
        } catch {
            throw .core(error)
        }
        cursor.advance(in: order)
        delivered += 1
    }
}

extension PNGDecoder {
    /// Starts the decode: refuses a second one, begins the sink's row stream and makes the
    /// row stage. The image data follows with `beginImageData(ledger:)`.
    @_spi(Stages)
    public mutating func beginRows<Sink: RowSink>(into sink: inout Sink) throws(PNGError) -> ScanlineReconstruction {
        if decoded {
            throw .chunkOutOfOrder(chunk: "IDAT", offset: firstImageChunk.offset, reason: "image already decoded")
        }
        decoded = true
        let expander = self.expander
        let width = header.width
        // 64 bits is the widest stored or output pixel: with that product in range, every
        // row size is too.
        guard !width.multipliedReportingOverflow(by: 64).overflow else { throw .core(.sizeOverflow) }
        do {
            try sink.begin(RowStreamHeader(width: width, height: header.height, format: expander.outputFormat,
                                           interlaced: header.interlaced))
        } catch {
            throw .core(error)
        }
        let nativeRow: LedgerBuffer<UInt8>?, outputRow: LedgerBuffer<UInt8>?
        do {
            nativeRow = expander.storedIsNative ? nil
                : try ledger.allocate(UInt8.self, count: width * expander.nativeFormat.bytesPerPixel, initialValue: 0)
            outputRow = expander.outputFormat == expander.nativeFormat ? nil
                : try ledger.allocate(UInt8.self, count: width * 4, initialValue: 0)
        } catch {
            throw .core(error)
        }
        return ScanlineReconstruction(expander: expander, order: scanlineOrder, bpp: max(1, header.bitsPerPixel / 8),
                                      nativeRow: nativeRow, outputRow: outputRow, paletteSize: metadata.paletteSize)
    }
}
