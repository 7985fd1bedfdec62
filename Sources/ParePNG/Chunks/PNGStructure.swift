@_spi(Codec) import PareCore
import CZlib

/// One chunk as it sits in the file (PNG 3rd ed. §5.3), with its CRC checked.
public struct PNGChunkRecord: Sendable, Equatable {
    /// The four letters of the chunk type.
    public var type: String
    /// The offset of the chunk's length field.
    public var offset: Int
    /// The length of the chunk's data.
    public var length: Int
    /// True when the stored CRC-32 matches the one computed over type and data.
    public var crcMatches: Bool
    /// §5.4: the first letter is upper case.
    public var isCritical: Bool
}

/// The two-byte zlib header at the start of the image data (RFC 1950 §2.2; PNG 3rd ed.
/// §10.1 requires method 8 and a window of at most 32 KiB).
public struct PNGZlibHeader: Sendable, Equatable {
    public var cmf: UInt8
    public var flg: UInt8
    /// CM: 8 is deflate.
    public var method: Int { Int(cmf & 15) }
    /// The LZ77 window, 2^(CINFO + 8) bytes.
    public var windowSize: Int { 1 << min(Int(cmf >> 4) + 8, 30) }
    /// FLEVEL, the compressor's hint: 0 fastest, 1 fast, 2 default, 3 maximum compression.
    public var levelHint: Int { Int(flg >> 6) }
    /// FDICT: a preset dictionary, which PNG forbids.
    public var presetDictionary: Bool { flg & 0x20 != 0 }
    /// FCHECK: CMF·256 + FLG is a multiple of 31.
    public var checkMatches: Bool { (Int(cmf) << 8 | Int(flg)) % 31 == 0 }
}

/// A PNG file as a reader of the specification sees it: every chunk with its offset,
/// length and CRC status (§5.3), IHDR (§11.2.1), the palette size (§11.2.2), the zlib
/// header of the image data (§10.1) and how often each filter type (§9.2) starts a
/// scanline, counted by inflating the IDAT stream without unfiltering it.
///
/// `failure` is set when the structure itself is broken, the cases that make a decoder
/// give up: a bad signature, a chunk cut short or with an invalid type, a critical chunk
/// with a bad CRC, an unknown critical chunk, IHDR/PLTE/IDAT/IEND missing, misplaced or
/// malformed, image data that zlib rejects, ends early or holds a filter type over 4. What
/// was read before that point is kept. A bad CRC on an ancillary chunk only shows in its
/// record, as libpng only drops such a chunk.
public struct PNGStructure: Sendable {
    /// The chunks in file order, the first `maxListedChunks` of them.
    public var chunks: [PNGChunkRecord] = []
    /// Chunks past `maxListedChunks`, counted only.
    public var unlistedChunks = 0
    public var header: PNGHeader?
    /// PLTE entries, nil without PLTE.
    public var paletteEntries: Int?
    public var zlib: PNGZlibHeader?
    /// How many scanlines start with filter type 0 (None), 1 (Sub), 2 (Up), 3 (Average)
    /// and 4 (Paeth).
    public var filterCounts = [Int](repeating: 0, count: 5)
    /// The filter type of each scanline in stream order (the passes of an interlaced image
    /// one after the other), for the first `maxListedRows` scanlines.
    public var rowFilters: [UInt8] = []
    /// How many scanline filter types `rowFilters` keeps at most.
    public static let maxListedRows = 1 << 16
    /// Compressed bytes in the IDAT chunks, and what they inflated to.
    public var compressedBytes = 0
    public var inflatedBytes = 0
    /// True when the zlib stream reached its end (its Adler-32 checked).
    public var streamComplete = false
    /// Bytes after IEND.
    public var trailingBytes = 0
    public var failure: PNGError?

    /// Scanlines read, every pass of an interlaced image included.
    public var scanlines: Int { filterCounts.reduce(0, +) }

    public init() {}

    /// Walks the whole file. Never throws: a broken structure sets `failure`. Memory: the
    /// 64 KiB read window, two 32 KiB buffers and zlib's state, from `ledger`; at most
    /// `maxListedChunks` chunk records.
    public static func walk<Source: ByteSource>(_ source: Source, ledger: MemoryLedger,
                                                options: PNGOptions = PNGOptions(),
                                                maxListedChunks: Int = 10_000) -> PNGStructure {
        var structure = PNGStructure()
        do throws(PNGError) {
            var reader = try ChunkReader(source: source, ledger: ledger, maxChunkLength: options.maxChunkLength)
            try structure.read(&reader, ledger: ledger, options: options, maxListedChunks: maxListedChunks)
        } catch {
            structure.failure = error
        }
        return structure
    }

