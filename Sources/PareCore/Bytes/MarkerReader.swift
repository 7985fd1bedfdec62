/// Marker codes of ITU-T T.81 (the byte after 0xFF), B.1.1.3 and Table B.1: the ones the
/// readers and writers of JPEG streams name, and the classes the marker reader needs.
public enum JPEGMarker {
    public static let tem: UInt8 = 0x01
    public static let sof0: UInt8 = 0xC0
    public static let dht: UInt8 = 0xC4
    public static let dac: UInt8 = 0xCC
    public static let rst0: UInt8 = 0xD0
    public static let soi: UInt8 = 0xD8
    public static let eoi: UInt8 = 0xD9
    public static let sos: UInt8 = 0xDA
    public static let dqt: UInt8 = 0xDB
    public static let dri: UInt8 = 0xDD
    public static let app0: UInt8 = 0xE0
    public static let app1: UInt8 = 0xE1
    public static let app2: UInt8 = 0xE2
    public static let com: UInt8 = 0xFE

    /// RST0…RST7 (T.81 B.2.1), met only inside entropy-coded data.
    @inlinable public static func isRestart(_ code: UInt8) -> Bool { code >= 0xD0 && code <= 0xD7 }
    /// Markers that stand alone, without a length (T.81 B.1.1.3): TEM, RSTn, SOI, EOI.
    @inlinable public static func isStandalone(_ code: UInt8) -> Bool { code == tem || (code >= 0xD0 && code <= 0xD9) }
    /// SOF0…SOF15 less DHT, JPG and DAC: the frame headers of T.81 Table B.1.
    @inlinable public static func isFrame(_ code: UInt8) -> Bool {
        code >= 0xC0 && code <= 0xCF && code != dht && code != 0xC8 && code != dac
    }
    /// APP0…APP15 (T.81 B.2.4.6).
    @inlinable public static func isApplication(_ code: UInt8) -> Bool { code >= 0xE0 && code <= 0xEF }
}

/// A marker found in the byte stream: its code and the offset of its 0xFF byte.
@_spi(Codec)
public struct FoundMarker: Equatable, Sendable {
    public var code: UInt8
    /// The offset of the 0xFF just before the code (after any fill bytes).
    public var offset: Int
    /// Bytes skipped before it that were not part of any marker (T.81 B.1.1.2 allows only
    /// 0xFF fill bytes there; libjpeg skips anything else with a warning, and so do the
    /// readers here). Counted as libjpeg's next_marker counts them: every byte before a
    /// 0xFF, and two for each 0xFF 0x00 pair.
    public var discarded: Int

    public init(code: UInt8, offset: Int, discarded: Int) {
        self.code = code
        self.offset = offset
        self.discarded = discarded
    }
}

/// A marker segment's parameters as written (T.81 B.1.1.4): the length field and the first
/// bytes after it.
@_spi(Codec)
public struct MarkerSegment: Sendable {
    /// The marker that starts it.
    public var marker: FoundMarker
    /// The length field: the parameters plus its own two bytes.
    public var length: Int
    /// The offset of the first parameter byte (just after the length field).
    public var payloadOffset: Int
    /// The first `min(length − 2, keep)` parameter bytes; the rest was skipped.
    public var bytes: [UInt8]

    /// The parameters' length, `length − 2`.
    public var payloadLength: Int { length - 2 }
}

