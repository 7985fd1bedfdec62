@_spi(Codec) import PareCore

/// The small part of T.81 Annex B that metadata needs: walk the marker segments from SOI
/// to SOS with PareCore's `MarkerReader` (B.1.1.2–B.1.1.4), note the APP1 "Exif\0\0", APP2
/// "MPF\0", APP2 "ICC_PROFILE\0", APP0 "JFXX\0", APP1 XMP and APP2 ISO 21496-1 segments
/// (Exif 2.32 §4.5.4, CIPA DC-007 §5.1, ICC.1 B.4, JFIF 1.02 §10.1, XMP part 3 §1.1.3) and the frame size from the first SOFn (B.2.2).
/// Segments are read through a small window of the source: only the first bytes of each are
/// looked at, the rest is passed over.
struct JPEGSegmentLocator {
    /// The segments found, their offsets in the whole source.
    var exif: MarkerSegment?
    var mpf: MarkerSegment?
    #if !hasFeature(Embedded)
    /// The first APP1 XMP packet and the first APP2 ISO 21496-1 gain-map block: where a
    /// gain map announces itself (see `GainMapStandard`).
    var xmp: MarkerSegment?
    var iso21496: MarkerSegment?
    #endif
    /// Where the payloads of the APP2 "ICC_PROFILE\0" segments are, in file order (ICC.1
    /// B.4), for PareICC to join: kept as `JPEGMetadata` hands them on, one array type.
    var iccChunks: [(offset: Int, length: Int)] = []
    /// A JFXX extension whose code is 0x10, "thumbnail coded using JPEG".
    var jfxx: MarkerSegment?
    var frameWidth: Int?
    var frameHeight: Int?
    /// The SOFn marker of that frame (RawPreviews tells a preview from lossless raw data).
    var frameMarker: UInt8?
    var warnings: [EXIFError] = []

    /// The window a walk reads through (from a ledger of its own: the walk holds nothing else).
    static let windowSize = 4096

    /// Walks the stream in `start..<end` of `source`. Throws only when it does not start
    /// with SOI; anything later ends the walk with a warning.
    init<Source: ByteSource>(_ source: Source, start: Int, end: Int, options: EXIFOptions,
                             stopAtFrame: Bool = false) throws(EXIFError) {
        // The walk fills the fields in place: returning from an init's loop copied the
        // whole walker out at the end.
        try walk(source, start: start, end: end, options: options, stopAtFrame: stopAtFrame)
    }

    private mutating func walk<Source: ByteSource>(_ source: Source, start: Int, end: Int, options: EXIFOptions,
                                                   stopAtFrame: Bool) throws(EXIFError) {
        guard start >= 0, end >= start, let slice = try? ByteSourceSlice(source, offset: start, count: end - start),
              var stream = try? ByteStream(source: slice, ledger: MemoryLedger(), windowSize: Self.windowSize),
              (try? MarkerReader.readSOI(&stream)) == true else { throw .notJPEG(offset: start) }
        // Both budgets hold for the whole walk: a limit per run of stray bytes would let
        // a marker every few KiB restart it, and a walk runs once per MPF image.
        var reader = MarkerReader(maxMarkers: options.maxSegments, maxSkippedBytes: options.maxStrayBytes)
        while true {
            let searchStart = stream.position
            let marker: FoundMarker
            let segment: MarkerSegment
            do throws(MarkerError) {
                guard let found = try reader.next(&stream) else {
                    // Bytes up to the end with no marker among them.
                    let skipped = stream.position - searchStart
                    if skipped >= 2 {
                        warnings.warn(.strayBytes(offset: start + searchStart,
                                                    count: min(skipped, options.maxStrayBytes)))
                    }
                    return
                }
                marker = found
                if marker.discarded > 0 {
                    warnings.warn(.strayBytes(offset: start + searchStart, count: marker.discarded))
                }
                if marker.code == JPEGMarker.eoi || marker.code == JPEGMarker.sos { return }
                if JPEGMarker.isStandalone(marker.code) { continue }
                segment = try MarkerReader.segment(&stream, of: marker, keep: 12)
            } catch {
                warnings.warn(Self.warning(error, start: start))
                return
            }
            var found = segment
            found.marker.offset += start
            found.payloadOffset += start
            let signature = segment.bytes
            switch marker.code {
            case JPEGMarker.app0, JPEGMarker.app1, JPEGMarker.app2:
                if marker.code == JPEGMarker.app1, exif == nil, signature.starts(with: Self.exifIdentifier) {
                    exif = found
                } else if noteGainMapSegments(marker.code, signature, found) {
                    // XMP or ISO 21496-1: noted for the gain map.
                } else if marker.code == JPEGMarker.app2, mpf == nil, signature.starts(with: Self.mpfIdentifier) {
                    mpf = found
                } else if marker.code == JPEGMarker.app2, signature.starts(with: Self.iccIdentifier) {
                    // (The segment keeps 12 bytes, the identifier's length: the whole signature.)
                    iccChunks.append((found.payloadOffset, found.payloadLength))
                } else if marker.code == JPEGMarker.app0, jfxx == nil, signature.starts(with: Self.jfxxJPEGIdentifier) {
                    jfxx = found
                }
            case _ where JPEGMarker.isFrame(marker.code):
                if frameWidth == nil, signature.count >= 5 {
                    // T.81 Figure B.3: P, then Y and X, two bytes each.
                    frameHeight = Int(signature[1]) << 8 | Int(signature[2])
                    frameWidth = Int(signature[3]) << 8 | Int(signature[4])
                    frameMarker = marker.code
                    if stopAtFrame { return }
                }
            default:
                break
            }
        }
    }