    private mutating func read<Source: ByteSource>(_ reader: inout ChunkReader<Source>, ledger: MemoryLedger,
                                                   options: PNGOptions, maxListedChunks: Int) throws(PNGError) {
        try reader.readSignature()
        let input: LedgerBuffer<UInt8>, output: LedgerBuffer<UInt8>
        do {
            input = try ledger.allocate(UInt8.self, count: 32 * 1024, initialValue: 0)
            output = try ledger.allocate(UInt8.self, count: 32 * 1024, initialValue: 0)
        } catch {
            throw .core(error)
        }
        var image: ImageDataReader?
        var sawPalette = false, imageDataEnded = false
        var chunkCount = 0
        while true {
            let chunk = try reader.nextHeader()
            let type = chunk.type
            if chunkCount == 0 && type != ChunkType.IHDR { throw .missingIHDR(offset: chunk.offset) }
            switch type {
            case ChunkType.IHDR where chunkCount > 0:
                throw .chunkOutOfOrder(chunk: "IHDR", offset: chunk.offset, reason: "IHDR appears twice")
            case ChunkType.IHDR where chunk.length != 13:
                throw .invalidIHDR(offset: chunk.offset, reason: "length \(chunk.length), expected 13")
            case ChunkType.PLTE where image != nil:
                throw .chunkOutOfOrder(chunk: "PLTE", offset: chunk.offset, reason: "after the image data")
            case ChunkType.PLTE where sawPalette:
                throw .chunkOutOfOrder(chunk: "PLTE", offset: chunk.offset, reason: "PLTE appears twice")
            case ChunkType.IDAT where imageDataEnded:
                throw .chunkOutOfOrder(chunk: "IDAT", offset: chunk.offset, reason: "IDAT chunks are not consecutive")
            case ChunkType.IDAT where header?.colorType == 3 && !sawPalette:
                throw .missingPLTE(offset: chunk.offset)
            case ChunkType.IEND where image == nil:
                throw .missingIDAT(offset: chunk.offset)
            case ChunkType.IHDR, ChunkType.PLTE, ChunkType.IDAT, ChunkType.IEND:
                break
            default:
                if chunk.isCritical { throw .unknownCriticalChunk(chunk: chunk.name, offset: chunk.offset) }
            }
            if image != nil && type != ChunkType.IDAT { imageDataEnded = true }
            if type == ChunkType.IDAT && image == nil, let header {
                image = try ImageDataReader(header: header, ledger: ledger)
            }

            // The data, a buffer at a time: CRC over all of it, IHDR kept, IDAT inflated.
            let remaining = max(reader.stream.remaining, 0)
            guard remaining >= 4, remaining - 4 >= chunk.length else {
                throw .truncated(offset: reader.position, needed: chunk.length - max(remaining - 4, 0),
                                 what: "chunk \(chunk.name)")
            }
            var crc = ChunkReader<Source>.crc(ofType: type)
            var kept: [UInt8] = []
            var left = chunk.length
            while left > 0 {
                let n = min(left, input.count)
                let dataOffset = chunk.dataOffset + chunk.length - left
                do {
                    try reader.stream.read(into: UnsafeMutableRawBufferPointer(start: input.baseAddress, count: n))
                } catch {
                    throw .core(error)
                }
                crc = crc32(crc, input.baseAddress, uInt(n))
                if type == ChunkType.IHDR { kept.append(contentsOf: UnsafeBufferPointer(start: input.baseAddress, count: n)) }
                if type == ChunkType.IDAT, var reading = image {
                    compressedBytes += n
                    try reading.feed(input.baseAddress, count: n, offset: dataOffset, scratch: output,
                                     into: &self, options: options)
                    image = reading
                }
                left -= n
            }
            let stored: UInt32
            do { stored = try reader.stream.readUInt32() } catch { throw .core(error) }
            let crcMatches = UInt32(truncatingIfNeeded: crc) == stored
            if chunks.count < maxListedChunks {
                chunks.append(PNGChunkRecord(type: chunk.name, offset: chunk.offset, length: chunk.length,
                                             crcMatches: crcMatches, isCritical: chunk.isCritical))
            } else {
                unlistedChunks += 1
            }
            chunkCount += 1
            if chunk.isCritical && !crcMatches { throw .crcMismatch(chunk: chunk.name, offset: chunk.offset) }

            switch type {
            case ChunkType.IHDR:
                header = try PNGDecoder<Source>.parseHeader(kept, offset: chunk.offset, options: options)
            case ChunkType.PLTE:
                guard chunk.length > 0, chunk.length <= 768, chunk.length % 3 == 0 else {
                    throw .invalidPalette(offset: chunk.offset, reason: "length \(chunk.length)")
                }
                if header?.colorType == 0 || header?.colorType == 4 {
                    throw .invalidPalette(offset: chunk.offset, reason: "PLTE is not allowed in a gray image")
                }
                sawPalette = true
                paletteEntries = chunk.length / 3
            case ChunkType.IEND:
                if let image, image.rowsLeft > 0 {
                    throw .notEnoughImageData(offset: chunk.offset, rowsMissing: image.rowsLeft)
                }
                trailingBytes = max(reader.stream.remaining, 0)
                return
            default:
                break
            }
        }
    }
}