/// What stops the marker reader, and where.
@_spi(Codec)
public enum MarkerError: Error, Equatable, Sendable {
    /// The input could not be read (or ended inside a length field).
    case input(CoreError)
    /// The input ends inside the length field (at `offset + 2`) of the segment whose marker
    /// is at `offset`: `available` of its two bytes are there.
    case truncatedLength(marker: UInt8, offset: Int, available: Int)
    /// A segment's length field (at `offset + 2`) is below 2, the length of the field itself.
    case lengthTooSmall(marker: UInt8, offset: Int, length: Int)
    /// A segment whose marker is at `offset` claims `needed` parameter bytes where the input
    /// has `available` after its length field.
    case truncatedSegment(marker: UInt8, offset: Int, needed: Int, available: Int)
    /// The marker found at `offset` is marker number `count` after SOI (EOI not counted),
    /// past the limit.
    case tooManyMarkers(offset: Int, count: Int, limit: Int)
    /// More than `limit` bytes that are no marker (stray and fill bytes together, counted
    /// over the whole walk) from `offset` on.
    case tooManySkippedBytes(offset: Int, limit: Int)
}

#if !hasFeature(Embedded)
@_spi(Codec)
extension MarkerError: CustomStringConvertible {}
#endif

@_spi(Codec)
extension MarkerError {
    public var description: MessageText {
        switch self {
        case let .input(error):
            return error.description
        case let .truncatedLength(marker, offset, available):
            return "marker 0x\(hex(marker)) segment length field cut short (\(available) of 2 bytes) at byte \(offset)"
        case let .lengthTooSmall(marker, offset, length):
            return "marker 0x\(hex(marker)) has segment length \(length), less than 2, at byte \(offset)"
        case let .truncatedSegment(marker, offset, needed, available):
            return "marker 0x\(hex(marker)) segment needs \(needed) byte(s), \(available) available, at byte \(offset)"
        case let .tooManyMarkers(offset, count, limit):
            return "marker \(count) passes the limit of \(limit) markers at byte \(offset)"
        case let .tooManySkippedBytes(offset, limit):
            return "more than \(limit) bytes without a marker at byte \(offset)"
        }
    }

    private func hex(_ byte: UInt8) -> MessageText {
        MessageText.hex(byte, digits: 2)
    }
}

/// The one reader of JPEG marker structure (T.81 B.1.1.2–B.1.1.4) that every walker of a
/// JPEG stream uses: the decoder's header and between-scan reads, the structure walk, and
/// the metadata reader's search for APPn segments and the frame size.
///
/// B.1.1.2: a marker is 0xFF followed by a code that is neither 0x00 nor 0xFF; any number of
/// 0xFF fill bytes may precede it. B.1.1.3: TEM, RSTn, SOI and EOI stand alone; every other
/// marker starts a segment whose two-byte big-endian length (B.1.1.4) counts itself and the
/// parameters. Bytes between segments that are not fill bytes break the syntax; like
/// libjpeg, the reader skips them and counts them (`FoundMarker.discarded`).
///
/// It works over a `ByteStream`, so a walk holds one window of the input whatever the
/// segment sizes (a 1 KiB window on the firmware). Two budgets hold for the whole walk:
/// markers found (`maxMarkers`: every marker after SOI but the closing EOI, stand-alone
/// ones included, since each costs a walk's caller a step or a record) and bytes
/// skipped to reach them (`maxSkippedBytes`, stray and fill bytes together); either ends the
/// walk with a typed error naming the offset.
@_spi(Codec)
public struct MarkerReader: Sendable {
    public let maxMarkers: Int
    public let maxSkippedBytes: Int
    /// Markers returned by `next` so far (plus the count it started from).
    public private(set) var markers: Int
    /// Bytes skipped so far to reach them.
    public private(set) var skippedBytes = 0

    /// `markersSoFar`: markers already counted against `maxMarkers`, for a walk that goes on
    /// from an earlier one (the scans after a decoder's headers).
    public init(maxMarkers: Int = .max, maxSkippedBytes: Int = .max, markersSoFar: Int = 0) {
        self.maxMarkers = maxMarkers
        self.maxSkippedBytes = maxSkippedBytes
        markers = markersSoFar
    }

