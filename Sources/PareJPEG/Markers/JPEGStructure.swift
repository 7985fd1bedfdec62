@_spi(Codec) import PareCore

/// A JPEG file as a reader of T.81 sees it: every marker from SOI to EOI in file order
/// (Annex B), with the contents of the segments that shape decoding — frame headers
/// (B.2.2), quantisation tables (B.2.4.1), Huffman tables (B.2.4.2), restart intervals
/// (B.2.4.4), scan headers (B.2.3) — the application segments named by their identifiers,
/// and where each scan's entropy-coded data lies (B.1.1.5: stuffed zeros and RSTn inside
/// it, counted rather than listed).
///
/// Unlike the decoder, the walk accepts every coding process of Table B.1 and JPEG-LS
/// (T.87), any precision and any component count: it describes, it does not decode.
/// `failure` is set when the marker structure itself is broken (no SOI, a segment cut
/// short or with contents that break Annex B, no scan before the end of the file); what was
/// read up to that point is kept. A file that ends inside or after its entropy-coded data
/// without EOI is not a failure — decoders show such an image — and gets a `truncated`
/// warning instead.
public struct JPEGStructure: Sendable {
    /// Every marker met, in file order. RSTn markers inside entropy-coded data are counted in
    /// their scan instead.
    public var markers: [JPEGMarkerRecord] = []
    /// Repaired or tolerated damage: extraneous bytes before a marker, a missing EOI.
    public var warnings: [JPEGWarning] = []
    /// Bytes after EOI (camera files often append previews there; MPF points into them).
    public var trailingBytes = 0
    /// What stopped the walk early, with its offset.
    public var failure: JPEGError?

    /// The frame headers, in order (one, except in hierarchical files).
    public var frames: [JPEGFrameRecord] {
        markers.compactMap { if case let .frame(frame) = $0.content { return frame } else { return nil } }
    }

    /// The scans, in order: a progressive file's scan script.
    public var scans: [JPEGScanRecord] {
        markers.compactMap { if case let .scan(scan) = $0.content { return scan } else { return nil } }
    }

    /// The offset of the EOI marker, nil when the file has none.
    public var endOfImage: Int? {
        markers.last(where: { $0.marker == Marker.eoi })?.offset
    }
}

/// One marker and, for a marker segment, its length and what its parameters say.
public struct JPEGMarkerRecord: Sendable {
    /// The marker code (the byte after 0xFF).
    public var marker: UInt8
    /// The offset of the marker's 0xFF byte.
    public var offset: Int
    /// The segment's length field (parameters plus the two length bytes); nil for the
    /// stand-alone markers SOI, EOI, RSTn and TEM.
    public var length: Int?
    public var content: JPEGSegmentContent

    /// "SOI", "SOF2", "DHT", "APP1"…, or "0xFFnn".
    public var name: MessageText { markerName(marker) }
}

/// The parameters of a marker segment, decoded as far as a reader needs.
public enum JPEGSegmentContent: Sendable {
    /// A stand-alone marker, or a segment shown only by its length (DAC, DNL, JPEG-LS LSE…).
    case none
    case frame(JPEGFrameRecord)
    case quantizationTables([JPEGQuantizationRecord])
    case huffmanTables([JPEGHuffmanRecord])
    /// Ri, in MCUs (0 turns restarts off).
    case restartInterval(Int)
    case scan(JPEGScanRecord)
    case application(JPEGApplicationRecord)
    /// The COM segment's bytes (T.81 B.2.4.5), usually text.
    case comment([UInt8])
}

/// A frame header (T.81 B.2.2, Figure B.3) as written, whatever the process.
public struct JPEGFrameRecord: Sendable, Equatable {
    /// The process its SOFn announces (Table B.1); nil never happens for a recorded frame.
    public var process: JPEGProcess
    /// P, bits per sample.
    public var precision: Int
    /// Y (0 means the height comes in a DNL segment) and X.
    public var height: Int
    public var width: Int
    public var components: [JPEGComponentInfo]
}

