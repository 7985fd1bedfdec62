@_spi(Codec) import PareCore
import CZlib

/// A chunk's length and type, read ahead of its data (PNG 3rd ed. §5.3).
struct ChunkHeader {
    /// The offset of the chunk's length field in the file.
    var offset: Int
    var length: Int
    var type: UInt32

    var name: String { ChunkType.name(type) }
    /// §5.4: bit 5 of the first type byte clear means critical.
    var isCritical: Bool { type & 0x2000_0000 == 0 }
    var dataOffset: Int { offset + 8 }
}

/// Chunk type codes as big-endian integers (§4.9, §11).
enum ChunkType {
    static let IHDR: UInt32 = 0x4948_4452
    static let PLTE: UInt32 = 0x504C_5445
    static let IDAT: UInt32 = 0x4944_4154
    static let IEND: UInt32 = 0x4945_4E44
    static let tRNS: UInt32 = 0x7452_4E53
    static let gAMA: UInt32 = 0x6741_4D41
    static let cHRM: UInt32 = 0x6348_524D
    static let sRGB: UInt32 = 0x7352_4742
    static let iCCP: UInt32 = 0x6943_4350
    static let sBIT: UInt32 = 0x7342_4954
    static let cICP: UInt32 = 0x6349_4350
    static let mDCV: UInt32 = 0x6D44_4356
    static let cLLI: UInt32 = 0x634C_4C49
    static let bKGD: UInt32 = 0x624B_4744
    static let hIST: UInt32 = 0x6849_5354
    static let pHYs: UInt32 = 0x7048_5973
    static let sPLT: UInt32 = 0x7350_4C54
    static let eXIf: UInt32 = 0x6558_4966
    static let tEXt: UInt32 = 0x7445_5874
    static let zTXt: UInt32 = 0x7A54_5874
    static let iTXt: UInt32 = 0x6954_5874
    static let tIME: UInt32 = 0x7449_4D45
    static let acTL: UInt32 = 0x6163_544C
    static let fcTL: UInt32 = 0x6663_544C
    static let fdAT: UInt32 = 0x6664_4154

    /// The four letters, for messages.
    static func name(_ type: UInt32) -> String {
        var scalars = String.UnicodeScalarView()
        for shift in [24, 16, 8, 0] {
            let byte = UInt8(truncatingIfNeeded: type >> UInt32(shift))
            scalars.append(Unicode.Scalar(byte))
        }
        return String(scalars)
    }
}

/// Reads the chunk sequence of a PNG (§5.2 signature, §5.3 layout): headers, whole chunk
/// data with its CRC-32 checked (zlib's `crc32`), and the concatenated data of an IDAT run
/// streamed through the caller's buffer without holding a chunk in memory.
struct ChunkReader<Source: ByteSource> {
    var stream: ByteStream
    let maxChunkLength: Int
    /// Kept for `sibling(at:ledger:)`: another reader of the same file.
    let source: Source
    /// False leaves the IDAT CRCs unchecked by this reader: another reader of the same
    /// bytes (`ImageDataCRCCheck`) checks them, where they cost the image data stage nothing.
    var checksImageCRC = true

    /// The IDAT chunk being streamed, its unread bytes and its running CRC.
    private var imageChunk: ChunkHeader?
    private var imageRemaining = 0
    private var imageCRC: uLong = 0
    /// The chunk that ended the IDAT run, read ahead by `readImageData`.
    private(set) var afterImageData: ChunkHeader?

    init(source: Source, ledger: MemoryLedger, maxChunkLength: Int) throws(PNGError) {
        do {
            stream = try ByteStream(source: source, ledger: ledger)
        } catch {
            throw .core(error)
        }
        self.maxChunkLength = min(max(maxChunkLength, 0), Int(Int32.max))
        self.source = source
    }

    /// A reader of the same source with a window of its own (`windowSize` bytes, counted by
    /// `ledger`), at the start of the IDAT run whose first header is `first`.
    func sibling(streamingImageDataFrom first: ChunkHeader, ledger: MemoryLedger,
                 windowSize: Int) throws(PNGError) -> ChunkReader {
        var reader = self
        do {
            reader.stream = try ByteStream(source: source, ledger: ledger, windowSize: windowSize)
        } catch {
            throw .core(error)
        }
        reader.stream.seek(to: first.dataOffset)
        reader.checksImageCRC = true
        reader.beginImageData(first)
        return reader
    }

    /// The offset of the next unread byte.
    var position: Int { stream.position }

    /// §5.2: the eight signature bytes.
    mutating func readSignature() throws(PNGError) {
        let expected: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard stream.remaining >= 8 else { throw .badSignature }
        for byte in expected {
            guard (try? stream.readUInt8()) == byte else { throw .badSignature }
        }
    }