    /// Reads SOI at the stream's position: true when the next two bytes are 0xFF 0xD8 (and
    /// consumes them), false otherwise.
    public static func readSOI(_ stream: inout ByteStream) throws(MarkerError) -> Bool {
        guard stream.remaining >= 2 else { return false }
        let start = stream.position
        guard try input({ () throws(CoreError) in try stream.readUInt16() }) == 0xFFD8 else {
            stream.seek(to: start)
            return false
        }
        return true
    }

    /// The next marker at or after the stream's position, the stream left just after its
    /// code; nil when the input ends first. Skips fill bytes, 0xFF 0x00 pairs and stray
    /// bytes as libjpeg's next_marker does.
    public mutating func next(_ stream: inout ByteStream) throws(MarkerError) -> FoundMarker? {
        let start = stream.position
        var discarded = 0
        // One byte at a time, remembering whether the bytes before were 0xFF: a stray byte
        // counts one, fill bytes nothing, a 0xFF 0x00 pair two.
        var afterFF = false
        while true {
            guard let byte = try nextByte(&stream, start: start) else { return nil }
            if !afterFF {
                if byte == 0xFF { afterFF = true } else { discarded += 1 }
            } else if byte == 0 {
                discarded += 2
                afterFF = false
            } else if byte != 0xFF {
                let marker = FoundMarker(code: byte, offset: stream.position - 2, discarded: discarded)
                skippedBytes += marker.offset - start
                try count(marker)
                return marker
            }
        }
    }

    /// Counts a marker against `maxMarkers`: `next` counts the ones it finds; a caller counts
    /// a marker found another way (the one that ends a scan's entropy-coded data). The EOI
    /// that ends a walk is not counted.
    public mutating func count(_ marker: FoundMarker) throws(MarkerError) {
        guard marker.code != JPEGMarker.eoi else { return }
        markers += 1
        guard markers <= maxMarkers else {
            throw .tooManyMarkers(offset: marker.offset, count: markers, limit: maxMarkers)
        }
    }

    /// The next byte of a search that began at `start`, within the skipped-byte budget: the
    /// search may pass over `maxSkippedBytes − skippedBytes` bytes and read the two bytes of
    /// the marker after them; the byte after those would only be needed by a marker further on.
    @inline(__always)
    private func nextByte(_ stream: inout ByteStream, start: Int) throws(MarkerError) -> UInt8? {
        let allowed = maxSkippedBytes - skippedBytes
        if allowed <= Int.max - 2, stream.position - start >= allowed + 2 {
            throw .tooManySkippedBytes(offset: start, limit: allowed)
        }
        return try Self.input { () throws(CoreError) in try stream.nextByte() }
    }

    /// The segment of `marker` (the stream just after its code): its length and at most
    /// `keep` of its parameter bytes; the rest is skipped, so the stream ends just after the
    /// segment.
    public static func segment(_ stream: inout ByteStream, of marker: FoundMarker,
                               keep: Int = 65533) throws(MarkerError) -> MarkerSegment {
        guard stream.remaining >= 2 else {
            throw .truncatedLength(marker: marker.code, offset: marker.offset, available: max(0, stream.remaining))
        }
        let length = Int(try input { () throws(CoreError) in try stream.readUInt16() })
        guard length >= 2 else { throw .lengthTooSmall(marker: marker.code, offset: marker.offset, length: length) }
        guard stream.remaining >= length - 2 else {
            throw .truncatedSegment(marker: marker.code, offset: marker.offset, needed: length - 2,
                                    available: max(0, stream.remaining))
        }
        let payloadOffset = stream.position
        let kept = min(length - 2, max(0, keep))
        let bytes = try input { () throws(CoreError) in try stream.readBytes(kept) }
        stream.seek(to: payloadOffset + length - 2)
        return MarkerSegment(marker: marker, length: length, payloadOffset: payloadOffset, bytes: bytes)
    }

    @inline(__always)
    static func input<T>(_ body: () throws(CoreError) -> T) throws(MarkerError) -> T {
        do {
            return try body()
        } catch {
            throw .input(error)
        }
    }
}
