import PareCore

/// A chunk header as read: where it is, its name, the size it declares and how many of those
/// bytes the file really holds (fewer when it is cut off).
struct ChunkHeader {
    var fourCC: UInt32
    var offset: Int
    var size: Int
    var available: Int
    var payloadOffset: Int { offset + 8 }
    /// Where the next chunk starts (after the padding byte of an odd size); `Int.max` when
    /// that is past any file.
    var next: Int {
        let padded = size.addingReportingOverflow(size & 1)
        let end = payloadOffset.addingReportingOverflow(padded.partialValue)
        return padded.overflow || end.overflow ? Int.max : end.partialValue
    }
    var isComplete: Bool { available == size }
}

/// The image inside the container: its bitstream chunk and the `ALPH` chunk that goes with a
/// lossy one, and, for an animation, the frame's rectangle and bits (WebP Container §"ANMF").
struct ImageChunks {
    var bitstream: ChunkHeader
    var alpha: ChunkHeader?
}

/// Reads the RIFF container (WebP Container Specification): the RIFF header, the simple
/// (`VP8 `/`VP8L`) and extended (`VP8X`) layouts, every chunk's size and padding, metadata
/// chunks, `ANIM` and the `ANMF` frames (the first one's sub-chunks). Unknown chunks are
/// listed and skipped.
struct RIFFReader<Source: ByteSource> {
    let source: Source
    let options: WebPOptions
    var chunks: [WebPChunk] = []
    /// The end of the RIFF payload, clamped to the file.
    var end = 0
    var declaredEnd = 0
    var vp8xFlags: UInt8?
    var canvasWidth = 0, canvasHeight = 0
    var image: ImageChunks?
    var frameCount = 0
    var loopCount = 0
    var background: UInt32 = 0
    var hasANIM = false
    var frameX = 0, frameY = 0, frameWidth = 0, frameHeight = 0
    var frameBlends = false, frameDisposes = false
    var icc: ChunkHeader?, exif: ChunkHeader?, xmp: ChunkHeader?

    init(source: Source, options: WebPOptions) {
        self.source = source
        self.options = options
    }

    func bytes(_ offset: Int, _ count: Int, what: MessageText) throws(WebPError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= source.count, count <= source.count - offset else {
            throw .truncated(what: what, offset: offset, needed: count - max(0, source.count - max(offset, 0)))
        }
        do { return try source.bytes(at: offset, count: count) } catch { throw .core(error) }
    }

    /// A little-endian 32-bit field; on a 32-bit machine a value past `Int.max` reads as `Int.max`.
    static func le32(_ b: [UInt8], _ i: Int) -> Int {
        let v = UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
        return Int(exactly: v) ?? Int.max
    }

    static func le24(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 }

    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    /// The chunk header at `offset`, inside a parent ending at `limit`.
    func header(at offset: Int, limit: Int) throws(WebPError) -> ChunkHeader {
        let h = try bytes(offset, 8, what: "chunk header")
        let fourCC = Self.be32(h, 0)
        let size = Self.le32(h, 4)
        guard UInt64(size) <= 0xFFFF_FFF6 else {
            throw .invalidChunk(fourCC: FourCC.name(fourCC), offset: offset, reason: "size \(size) too large")
        }
        let available = max(0, min(size, source.count - offset - 8))
        if size > limit - offset - 8 && limit < source.count && size <= source.count - offset - 8 {
            throw .invalidChunk(fourCC: FourCC.name(fourCC), offset: offset,
                                reason: "size \(size) runs past its container's end at \(limit)")
        }
        return ChunkHeader(fourCC: fourCC, offset: offset, size: size, available: available)
    }

    mutating func list(_ h: ChunkHeader, frame: Int?) throws(WebPError) {
        guard chunks.count < options.maxChunks else {
            throw .limitExceeded(what: "chunk count", value: chunks.count + 1, limit: options.maxChunks, offset: h.offset)
        }
        chunks.append(WebPChunk(fourCC: h.fourCC, offset: h.offset, size: h.size, frame: frame))
    }