    /// The next chunk's length and type, checked for a valid type and a bounded length.
    mutating func nextHeader() throws(PNGError) -> ChunkHeader {
        let offset = stream.position
        guard stream.remaining >= 8 else {
            throw .truncated(offset: offset, needed: 8 - max(stream.remaining, 0), what: "chunk header")
        }
        let length: UInt32, type: UInt32
        do {
            length = try stream.readUInt32()
            type = try stream.readUInt32()
        } catch {
            throw .core(error)
        }
        for shift: UInt32 in [24, 16, 8, 0] {
            let byte = UInt8(truncatingIfNeeded: type >> shift) & 0xDF
            guard byte >= 0x41 && byte <= 0x5A else { throw .invalidChunkType(offset: offset) }
        }
        guard UInt64(length) <= UInt64(maxChunkLength) else {
            throw .chunkTooLong(chunk: ChunkType.name(type), offset: offset, length: Int(clamping: length),
                                limit: maxChunkLength)
        }
        return ChunkHeader(offset: offset, length: Int(length), type: type)
    }

    /// The chunk's data and whether its stored CRC matches. The caller bounds `length`
    /// (chunks it keeps are small or limited by the metadata budget).
    mutating func readData(_ header: ChunkHeader) throws(PNGError) -> (data: [UInt8], crcMatches: Bool) {
        try requireChunkBody(header)
        let data: [UInt8], stored: UInt32
        do {
            data = try stream.readBytes(header.length)
            stored = try stream.readUInt32()
        } catch {
            throw .core(error)
        }
        var crc = Self.crc(ofType: header.type)
        crc = data.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
        return (data, UInt32(truncatingIfNeeded: crc) == stored)
    }

    /// Passes over a chunk's data and CRC unread.
    mutating func skip(_ header: ChunkHeader) throws(PNGError) {
        try requireChunkBody(header)
        do {
            try stream.skip(header.length)
            try stream.skip(4)
        } catch {
            throw .core(error)
        }
    }

    /// The chunk's data and CRC must be in the file (written so that a length near 2^31
    /// cannot overflow a 32-bit `Int`).
    private func requireChunkBody(_ header: ChunkHeader) throws(PNGError) {
        let remaining = max(stream.remaining, 0)
        guard remaining >= 4, remaining - 4 >= header.length else {
            throw .truncated(offset: stream.position, needed: header.length - max(remaining - 4, 0),
                             what: "chunk \(header.name)")
        }
    }

    static func crc(ofType type: UInt32) -> uLong {
        var bytes = (UInt8(truncatingIfNeeded: type >> 24), UInt8(truncatingIfNeeded: type >> 16),
                     UInt8(truncatingIfNeeded: type >> 8), UInt8(truncatingIfNeeded: type))
        return withUnsafeBytes(of: &bytes) { raw in
            crc32(crc32(0, nil, 0), raw.baseAddress!.assumingMemoryBound(to: Bytef.self), 4)
        }
    }

    /// Starts streaming the IDAT run whose first header has just been read.
    mutating func beginImageData(_ first: ChunkHeader) {
        imageChunk = first
        imageRemaining = first.length
        imageCRC = Self.crc(ofType: first.type)
        afterImageData = nil
    }

    /// Fills the front of `buffer` with the next bytes of the IDAT run (§10.1: the zlib
    /// stream is split across IDAT chunks at arbitrary byte boundaries) and returns how many;
    /// 0 once the run has ended, with the following chunk's header in `afterImageData`.
    /// Each IDAT's CRC is checked when its last byte has been read (with `checksImageCRC`).
    mutating func readImageData(into buffer: UnsafeMutableRawBufferPointer) throws(PNGError) -> Int {
        while imageRemaining == 0 {
            guard let current = imageChunk else { return 0 }
            let stored: UInt32
            guard stream.remaining >= 4 else {
                throw .truncated(offset: stream.position, needed: 4 - max(stream.remaining, 0), what: "chunk IDAT")
            }
            do { stored = try stream.readUInt32() } catch { throw .core(error) }
            guard !checksImageCRC || UInt32(truncatingIfNeeded: imageCRC) == stored else {
                throw .crcMismatch(chunk: "IDAT", offset: current.offset)
            }
            let next = try nextHeader()
            if next.type == ChunkType.IDAT {
                beginImageData(next)
            } else {
                imageChunk = nil
                afterImageData = next
                return 0
            }
        }
        let n = min(buffer.count, imageRemaining, max(stream.remaining, 0))
        guard n > 0, let base = buffer.baseAddress else {
            throw .truncated(offset: stream.position, needed: imageRemaining + 4, what: "chunk IDAT")
        }
        do {
            try stream.read(into: UnsafeMutableRawBufferPointer(start: base, count: n))
        } catch {
            throw .core(error)
        }
        if checksImageCRC { imageCRC = crc32(imageCRC, base.assumingMemoryBound(to: Bytef.self), uInt(n)) }
        imageRemaining -= n
        return n
    }
}