/// Inflates the IDAT stream and reads only the filter byte that starts each scanline
/// (§7.3): the rest of every row is counted past, never stored, so memory does not depend
/// on the image's size. Rows follow the passes of §8.2 for interlaced images.
private struct ImageDataReader {
    let inflater: Inflater
    let rowBytes: [Int]
    let passRows: [Int]
    var pass = 0
    var rowsLeftInPass = 0
    /// Bytes of the current row still to pass; 0 means the next byte is a filter type.
    var inRow = 0
    var rowsLeft = 0
    var zlibHead: [UInt8] = []
    var excess = 0

    init(header: PNGHeader, ledger: MemoryLedger) throws(PNGError) {
        inflater = try Inflater.forPNG(ledger: ledger)
        let passes = header.interlaced ? Adam7Pass.passes : [Adam7Pass.sequential]
        var bytes: [Int] = [], rows: [Int] = []
        for pass in passes {
            let width = pass.width(of: header.width), height = pass.height(of: header.height)
            guard width > 0 && height > 0 else { continue }
            // IHDR limits keep width · 64 far from overflow.
            bytes.append((width * header.bitsPerPixel + 7) / 8)
            rows.append(height)
        }
        rowBytes = bytes
        passRows = rows
        rowsLeftInPass = rows.first ?? 0
        rowsLeft = rows.reduce(0, +)
    }

    mutating func feed(_ data: UnsafeMutablePointer<UInt8>, count: Int, offset: Int, scratch: LedgerBuffer<UInt8>,
                       into structure: inout PNGStructure, options: PNGOptions) throws(PNGError) {
        var start = 0
        while zlibHead.count < 2 && start < count {
            zlibHead.append(data[start])
            start += 1
            if zlibHead.count == 2 { structure.zlib = PNGZlibHeader(cmf: zlibHead[0], flg: zlibHead[1]) }
        }
        // The header bytes go to the inflater too: it checks them itself.
        guard !inflater.finished else { return }
        inflater.supply(data, count: count)
        while !inflater.needsInput && !inflater.finished {
            let n = try inflater.inflate(into: scratch.baseAddress, count: scratch.count,
                                         offset: offset + count - inflater.availableInput)
            structure.inflatedBytes += n
            try scan(scratch.baseAddress, count: n, offset: offset + count - inflater.availableInput,
                     into: &structure, options: options)
        }
        structure.streamComplete = inflater.finished
    }

    private mutating func scan(_ bytes: UnsafeMutablePointer<UInt8>, count: Int, offset: Int,
                               into structure: inout PNGStructure, options: PNGOptions) throws(PNGError) {
        var i = 0
        while i < count {
            guard rowsLeft > 0 else {
                excess += count - i
                if excess > options.maxDecompressedExcess {
                    throw .limitExceeded(what: "decompressed bytes after the last scanline",
                                         value: excess, limit: options.maxDecompressedExcess, offset: offset)
                }
                return
            }
            if inRow == 0 {
                let filter = bytes[i]
                guard filter <= 4 else {
                    throw .invalidFilterType(offset: offset, row: structure.scanlines, filter: filter)
                }
                structure.filterCounts[Int(filter)] += 1
                if structure.rowFilters.count < PNGStructure.maxListedRows { structure.rowFilters.append(filter) }
                inRow = rowBytes[pass]
                i += 1
            } else {
                let n = min(inRow, count - i)
                inRow -= n
                i += n
                if inRow == 0 { endRow() }
            }
        }
    }

    private mutating func endRow() {
        rowsLeft -= 1
        rowsLeftInPass -= 1
        if rowsLeftInPass == 0 && pass + 1 < passRows.count {
            pass += 1
            rowsLeftInPass = passRows[pass]
        }
    }
}
