import PareCore

/// One partition of a `VP8 ` chunk read through a window instead of whole (RFC 6386 §9.5:
/// the first partition holds the macroblock modes, the others the tokens, and each is read
/// once, front to back), so that a frame's compressed data is never all in memory.
///
/// `topUp` runs between macroblocks: when fewer than `reserve` bytes are left in the window
/// and the partition has more, it slides what is left to the front and reads on. No
/// macroblock needs more than `reserve` bytes of a partition: its header and tokens take at
/// most about 9,300 boolean decisions (25 blocks of 16 coefficients, each at most 23
/// decisions, and the header's few), and a decision consumes at most 8 bits. So a boolean
/// decoder meets the end of its window only where its partition ends, exactly as it would
/// with the whole chunk in memory, and its `exhausted` means what it meant.
struct PartitionWindow<Source: ByteSource> {
    /// The window's size and the least a window holds before a macroblock, while it can.
    static var capacity: Int { 32 * 1024 }
    static var reserve: Int { 12 * 1024 }

    let source: Source
    let buffer: LedgerBuffer<UInt8>
    /// The file offset of the chunk's payload; the payload offsets of the next byte to read
    /// into the window and of the partition's end (the data's, where the file is cut short).
    let payloadOffset: Int
    var nextRead: Int
    let end: Int

    /// A window on the partition `start..<end` (payload offsets) of the chunk whose payload
    /// begins at file offset `payloadOffset`, and its boolean decoder, reading from `source`.
    static func open(source: Source, payloadOffset: Int, start: Int, end: Int,
                     ledger: MemoryLedger) throws(WebPError) -> (PartitionWindow, BooleanDecoder) {
        let buffer: LedgerBuffer<UInt8>
        do { buffer = try ledger.allocate(UInt8.self, count: min(capacity, max(end - start, 8)), initialValue: 0) } catch {
            throw .core(error)
        }
        return try resume(source: source, buffer: buffer, payloadOffset: payloadOffset, start: start, end: end)
    }

    /// The window over `buffer` (which holds nothing yet) from `start`, and its decoder.
    static func resume(source: Source, buffer: LedgerBuffer<UInt8>, payloadOffset: Int, start: Int,
                       end: Int) throws(WebPError) -> (PartitionWindow, BooleanDecoder) {
        var window = PartitionWindow(source: source, buffer: buffer, payloadOffset: payloadOffset, nextRead: start, end: end)
        let filled = try window.fill(at: 0)
        return (window, BooleanDecoder(data: buffer.baseAddress, start: 0, end: filled, base: start))
    }

    /// Reads from `nextRead` into `buffer[from...]` until the buffer is full or the partition
    /// ends; returns how many bytes the buffer then holds.
    mutating func fill(at from: Int) throws(WebPError) -> Int {
        var filled = from
        let want = min(buffer.count, from + (end - nextRead))
        while filled < want {
            let n: Int
            do {
                // SAFETY: filled < want ≤ buffer.count.
                n = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer.baseAddress + filled, count: want - filled),
                                    at: payloadOffset + nextRead)
            } catch {
                throw .core(error)
            }
            if n <= 0 { break }
            filled += n
            nextRead += n
        }
        return filled
    }

    /// Slides the unread bytes to the front and reads on, when fewer than `reserve` are
    /// left and the partition has more.
    @inline(__always)
    mutating func topUp(_ decoder: inout BooleanDecoder) throws(WebPError) {
        guard decoder.end - decoder.position < Self.reserve, nextRead < end else { return }
        try refill(&decoder)
    }

    mutating func refill(_ decoder: inout BooleanDecoder) throws(WebPError) {
        let keep = decoder.end - decoder.position
        // SAFETY: the kept bytes are buffer[position..<end], inside the buffer; the regions may overlap.
        buffer.baseAddress.update(from: buffer.baseAddress + decoder.position, count: keep)
        let filled = try fill(at: keep)
        decoder.base += decoder.position
        decoder.position = 0
        decoder.end = filled
    }
}