/// One table of a DQT segment (T.81 B.2.4.1), in natural (row-major) order: the zig-zag
/// order it is sent in has been undone.
public struct JPEGQuantizationRecord: Sendable, Equatable {
    /// Tq, the destination 0…3.
    public var id: Int
    /// 8 or 16 (Pq 0 or 1).
    public var bits: Int
    /// Q[u + 8·v].
    public var values: [UInt16]
}

/// One table of a DHT segment (T.81 B.2.4.2, Figure B.7).
public struct JPEGHuffmanRecord: Sendable, Equatable {
    /// Tc: 0 for DC (and lossless), 1 for AC.
    public var tableClass: Int
    /// Th, the destination 0…3.
    public var id: Int
    /// BITS: `counts[l - 1]` codes of length l.
    public var counts: [Int]
    /// HUFFVAL, in code order.
    public var symbols: [UInt8]
}

/// The progression parameters that end a scan header (T.81 B.2.3, Table B.3): which band of
/// coefficients the scan codes and at which bit positions. Read once, by
/// `JPEGScanRecord(parsing:marker:number:)`, and carried as they are by the decoder's
/// `ScanHeader`.
public struct JPEGScanBand: Sendable, Equatable {
    /// Ss and Se: the first and last coefficient of the band, in zig-zag order (0 and 63 for
    /// sequential scans; in lossless files Ss is the predictor).
    public var spectralStart: Int
    public var spectralEnd: Int
    /// Ah and Al: the bit position of the previous scan of this band (0 for the first) and
    /// of this one (T.81 G.1.1.1.2; Al is the point transform in lossless files).
    public var approximationHigh: Int
    public var approximationLow: Int
}

/// A scan header (T.81 B.2.3, Figure B.4) and the entropy-coded data that follows it.
public struct JPEGScanRecord: Sendable, Equatable {
    public struct Component: Sendable, Equatable {
        /// Csj, the frame component identifier.
        public var id: Int
        /// Tdj and Taj.
        public var dcTable: Int
        public var acTable: Int
    }

    /// The scan's number in the file, from 1.
    public var number: Int
    public var components: [Component]
    /// Ss, Se, Ah and Al.
    public var band: JPEGScanBand
    /// Ri in force for this scan (the last DRI before it), 0 when restarts are off.
    public var restartInterval: Int
    /// Where the entropy-coded data starts (just after the SOS segment) and how many bytes
    /// it spans up to the next marker that is not RSTn, or to the end of the file.
    public var dataOffset: Int
    public var dataLength: Int
    /// RSTn markers inside the data.
    public var restartMarkers: Int
}

/// An APPn segment named by its identifier (JFIF 1.02, Exif 2.32 §4.5.4, XMP part 3 §1.1.3,
/// ICC.1 Annex B.4, CIPA DC-007 §5.1, Adobe Technical Note 5116 §18), with its key fields.
public struct JPEGApplicationRecord: Sendable, Equatable {
    public var kind: JPEGSegmentKind
    /// The NUL-terminated identifier at the start of the payload, printable ASCII only
    /// (empty when there is none).
    public var identifier: String
    /// Where the payload starts (after the length field) and its length.
    public var payloadOffset: Int
    public var payloadLength: Int
    public var details: JPEGApplicationDetails
}

/// The fields of the application segments a reader meets most.
public enum JPEGApplicationDetails: Sendable, Equatable {
    case none
    /// JFIF APP0: version, density unit (0 aspect only, 1 dpi, 2 dpcm), densities and the
    /// size of the RGB thumbnail that may follow.
    case jfif(major: Int, minor: Int, units: Int, xDensity: Int, yDensity: Int, thumbnailWidth: Int,
              thumbnailHeight: Int)
    /// JFXX APP0: the extension code (0x10 JPEG, 0x11 1-byte palette, 0x13 3-byte RGB).
    case jfxx(extensionCode: Int)
    /// Exif APP1: the TIFF header's offset in the file and its byte order mark, "II"/"MM"
    /// (empty when neither).
    case exif(tiffHeaderOffset: Int, byteOrder: String)
    /// XMP APP1: the packet's offset and length.
    case xmp(packetOffset: Int, packetLength: Int)
    /// ICC_PROFILE APP2: chunk `sequence` of `count` and how many profile bytes it carries.
    case icc(sequence: Int, count: Int, profileBytes: Int)
    /// MPF APP2: the offset of its TIFF-style header (MP entry offsets count from it).
    case mpf(headerOffset: Int)
    /// Adobe APP14: DCTEncodeVersion, flags and the colour transform (0 none/CMYK, 1 YCbCr,
    /// 2 YCCK).
    case adobe(version: Int, flags0: Int, flags1: Int, transform: Int)
}

