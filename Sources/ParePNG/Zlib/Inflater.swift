import PareCore
import CZlib

/// A zlib stream being inflated (RFC 1950/1951; PNG 3rd ed. §10), fed from a bounded
/// input buffer and drained into whatever output the caller offers: the next scanline.
/// zlib's state and window are counted by the ledger through `ZlibMemory`.
final class Inflater {
    private let memory: ZlibMemory
    private let stream: UnsafeMutablePointer<z_stream>
    /// True once zlib has reported the end of the stream (its Adler-32 checked, if asked).
    private(set) var finished = false

    /// `verifiesChecksum: false` has zlib neither compute nor check the stream's Adler-32
    /// (`inflateValidate`, zlib 1.2.9 and later); every other check stays.
    init(ledger: MemoryLedger, verifiesChecksum: Bool = true) throws(PNGError) {
        memory = ZlibMemory(ledger: ledger)
        do { try ledger.reserve(bytes: MemoryLayout<z_stream>.stride) } catch { throw .core(error) }
        stream = .allocate(capacity: 1)
        stream.initialize(to: memory.makeStream())
        ledger.noteAllocated()
        let status = inflateInit_(stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            // deinit still runs (every stored property is set) and gives the stream back.
            let refusal = memory.refusal
            throw .core(refusal ?? .limitExceeded(requested: 0, inUse: ledger.currentBytes, limit: ledger.limit ?? 0))
        }
        if !verifiesChecksum { inflateValidate(stream, 0) }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        memory.ledger.release(bytes: MemoryLayout<z_stream>.stride)
    }

    /// Compressed bytes supplied and not yet consumed.
    var availableInput: Int { Int(stream.pointee.avail_in) }

    /// Hands zlib the next compressed bytes; the buffer must stay valid until consumed.
    func supply(_ input: UnsafeMutableRawPointer, count: Int) {
        stream.pointee.next_in = input.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = uInt(count)
    }

    /// Inflates into `output[0 ..< count]` and returns how many bytes were produced. Stops
    /// when the output is full, the input is used up, or the stream ends (`finished`).
    /// `offset` names the file position for errors.
    func inflate(into output: UnsafeMutableRawPointer, count: Int, offset: Int) throws(PNGError) -> Int {
        guard !finished, count > 0 else { return 0 }
        stream.pointee.next_out = output.assumingMemoryBound(to: Bytef.self)
        // zlib counts in 32 bits; a caller with more room simply calls again.
        stream.pointee.avail_out = uInt(min(count, 1 << 30))
        let status = CZlib.inflate(stream, Z_NO_FLUSH)
        let produced = min(count, 1 << 30) - Int(stream.pointee.avail_out)
        switch status {
        case Z_OK, Z_BUF_ERROR:
            return produced
        case Z_STREAM_END:
            finished = true
            return produced
        case Z_MEM_ERROR:
            throw .core(memory.refusal ?? .sizeOverflow)
        case Z_NEED_DICT:
            throw .zlibDataError(offset: offset, message: "preset dictionary not allowed")
        default:
            let message = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
            throw .zlibDataError(offset: offset, message: message)
        }
    }

    /// Inflates a whole zlib stream held in memory (iCCP, zTXt, iTXt) into at most `limit`
    /// bytes. `offset` is where the stream starts in the file. `produced` grows by the bytes
    /// inflated, also when it throws, so that a caller can bound the work of many streams.
    static func inflateWhole(_ compressed: [UInt8], limit: Int, offset: Int, ledger: MemoryLedger,
                             produced: inout Int) throws(PNGError) -> [UInt8] {
        let inflater = try Inflater(ledger: ledger)
        let chunk: LedgerBuffer<UInt8>
        do { chunk = try ledger.allocate(UInt8.self, count: 16 * 1024, initialValue: 0) } catch { throw .core(error) }
        // zlib reads the stream in place from a ledger copy, so no closure has to carry a typed error.
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
