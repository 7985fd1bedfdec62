@_spi(Codec) import PareCore

/// PareCore's `Inflater` with PNG's errors: the image data stage and `PNGStructure` inflate
/// through these, and the compressed metadata chunks (iCCP, zTXt, iTXt) through
/// `inflateWhole`.
extension Inflater {
    /// An inflater whose buffers the ledger refusing is a `PNGError`.
    static func forPNG(ledger: MemoryLedger, verifiesChecksum: Bool = true) throws(PNGError) -> Inflater {
        do throws(CoreError) { return try Inflater(ledger: ledger, verifiesChecksum: verifiesChecksum) } catch {
            throw .core(error)
        }
    }

    /// `inflate(into:count:)`, its errors a `zlibDataError` at `offset`, the file position
    /// the caller has read up to.
    func inflate(into output: UnsafeMutableRawPointer, count: Int, offset: Int) throws(PNGError) -> Int {
        do throws(InflateError) { return try inflate(into: output, count: count) } catch {
            throw .zlibDataError(offset: offset, message: error.message)
        }
    }

    /// Inflates a whole zlib stream held in memory (iCCP, zTXt, iTXt) into at most `limit`
    /// bytes. `offset` is where the stream starts in the file. `produced` grows by the bytes
    /// inflated, also when it throws, so that a caller can bound the work of many streams.
    static func inflateWhole(_ compressed: [UInt8], limit: Int, offset: Int, ledger: MemoryLedger,
                             produced: inout Int) throws(PNGError) -> [UInt8] {
        let inflater = try Inflater.forPNG(ledger: ledger)
        let chunk: LedgerBuffer<UInt8>
        do { chunk = try ledger.allocate(UInt8.self, count: 16 * 1024, initialValue: 0) } catch { throw .core(error) }
        let input: LedgerBuffer<UInt8>
        do { input = try ledger.allocate(UInt8.self, count: compressed.count, initialValue: 0) } catch { throw .core(error) }
        for i in 0 ..< compressed.count { input.baseAddress[i] = compressed[i] }
        inflater.supply(UnsafeMutableRawPointer(input.baseAddress), count: compressed.count)
        var result: [UInt8] = []
        while !inflater.finished {
            let consumed = compressed.count - inflater.availableInput
            let n = try inflater.inflate(into: chunk.baseAddress, count: min(chunk.count, limit - result.count + 1),
                                         offset: offset + consumed)
            produced += n
            if n == 0 && !inflater.finished {
                throw .zlibDataError(offset: offset + compressed.count, message: "stream ends early")
            }
            guard result.count + n <= limit else {
                throw .limitExceeded(what: "inflated metadata bytes", value: result.count + n, limit: limit, offset: offset)
            }
            result.append(contentsOf: UnsafeBufferPointer(start: chunk.baseAddress, count: n))
        }
        return result
    }
}