extension JPEGStructure {
    /// Walks the whole file. Never throws: a broken structure sets `failure` and keeps what
    /// came before it. Memory: the decoder's input window (`options.inputWindowBytes`) from `ledger`, and one
    /// record per marker (at most `options.maxSegments`).
    public static func walk<Source: ByteSource>(_ source: Source, ledger: MemoryLedger,
                                                options: JPEGOptions = JPEGOptions()) -> JPEGStructure {
        var structure = JPEGStructure()
        do {
            var stream = try core { () throws(CoreError) in
                try ByteStream(source: source, ledger: ledger, windowSize: options.inputWindowBytes)
            }
            try structure.read(&stream, options: options)
        } catch {
            structure.failure = error
        }
        return structure
    }

    private mutating func read(_ stream: inout ByteStream, options: JPEGOptions) throws(JPEGError) {
        guard try MarkerReader.startOfImage(&stream) else { throw .notJPEG(offset: 0) }
        markers.append(JPEGMarkerRecord(marker: Marker.soi, offset: 0, length: nil, content: .none))
        var restartInterval = 0
        var isJPEGLS = false
        var sawFrame = false
        var reader = MarkerReader(maxMarkers: options.maxSegments)
        while true {
            guard let found = try reader.nextMarker(&stream) else {
                guard !scans.isEmpty else { throw .missingScan(offset: stream.count) }
                warn(.truncated(scan: scans.count, offset: stream.count), options)
                return
            }
            if found.discarded > 0 {
                warn(.extraneousBytes(count: found.discarded, marker: found.code, offset: found.offset), options)
            }
            if Marker.isStandalone(found.code) {
                markers.append(JPEGMarkerRecord(marker: found.code, offset: found.offset, length: nil, content: .none))
                if found.code == Marker.eoi {
                    guard !scans.isEmpty else { throw .missingScan(offset: found.offset) }
                    trailingBytes = max(0, stream.remaining)
                    return
                }
                if found.code == Marker.soi { throw .unexpectedMarker(marker: found.code, offset: found.offset) }
                continue
            }
            let (bytes, length) = try MarkerReader.parameters(&stream, of: found)
            var record = JPEGMarkerRecord(marker: found.code, offset: found.offset, length: length, content: .none)
            switch found.code {
            case _ where JPEGProcess(marker: found.code) != nil:
                let frame = try JPEGFrameRecord(parsing: bytes, marker: found)
                isJPEGLS = frame.process == .jpegLS
                sawFrame = true
                record.content = .frame(frame)
            case Marker.dqt:
                var tables: [JPEGQuantizationRecord] = []
                try QuantizationTable.parse(bytes, offset: found.offset) { id, table in
                    tables.append(JPEGQuantizationRecord(id: id, bits: table.sixteenBit ? 16 : 8, values: table.values))
                }
                record.content = .quantizationTables(tables)
            case Marker.dht:
                var tables: [JPEGHuffmanRecord] = []
                try HuffmanTable.parse(bytes, offset: found.offset) { tableClass, id, table in
                    tables.append(JPEGHuffmanRecord(tableClass: tableClass, id: id, counts: table.counts.map { Int($0) },
                                                    symbols: table.symbols))
                }
                record.content = .huffmanTables(tables)
            case Marker.dri:
                restartInterval = try MarkerParameters.restartInterval(bytes, marker: found)
                record.content = .restartInterval(restartInterval)
            case Marker.sos:
                guard sawFrame else { throw .unexpectedMarker(marker: Marker.sos, offset: found.offset) }
                var scan = try JPEGScanRecord(parsing: bytes, marker: found, number: scans.count + 1)
                scan.restartInterval = restartInterval
                scan.dataOffset = stream.position
                let end = try Self.skipEntropyData(&stream, isJPEGLS: isJPEGLS, restarts: &scan.restartMarkers)
                scan.dataLength = (end ?? stream.count) - scan.dataOffset
                record.content = .scan(scan)
                if end == nil {
                    markers.append(record)
                    warn(.truncated(scan: scan.number, offset: stream.count), options)
                    return
                }
            case 0xE0 ... 0xEF:
                record.content = .application(Self.application(bytes, marker: found.code, offset: found.offset))
            case Marker.com:
                record.content = .comment(bytes)
            default:
                break
            }
            markers.append(record)
        }
    }