    /// Reads the whole container: afterwards `image` is the still's (or first frame's) chunks.
    mutating func read() throws(WebPError) {
        let head = try bytes(0, min(12, source.count), what: "RIFF header")
        guard head.count == 12, Self.be32(head, 0) == FourCC.riff, Self.be32(head, 8) == FourCC.webp else {
            throw .notWebP(offset: 0)
        }
        let riffSize = Self.le32(head, 4)
        guard riffSize >= 12 else {
            throw .invalidChunk(fourCC: "RIFF", offset: 0, reason: "size \(riffSize) too small for any image")
        }
        declaredEnd = riffSize > Int.max - 8 ? Int.max : 8 + riffSize
        end = min(declaredEnd, source.count)
        let first = try header(at: 12, limit: end)
        try list(first, frame: nil)
        switch first.fourCC {
        case FourCC.vp8, FourCC.vp8l:
            image = ImageChunks(bitstream: first, alpha: nil)
            // Chunks after a simple file's image are not part of the format; list them anyway.
            try walk(from: first.next, extended: false)
        case FourCC.vp8x:
            try readVP8X(first)
            try walk(from: first.next, extended: true)
        default:
            throw .invalidChunk(fourCC: FourCC.name(first.fourCC), offset: 12,
                                reason: "the first chunk must be VP8, VP8L or VP8X")
        }
        guard image != nil else { throw .missingImage(offset: end) }
        if let flags = vp8xFlags {
            if flags & 0x02 != 0 && !hasANIM {
                throw .invalidChunk(fourCC: "VP8X", offset: 12, reason: "animation flag without an ANIM chunk")
            }
        }
    }

    /// §"Extended File Format": flags, reserved bits, canvas size (24 bits each, minus one).
    mutating func readVP8X(_ h: ChunkHeader) throws(WebPError) {
        guard h.size == 10 else {
            throw .invalidChunk(fourCC: "VP8X", offset: h.offset, reason: "size \(h.size), expected 10")
        }
        let b = try bytes(h.payloadOffset, 10, what: "VP8X chunk")
        vp8xFlags = b[0]
        canvasWidth = Self.le24(b, 4) + 1
        canvasHeight = Self.le24(b, 7) + 1
        if let crossed = ImageSizeLimits.crossed(width: canvasWidth, height: canvasHeight, maxWidth: options.maxWidth,
                                                 maxHeight: options.maxHeight, maxPixels: options.maxPixels) {
            throw .limitExceeded(what: crossed.what, value: crossed.value, limit: crossed.limit, offset: h.offset)
        }
    }

    /// Every chunk after the first, to the end of the RIFF payload (or of the file).
    mutating func walk(from start: Int, extended: Bool) throws(WebPError) {
        var offset = start
        var pendingAlpha: ChunkHeader?
        while offset <= end - 8 {
            let h = try header(at: offset, limit: end)
            try list(h, frame: nil)
            switch h.fourCC {
            case FourCC.vp8x:
                throw .invalidChunk(fourCC: "VP8X", offset: h.offset, reason: "VP8X appears twice")
            case FourCC.alph:
                if image == nil && pendingAlpha == nil { pendingAlpha = h }
            case FourCC.vp8, FourCC.vp8l:
                if image == nil && !hasANIM && extended {
                    image = ImageChunks(bitstream: h, alpha: h.fourCC == FourCC.vp8 ? pendingAlpha : nil)
                }
            case FourCC.iccp: if icc == nil { icc = h }
            case FourCC.exif: if exif == nil { exif = h }
            case FourCC.xmp: if xmp == nil { xmp = h }
            case FourCC.anim where extended && (vp8xFlags ?? 0) & 0x02 != 0:
                // ANIM means something only in an extended file that says it is animated;
                // elsewhere it is an unknown chunk, listed and skipped.
                guard h.size >= 6 else {
                    throw .invalidChunk(fourCC: "ANIM", offset: h.offset, reason: "size \(h.size), expected 6")
                }
                let b = try bytes(h.payloadOffset, 6, what: "ANIM chunk")
                background = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
                loopCount = Int(b[4]) | Int(b[5]) << 8
                hasANIM = true
            case FourCC.anmf where hasANIM:
                // (A frame outside an animation is an unknown chunk, as libwebp's still decoder takes it.)
                if frameCount == 0 { try readFirstFrame(h) } else { try listFrame(h, index: frameCount) }
                frameCount += 1
            default:
                break
            }
            offset = h.next
        }
    }

