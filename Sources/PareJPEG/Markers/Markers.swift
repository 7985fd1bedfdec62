@_spi(Codec) import PareCore

/// The marker codes by their short name inside the JPEG codec (PareCore's `JPEGMarker`,
/// shared with the metadata reader).
typealias Marker = JPEGMarker

/// The decoder's reading of marker-segment parameters that need no stage of their own (the
/// markers themselves are found by PareCore's `MarkerReader`).
enum MarkerParameters {
    /// What an APPn segment carries, from its marker and identifier string.
    static func kind(marker: UInt8, prefix: [UInt8]) -> JPEGSegmentKind {
        func starts(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard prefix.count >= count else { return false }
            let start = text.utf8Start
            for i in 0 ..< count where prefix[i] != start[i] { return false }
            return true
        }
        switch marker {
        case 0xE0:
            if starts("JFIF\0") { return .jfif }
            if starts("JFXX\0") { return .jfxx }
        case 0xE1:
            if starts("Exif\0") { return .exif }
            if starts("http://ns.adobe.com/xap/1.0/\0") { return .xmp }
        case 0xE2:
            if starts("ICC_PROFILE\0") { return .icc }
            if starts("MPF\0") { return .mpf }
        case 0xEE:
            if starts("Adobe") { return .adobe }
        default:
            break
        }
        return .other
    }

    /// Ri from a DRI segment (T.81 B.2.4.4).
    static func restartInterval(_ bytes: [UInt8], marker: FoundMarker) throws(JPEGError) -> Int {
        guard bytes.count == 2 else {
            throw .invalidSegment(marker: Marker.dri, offset: marker.offset, reason: "length must be 4")
        }
        return Int(bytes[0]) << 8 | Int(bytes[1])
    }
}

extension MarkerReader {
    /// `readSOI`, its failure as a JPEG error.
    static func startOfImage(_ stream: inout ByteStream) throws(JPEGError) -> Bool {
        do { return try readSOI(&stream) } catch { throw JPEGError(error) }
    }

    /// `next`, its failures as JPEG errors.
    mutating func nextMarker(_ stream: inout ByteStream) throws(JPEGError) -> FoundMarker? {
        do { return try next(&stream) } catch { throw JPEGError(error) }
    }

    /// `count`, its failure as a JPEG error.
    mutating func countMarker(_ marker: FoundMarker) throws(JPEGError) {
        do { try count(marker) } catch { throw JPEGError(error) }
    }

    /// `segment`, its failures as JPEG errors: the parameter bytes (at most `keep`) and the
    /// length field.
    static func parameters(_ stream: inout ByteStream, of marker: FoundMarker,
                           keep: Int = 65533) throws(JPEGError) -> (bytes: [UInt8], length: Int) {
        do {
            let segment = try segment(&stream, of: marker, keep: keep)
            return (segment.bytes, segment.length)
        } catch {
            throw JPEGError(error)
        }
    }
}

extension JPEGError {
    /// The marker reader's failures as the decoder has always reported them.
    init(_ error: MarkerError) {
        switch error {
        case let .input(error):
            self = .core(error)
        case let .truncatedLength(_, offset, available):
            // The length field follows the marker.
            self = .core(.outOfBounds(offset: offset + 2, needed: 2, available: available))
        case let .lengthTooSmall(marker, offset, length):
            self = .invalidSegment(marker: marker, offset: offset, reason: "length \(length) is less than 2")
        case let .truncatedSegment(_, offset, needed, available):
            // The segment's parameters start after its marker and length field.
            self = .core(.outOfBounds(offset: offset + 4, needed: needed, available: available))
        case let .tooManyMarkers(offset, count, limit):
            self = .limitExceeded(what: "marker segment count", value: count, limit: limit, offset: offset)
        case let .tooManySkippedBytes(offset, limit):
            self = .limitExceeded(what: "bytes skipped between markers", value: limit + 1, limit: limit, offset: offset)
        }
    }
}

/// Runs a PareCore call and reports its failure as a JPEG error.
@inline(__always)
func core<T>(_ body: () throws(CoreError) -> T) throws(JPEGError) -> T {
    do {
        return try body()
    } catch {
        throw .core(error)
    }
}