    private mutating func warn(_ warning: JPEGWarning, _ options: JPEGOptions) {
        if warnings.count < options.maxWarnings { warnings.append(warning) }
    }

    /// Passes over a scan's entropy-coded data (`ByteStream.nextEntropyMarker`), counting its
    /// RSTn markers; any other marker ends the scan. Returns the offset where the data ends
    /// (fill bytes before the marker, B.1.1.2, belong to neither the data nor the marker) and
    /// leaves the stream on the marker's 0xFF; nil when the file ends first.
    static func skipEntropyData(_ stream: inout ByteStream, isJPEGLS: Bool,
                                restarts: inout Int) throws(JPEGError) -> Int? {
        while let marker = try stream.nextEntropyMarker(jpegLS: isJPEGLS) {
            if Marker.isRestart(marker.code) {
                restarts += 1
                continue
            }
            stream.seek(to: marker.offset)
            return marker.fillStart
        }
        return nil
    }

    /// Names an APPn segment and reads the fields of the common ones.
    static func application(_ bytes: [UInt8], marker: UInt8, offset: Int) -> JPEGApplicationRecord {
        let kind = MarkerParameters.kind(marker: marker, prefix: bytes)
        var identifier = ""
        for byte in bytes.prefix(64) {
            guard byte >= 0x20 && byte < 0x7F else { break }
            identifier.unicodeScalars.append(Unicode.Scalar(byte))
        }
        let payloadOffset = offset + 4
        func u16(_ i: Int) -> Int { i + 1 < bytes.count ? Int(bytes[i]) << 8 | Int(bytes[i + 1]) : 0 }
        func u8(_ i: Int) -> Int { i < bytes.count ? Int(bytes[i]) : 0 }
        let details: JPEGApplicationDetails
        switch kind {
        case .jfif:
            details = .jfif(major: u8(5), minor: u8(6), units: u8(7), xDensity: u16(8), yDensity: u16(10),
                            thumbnailWidth: u8(12), thumbnailHeight: u8(13))
        case .jfxx:
            details = .jfxx(extensionCode: u8(5))
        case .exif:
            let mark = bytes.count >= 8 ? (bytes[6], bytes[7]) : (0, 0)
            let order = mark == (0x49, 0x49) ? "II" : mark == (0x4D, 0x4D) ? "MM" : ""
            details = .exif(tiffHeaderOffset: payloadOffset + 6, byteOrder: order)
        case .xmp:
            let header = 29
            details = .xmp(packetOffset: payloadOffset + header, packetLength: max(0, bytes.count - header))
        case .icc:
            details = .icc(sequence: u8(12), count: u8(13), profileBytes: max(0, bytes.count - 14))
        case .mpf:
            details = .mpf(headerOffset: payloadOffset + 4)
        case .adobe:
            details = .adobe(version: u16(5), flags0: u16(7), flags1: u16(9), transform: u8(11))
        case .other:
            details = .none
        }
        return JPEGApplicationRecord(kind: kind, identifier: identifier, payloadOffset: payloadOffset,
                                     payloadLength: bytes.count, details: details)
    }
}