    /// §"ANMF": offsets (×2), size (minus one), duration, the blending and disposal bits, then
    /// the frame's own chunks (ALPH, VP8 or VP8L, unknown ones).
    mutating func readFirstFrame(_ h: ChunkHeader) throws(WebPError) {
        guard h.size >= 16 else {
            throw .invalidChunk(fourCC: "ANMF", offset: h.offset, reason: "size \(h.size) too small")
        }
        let b = try bytes(h.payloadOffset, 16, what: "ANMF chunk")
        frameX = 2 * Self.le24(b, 0)
        frameY = 2 * Self.le24(b, 3)
        frameWidth = Self.le24(b, 6) + 1
        frameHeight = Self.le24(b, 9) + 1
        frameBlends = b[15] & 0x02 == 0
        frameDisposes = b[15] & 0x01 != 0
        guard frameX + frameWidth <= canvasWidth, frameY + frameHeight <= canvasHeight else {
            throw .invalidChunk(fourCC: "ANMF", offset: h.offset,
                                reason: "frame \(frameWidth)x\(frameHeight) at \(frameX),\(frameY) leaves the canvas")
        }
        let frameEnd = h.size > end - h.payloadOffset ? end : h.payloadOffset + h.size
        var offset = h.payloadOffset + 16
        var alpha: ChunkHeader?
        while offset <= frameEnd - 8 {
            let sub = try header(at: offset, limit: frameEnd)
            try list(sub, frame: 0)
            if sub.fourCC == FourCC.alph && alpha == nil { alpha = sub }
            if (sub.fourCC == FourCC.vp8 || sub.fourCC == FourCC.vp8l) && image == nil {
                image = ImageChunks(bitstream: sub, alpha: sub.fourCC == FourCC.vp8 ? alpha : nil)
            }
            offset = sub.next
        }
        if image == nil { throw .missingImage(offset: h.offset) }
    }

    /// A later frame's sub-chunks, listed only.
    mutating func listFrame(_ h: ChunkHeader, index: Int) throws(WebPError) {
        let frameEnd = h.size > end - h.payloadOffset ? end : h.payloadOffset + h.size
        var offset = h.payloadOffset + 16
        while offset <= frameEnd - 8 {
            let sub = try header(at: offset, limit: frameEnd)
            try list(sub, frame: index)
            offset = sub.next
        }
    }

    /// A chunk's payload (what the file holds of it), counted by `ledger` while it is held.
    func payload(_ h: ChunkHeader, ledger: MemoryLedger) throws(WebPError) -> LedgerBuffer<UInt8> {
        let buffer: LedgerBuffer<UInt8>
        do { buffer = try ledger.allocate(UInt8.self, count: h.available, initialValue: 0) } catch { throw .core(error) }
        // SAFETY: each read lands inside buffer[copied..<h.available].
        var copied = 0
        while copied < h.available {
            let n: Int
            do {
                n = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer.baseAddress + copied,
                                                                          count: h.available - copied),
                                    at: h.payloadOffset + copied)
            } catch { throw .core(error) }
            if n <= 0 { throw .truncated(what: "chunk payload", offset: h.payloadOffset + copied, needed: h.available - copied) }
            copied += n
        }
        return buffer
    }
}
