import PareCore

/// Marker codes (the byte after 0xFF), T.81 B.1.1.3 and Table B.1.
enum Marker {
    static let soi: UInt8 = 0xD8
    static let eoi: UInt8 = 0xD9
    static let sos: UInt8 = 0xDA
    static let dqt: UInt8 = 0xDB
    static let dnl: UInt8 = 0xDC
    static let dri: UInt8 = 0xDD
    static let dht: UInt8 = 0xC4
    static let dac: UInt8 = 0xCC
    static let com: UInt8 = 0xFE
    static let rst0: UInt8 = 0xD0
    static let app0: UInt8 = 0xE0
    static let app14: UInt8 = 0xEE

    static func isRestart(_ code: UInt8) -> Bool { code >= 0xD0 && code <= 0xD7 }
    /// Markers that stand alone, without a length (T.81 B.1.1.3): TEM, RSTn, SOI, EOI.
    static func isStandalone(_ code: UInt8) -> Bool { code == 0x01 || (code >= 0xD0 && code <= 0xD9) }
}

/// A marker found in the byte stream: its code and the offset of its 0xFF byte.
struct FoundMarker {
    var code: UInt8
    var offset: Int
    /// Bytes skipped before it that were not part of any marker (T.81 B.1.1.2 allows only
    /// 0xFF fill bytes there; libjpeg skips anything else with a warning, and so do we).
    var discarded: Int
}

/// The marker-level reader (T.81 B.1.1): finds markers, reads segment parameters, and names
/// what an APPn segment holds.
enum MarkerReader {
    /// The next marker at or after the stream's position, skipping fill bytes (0xFF runs),
    /// stuffed zeros and stray bytes as libjpeg's next_marker does; nil at the end of data.
    static func next(_ stream: inout ByteInput) throws(JPEGError) -> FoundMarker? {
        var discarded = 0
        while true {
            guard var byte = try stream.nextByte() else { return nil }
            while byte != 0xFF {
                discarded += 1
                guard let b = try stream.nextByte() else { return nil }
                byte = b
            }
            var code: UInt8 = 0xFF
            while code == 0xFF {
                guard let b = try stream.nextByte() else { return nil }
                code = b
            }
            if code != 0 {
                return FoundMarker(code: code, offset: stream.position - 2, discarded: discarded)
            }
            discarded += 2
        }
    }

    /// The parameters of a marker segment (the stream sits just after the marker code), at
    /// most `limit` bytes of them read into memory; the rest is skipped. Returns the bytes and
    /// the length field.
    static func segment(_ stream: inout ByteInput, marker: FoundMarker,
                                       limit: Int = 65535) throws(JPEGError) -> (bytes: [UInt8], length: Int) {
        let length = Int(try stream.readUInt16())
        guard length >= 2 else {
            throw .invalidSegment(marker: marker.code, offset: marker.offset, reason: "length \(length) is less than 2")
        }
        guard stream.remaining >= length - 2 else {
            throw .core(.outOfBounds(offset: stream.position, needed: length - 2, available: max(0, stream.remaining)))
        }
        let kept = min(length - 2, limit)
        let bytes = try stream.readBytes(kept)
        try stream.skip(length - 2 - kept)
        return (bytes, length)
    }

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

/// Runs a PareCore call and reports its failure as a JPEG error.
@inline(__always)
func core<T>(_ body: () throws(CoreError) -> T) throws(JPEGError) -> T {
    do {
        return try body()
    } catch {
        throw .core(error)
    }
}
