import PareCore

/// A marker segment's place in the input: `payloadOffset` is just after its length field.
struct JPEGSegment {
    let marker: UInt8
    let offset: Int
    let payloadOffset: Int
    let payloadLength: Int
}

/// The small part of T.81 Annex B that metadata needs: walk the marker segments from SOI
/// to SOS (B.1.1.2, B.2.4), note the APP1 "Exif\0\0", APP2 "MPF\0", APP2 "ICC_PROFILE\0"
/// and APP0 "JFXX\0" segments (Exif 2.32 §4.5.4, CIPA DC-007 §5.1, ICC.1 B.4, JFIF 1.02 §10.1) and the frame size from
/// the first SOFn (B.2.2). Segments are read through the source a few bytes at a time.
struct JPEGSegmentLocator {
    var exif: JPEGSegment?
    var mpf: JPEGSegment?
    /// APP2 "ICC_PROFILE\0" segments in file order (ICC.1 B.4), for PareICC to join.
    var iccChunks: [JPEGSegment] = []
    /// A JFXX extension whose code is 0x10, "thumbnail coded using JPEG".
    var jfxx: JPEGSegment?
    var frameWidth: Int?
    var frameHeight: Int?
    var warnings: [EXIFError] = []

    /// Walks the stream in `start..<end` of `source`. Throws only when it does not start
    /// with SOI; anything later ends the walk with a warning.
    init<Source: ByteSource>(_ source: Source, start: Int, end: Int, options: EXIFOptions,
                             stopAtFrame: Bool = false) throws(EXIFError) {
        func read(_ at: Int, _ count: Int) -> [UInt8]? {
            guard at >= 0, count >= 0, at <= end, count <= end - at else { return nil }
            return try? source.bytes(at: at, count: count)
        }
        guard let soi = read(start, 2), soi == [0xFF, 0xD8] else { throw .notJPEG(offset: start) }
        var position = start + 2
        // Both budgets hold for the whole walk: a limit per run of stray bytes would let
        // a marker every few KiB restart it, and a walk runs once per MPF image.
        var strayBudget = options.maxStrayBytes
        var segments = 0
        while position < end {
            guard var header = read(position, 2) else { return }
            if header[0] != 0xFF {
                guard let skipped = Self.skipToMarker(read, from: position, end: end, limit: strayBudget) else {
                    warnings.append(.strayBytes(offset: position, count: min(strayBudget, end - position)))
                    return
                }
                warnings.append(.strayBytes(offset: position, count: skipped))
                strayBudget -= skipped
                position += skipped
                guard let next = read(position, 2) else { return }
                header = next
            }
            // Fill bytes: any number of 0xFF may precede a marker (B.1.1.2); they are
            // spent from the same budget as stray bytes.
            while header[1] == 0xFF {
                guard strayBudget > 0 else {
                    warnings.append(.strayBytes(offset: position, count: options.maxStrayBytes))
                    return
                }
                strayBudget -= 1
                position += 1
                guard let next = read(position, 2) else { return }
                header = next
            }
            segments += 1
            guard segments <= options.maxSegments else {
                warnings.append(.tooManySegments(offset: position, limit: options.maxSegments))
                return
            }
            let marker = header[1]
            if marker == 0xD9 || marker == 0xDA { return }
            if (0xD0 ... 0xD7).contains(marker) || marker == 0x01 || marker == 0x00 {
                position += 2
                continue
            }
            guard let lengthBytes = read(position + 2, 2) else {
                warnings.append(.truncatedSegment(offset: position, marker: marker))
                return
            }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2, length <= end - position - 2 else {
                warnings.append(.truncatedSegment(offset: position, marker: marker))
                return
            }
            let segment = JPEGSegment(marker: marker, offset: position, payloadOffset: position + 4,
                                      payloadLength: length - 2)
            switch marker {
            case 0xE0, 0xE1, 0xE2:
                let signature = read(segment.payloadOffset, min(12, segment.payloadLength)) ?? []
                if marker == 0xE1, exif == nil, signature.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) {
                    exif = segment
                } else if marker == 0xE2, mpf == nil, signature.starts(with: [0x4D, 0x50, 0x46, 0]) {
                    mpf = segment
                } else if marker == 0xE2, signature == Self.iccIdentifier {
                    iccChunks.append(segment)
                } else if marker == 0xE0, jfxx == nil, signature.starts(with: [0x4A, 0x46, 0x58, 0x58, 0, 0x10]) {
                    jfxx = segment
                }
            case 0xC0 ... 0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                if frameWidth == nil, let frame = read(segment.payloadOffset, min(5, segment.payloadLength)),
                   frame.count == 5 {
                    frameHeight = Int(frame[1]) << 8 | Int(frame[2])
                    frameWidth = Int(frame[3]) << 8 | Int(frame[4])
                    if stopAtFrame { return }
                }
            default:
                break
            }
            position += 2 + length
        }
    }

    /// "ICC_PROFILE" and a null byte.
    static let iccIdentifier: [UInt8] = [0x49, 0x43, 0x43, 0x5F, 0x50, 0x52, 0x4F, 0x46, 0x49, 0x4C, 0x45, 0]

    /// How many bytes from `position` to the next 0xFF that starts a marker, or nil when
    /// none comes within `limit` bytes (a marker right after `limit` bytes is found) or
    /// before `end`. Reads 4 KiB at a time: one read per byte made every stray byte cost an
    /// allocation.
    private static func skipToMarker(_ read: (Int, Int) -> [UInt8]?, from position: Int, end: Int,
                                     limit: Int) -> Int? {
        var scanned = 0
        while true {
            // Candidates for the marker's 0xFF: scanned … scanned + wanted; the byte after the
            // last one is read too, to see what follows it.
            let wanted = min(4096, limit - scanned)
            let available = end - position - scanned
            guard available >= 2, let chunk = read(position + scanned, min(wanted + 2, available)) else { return nil }
            for i in 0 ..< min(wanted + 1, chunk.count - 1) where chunk[i] == 0xFF && chunk[i + 1] != 0x00 {
                return scanned + i
            }
            if scanned + wanted >= limit || chunk.count < wanted + 2 { return nil }
            scanned += wanted
        }
    }

    /// The frame size of the JPEG stream in `start..<end`, or nil when it has no readable
    /// SOFn before SOS.
    static func frameSize<Source: ByteSource>(in source: Source, start: Int, end: Int,
                                              options: EXIFOptions) -> (width: Int, height: Int)? {
        guard let walk = try? JPEGSegmentLocator(source, start: start, end: end, options: options, stopAtFrame: true),
              let width = walk.frameWidth, let height = walk.frameHeight else { return nil }
        return (width, height)
    }
}