    /// A failed walk as the warning it leaves, its offsets made absolute.
    static func warning(_ error: MarkerError, start: Int) -> EXIFError {
        switch error {
        case let .input(error):
            return .core(error)
        case let .truncatedLength(marker, offset, _), let .lengthTooSmall(marker, offset, _),
             let .truncatedSegment(marker, offset, _, _):
            return .truncatedSegment(offset: start + offset, marker: marker)
        case let .tooManyMarkers(offset, _, limit):
            return .tooManySegments(offset: start + offset, limit: limit)
        case let .tooManySkippedBytes(offset, limit):
            return .strayBytes(offset: start + offset, count: limit)
        }
    }

    /// "Exif" and two null bytes (Exif 2.32 §4.5.4).
    static let exifIdentifier: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
    /// "MPF" and a null byte (CIPA DC-007 §5.1).
    static let mpfIdentifier: [UInt8] = [0x4D, 0x50, 0x46, 0]
    /// Notes the first APP1 XMP and APP2 ISO 21496-1 segments; true when `signature` was one.
    /// Under Embedded Swift, where no gain map is read (see `EXIFReader.readJPEG`), nothing.
    private mutating func noteGainMapSegments(_ code: UInt8, _ signature: [UInt8], _ found: MarkerSegment) -> Bool {
        #if hasFeature(Embedded)
        return false
        #else
        if code == JPEGMarker.app1, xmp == nil, signature.starts(with: Self.xmpPrefix) {
            xmp = found
            return true
        }
        if code == JPEGMarker.app2, iso21496 == nil, signature.starts(with: Self.isoPrefix) {
            iso21496 = found
            return true
        }
        return false
        #endif
    }

    /// The first twelve bytes of the XMP and ISO 21496-1 identifiers (what a segment keeps;
    /// the reader of the payload checks the rest): "http://ns.ad" and "urn:iso:std:".
    static let xmpPrefix: [UInt8] = [0x68, 0x74, 0x74, 0x70, 0x3A, 0x2F, 0x2F, 0x6E, 0x73, 0x2E, 0x61, 0x64]
    static let isoPrefix: [UInt8] = [0x75, 0x72, 0x6E, 0x3A, 0x69, 0x73, 0x6F, 0x3A, 0x73, 0x74, 0x64, 0x3A]
    /// "ICC_PROFILE" and a null byte.
    static let iccIdentifier: [UInt8] = [0x49, 0x43, 0x43, 0x5F, 0x50, 0x52, 0x4F, 0x46, 0x49, 0x4C, 0x45, 0]
    /// "JFXX", a null byte and the extension code 0x10, a thumbnail coded using JPEG
    /// (JFIF 1.02 §10.1).
    static let jfxxJPEGIdentifier: [UInt8] = [0x4A, 0x46, 0x58, 0x58, 0, 0x10]

    /// The frame size of the JPEG stream in `start..<end`, or nil when it has no readable
    /// SOFn before SOS.
    static func frameSize<Source: ByteSource>(in source: Source, start: Int, end: Int,
                                              options: EXIFOptions) -> (width: Int, height: Int)? {
        guard let walk = try? JPEGSegmentLocator(source, start: start, end: end, options: options, stopAtFrame: true),
              let width = walk.frameWidth, let height = walk.frameHeight else { return nil }
        return (width, height)
    }
}
