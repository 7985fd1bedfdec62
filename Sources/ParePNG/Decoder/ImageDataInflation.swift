@_spi(Codec) import PareCore

/// The image data stage (PNG 3rd ed. §10, §10.1): the concatenated data of the IDAT run,
/// each chunk's CRC-32 checked as its last byte is read, inflated one filtered scanline at
/// a time. Its buffers (the compressed-input buffer and the inflater's) are counted by the
/// ledger it was begun with, which may be another thread's: this stage touches nothing else
/// but the decoder's chunk reader, so it can run on a thread of its own while
/// `ScanlineReconstruction` works through the scanlines it has already inflated.
@_spi(Stages)
public struct ImageDataInflation {
    let inflater: Inflater
    let input: LedgerBuffer<UInt8>
    let order: ScanlineOrder
    var cursor = ScanlineOrder.Cursor()
    /// Scanlines not yet inflated, for `notEnoughImageData`.
    var rowsLeft: Int
}

extension PNGDecoder {
    /// The scanlines of the image data, in the order they are inflated.
    @_spi(Stages)
    public var scanlineOrder: ScanlineOrder { ScanlineOrder(header: header) }

    /// The file offset the decoder has read up to: where errors found in a scanline point.
    @_spi(Stages)
    public var position: Int { reader.position }

    /// Starts inflating the IDAT run whose first header `init` read, counting the stage's
    /// buffers in `ledger`. Call it after `beginRows(into:)`, once.
    @_spi(Stages)
    public mutating func beginImageData(ledger: MemoryLedger) throws(PNGError) -> ImageDataInflation {
        let input: LedgerBuffer<UInt8>
        do {
            input = try ledger.allocate(UInt8.self, count: Self.inputBufferSize, initialValue: 0)
        } catch {
            throw .core(error)
        }
        let inflater = try Inflater.forPNG(ledger: ledger, verifiesChecksum: options.verifiesZlibChecksum)
        reader.beginImageData(firstImageChunk)
        let order = scanlineOrder
        return ImageDataInflation(inflater: inflater, input: input, order: order, rowsLeft: order.count)
    }

    /// Inflates exactly the next filtered scanline, its filter byte first, into `line`
    /// (which holds at least `scanlineOrder.maxLineBytes`), reading IDAT chunks as the
    /// inflater asks for more.
    @_spi(Stages)
    public mutating func inflateScanline(_ stage: inout ImageDataInflation,
                                         into line: UnsafeMutablePointer<UInt8>) throws(PNGError) {
        let rowBytes = stage.order.passes[stage.cursor.passIndex].rowBytes
        let inflater = stage.inflater
        let inputBuffer = UnsafeMutableRawBufferPointer(start: stage.input.baseAddress, count: stage.input.count)
        var filled = 0
        while filled <= rowBytes {
            if inflater.needsInput {
                let n = try reader.readImageData(into: inputBuffer)
                if n == 0 { throw .notEnoughImageData(offset: reader.position, rowsMissing: stage.rowsLeft) }
                inflater.supply(stage.input.baseAddress, count: n)
            }
            filled += try inflater.inflate(into: line + filled, count: rowBytes + 1 - filled, offset: reader.position)
            if inflater.finished && filled <= rowBytes {
                throw .notEnoughImageData(offset: reader.position, rowsMissing: stage.rowsLeft)
            }
        }
        stage.cursor.advance(in: stage.order)
        stage.rowsLeft -= 1
    }

    /// After the last scanline: inflates what is left of the zlib stream into `scratch`
    /// (bounded by `maxDecompressedExcess`, so a zip bomb stops early; corrupt data, or a
    /// wrong Adler-32 when `verifiesZlibChecksum` is set, is still an error), then reads the
    /// rest of the IDAT run, checking each CRC. Every pixel is known by then, so an IDAT run
    /// that ends before the zlib stream does, or data after the stream's end, is accepted.
    @_spi(Stages)
    public mutating func finishImageData(_ stage: inout ImageDataInflation,
                                         scratch: UnsafeMutablePointer<UInt8>, count: Int) throws(PNGError) {
        let inflater = stage.inflater
        let inputBuffer = UnsafeMutableRawBufferPointer(start: stage.input.baseAddress, count: stage.input.count)
        var excess = 0
        while !inflater.finished {
            if inflater.needsInput {
                let n = try reader.readImageData(into: inputBuffer)
                if n == 0 { return }
                inflater.supply(stage.input.baseAddress, count: n)
            }
            excess += try inflater.inflate(into: scratch, count: count, offset: reader.position)
            if excess > options.maxDecompressedExcess {
                throw .limitExceeded(what: "decompressed bytes after the last scanline",
                                     value: excess, limit: options.maxDecompressedExcess, offset: reader.position)
            }
        }
        while try reader.readImageData(into: inputBuffer) > 0 {}
    }
}

/// The IDAT chunks' CRC-32s (PNG 3rd ed. §5.3) checked by a second reader of the same file,
/// so that the image data stage, run with `checksImageDataCRC` false, only reads and
/// inflates. The checks come out where the serial decode makes them: that decode checks an
/// IDAT's CRC when the inflater asks for input past the chunk's last byte, so by the time its reader
/// has reached a position P it has checked exactly the chunks whose data ends before P.
/// `check(upTo: P)` checks those, in file order, with the same reading code (`ChunkReader`),
/// so a mismatch, or a damaged or cut chunk header after a chunk, throws the serial decode's
/// error with its offset.
@_spi(Stages)
public struct ImageDataCRCCheck<Source: ByteSource> {
    var reader: ChunkReader<Source>
    let scratch: LedgerBuffer<UInt8>

    /// The window and the scratch buffer the checks read through: small, as the reads are
    /// sequential.
    static var bufferSize: Int { 16 * 1024 }

    /// Checks every IDAT CRC the serial decode has checked once its reader is at `position`.
    public mutating func check(upTo position: Int) throws(PNGError) {
        let buffer = UnsafeMutableRawBufferPointer(start: scratch.baseAddress, count: scratch.count)
        while reader.position < position {
            if try reader.readImageData(into: buffer) == 0 { return }
        }
    }

    /// Checks the rest of the IDAT run: the serial decode's reader reads it all once the
    /// image data has been inflated.
    public mutating func checkAll() throws(PNGError) {
        try check(upTo: Int.max)
    }
}

extension PNGDecoder {
    /// Whether the image data stage checks each IDAT's CRC itself (the default). Set it to
    /// false only where an `ImageDataCRCCheck` follows the stage's reader.
    @_spi(Stages)
    public var checksImageDataCRC: Bool {
        get { reader.checksImageCRC }
        set { reader.checksImageCRC = newValue }
    }

    /// A second reader of the IDAT run for its CRCs, its buffers counted by `ledger`.
    @_spi(Stages)
    public func imageDataCRCCheck(ledger: MemoryLedger) throws(PNGError) -> ImageDataCRCCheck<Source> {
        let size = ImageDataCRCCheck<Source>.bufferSize
        let reader = try reader.sibling(streamingImageDataFrom: firstImageChunk, ledger: ledger, windowSize: size)
        let scratch: LedgerBuffer<UInt8>
        do {
            scratch = try ledger.allocate(UInt8.self, count: size, initialValue: 0)
        } catch {
            throw .core(error)
        }
        return ImageDataCRCCheck(reader: reader, scratch: scratch)
    }
}
