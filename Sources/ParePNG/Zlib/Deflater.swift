import PareCore
import CZlib

/// A zlib stream being deflated (RFC 1950/1951) for the encoder, with zlib's state and
/// window counted by the ledger through `ZlibMemory`.
final class Deflater {
    private let memory: ZlibMemory
    private let stream: UnsafeMutablePointer<z_stream>

    init(level: Int, ledger: MemoryLedger) throws(PNGError) {
        guard level >= -1 && level <= 9 else {
            throw .unsupportedEncoding(reason: "compression level \(level) (0-9, or -1 for zlib's default)")
        }
        memory = ZlibMemory(ledger: ledger)
        do { try ledger.reserve(bytes: MemoryLayout<z_stream>.stride) } catch { throw .core(error) }
        stream = .allocate(capacity: 1)
        stream.initialize(to: memory.makeStream())
        ledger.noteAllocated()
        let status = deflateInit_(stream, Int32(level), zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            // deinit still runs (every stored property is set) and gives the stream back.
            let refusal = memory.refusal
            throw .core(refusal ?? .sizeOverflow)
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        memory.ledger.release(bytes: MemoryLayout<z_stream>.stride)
    }

    /// Compresses `count` bytes at `input` (or, with `finish`, ends the stream) into
    /// `output`, handing it to `emit` each time it is full and, when finishing, what is left.
    /// `output` must be the same buffer on every call.
    func deflate(_ input: UnsafePointer<UInt8>?, count: Int, finish: Bool,
                 output: LedgerBuffer<UInt8>, emit: (UnsafeBufferPointer<UInt8>) -> Void) throws(PNGError) {
        // zlib counts in 32 bits: a longer input goes in 1 GiB pieces.
        if count > 1 << 30, let input {
            try deflate(input, count: 1 << 30, finish: false, output: output, emit: emit)
            return try deflate(input + (1 << 30), count: count - (1 << 30), finish: finish, output: output, emit: emit)
        }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input)
        stream.pointee.avail_in = uInt(count)
        while true {
            if stream.pointee.next_out == nil || stream.pointee.avail_out == 0 {
                if stream.pointee.next_out != nil {
                    emit(UnsafeBufferPointer(start: output.baseAddress, count: output.count))
                }
                stream.pointee.next_out = output.baseAddress
                stream.pointee.avail_out = uInt(output.count)
            }
            let status = CZlib.deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw .core(memory.refusal ?? .sizeOverflow)
            }
            if finish && status == Z_STREAM_END {
                let produced = output.count - Int(stream.pointee.avail_out)
                if produced > 0 { emit(UnsafeBufferPointer(start: output.baseAddress, count: produced)) }
                return
            }
            if !finish && stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return }
        }
    }
}
