@_spi(Codec) import PareCore

/// How a file says that one of its images is a gain map: the picture that, applied to the
/// primary (SDR) image, gives its HDR rendition. A thumbnailer must never show it (it is a
/// gray or colour map of brightness ratios, not the photo), and may carry it into an HDR
/// thumbnail.
public enum GainMapStandard: Sendable, Equatable {
    /// Google's Ultra HDR (Android 14 and later): the primary's XMP has the `hdrgm` namespace
    /// (`http://ns.adobe.com/hdr-gain-map/1.0/`) and a GContainer directory whose item of
    /// semantic "GainMap" is the secondary image; the gain map's own XMP holds the values.
    case ultraHDR
    /// ISO 21496-1: an APP2 segment "urn:iso:std:iso:ts:21496:-1\0" in the primary (its
    /// version alone) and in the gain map (the whole metadata, in binary).
    case iso21496
    /// Apple's HDR gain map (iPhone, iOS 14.1 and later): an MPF image whose XMP names the
    /// auxiliary type `urn:com:apple:photo:2020:aux:hdrgainmap`. Its values live in the
    /// maker notes and are not read.
    case apple

    /// The name `pare exif --json` prints.
    public var name: String {
        switch self {
        case .ultraHDR: return "ultra-hdr"
        case .iso21496: return "iso-21496-1"
        case .apple: return "apple"
        }
    }
}

/// The values that turn a base rendition and a gain map into the other rendition, as Ultra
/// HDR's XMP names them (ISO 21496-1's fields map onto them one to one). Logarithmic values
/// are log2. One value per channel where the map is multi-channel, else one.
public struct GainMapMetadata: Sendable, Equatable {
    /// The metadata's version ("1.0" for Ultra HDR, "0.0" for ISO 21496-1 minimum/writer 0).
    public var version: String?
    /// log2 of the smallest and largest boost a map value stands for.
    public var gainMapMin: [Double] = [0]
    public var gainMapMax: [Double] = [1]
    /// The map's encoding gamma.
    public var gamma: [Double] = [1]
    /// Offsets added to the SDR and HDR values before the ratio is taken (avoid log of 0).
    public var offsetSDR: [Double] = [1.0 / 64]
    public var offsetHDR: [Double] = [1.0 / 64]
    /// log2 of the display headroom at which the gain map starts to apply, and at which it
    /// applies in full (ISO 21496-1's base and alternate HDR headroom).
    public var hdrCapacityMin: Double = 0
    public var hdrCapacityMax: Double = 1
    /// True when the primary image is the HDR rendition and the map leads down to SDR.
    public var baseRenditionIsHDR = false
    /// ISO 21496-1 only: whether the map applies in the base image's colour space.
    public var useBaseColourSpace: Bool?

    public init() {}
}

/// A gain map found in a JPEG: which standard marks it, where its JPEG stream is, and its
/// values.
public struct GainMapInfo: Sendable, Equatable {
    /// The signal that identified it; a file with both XMP and ISO 21496-1 metadata (what
    /// libultrahdr writes by default) says `.ultraHDR` and has `hasISOMetadata` set.
    public var standard: GainMapStandard
    /// Its entry in the MP Entry list (from 0), nil when only the GContainer directory locates it.
    public var mpfIndex: Int?
    /// Absolute offset of its SOI and its length in bytes.
    public var offset: Int
    public var length: Int
    /// Its size from its own SOF.
    public var width: Int?
    public var height: Int?
    /// Its values: from the ISO 21496-1 block where there is one (exact rationals), else
    /// from the XMP; nil for Apple's.
    public var metadata: GainMapMetadata?
    public var hasXMPMetadata: Bool
    public var hasISOMetadata: Bool
    /// The gain map image's ISO 21496-1 payload (after the identifier), as stored, so that a
    /// thumbnail can carry exactly the same metadata.
    public var isoPayload: [UInt8]?

    /// The gain map as an embedded JPEG.
    public var image: EmbeddedImage {
        EmbeddedImage(offset: offset, length: length, width: width, height: height, encoding: .jpeg)
    }
}

/// The namespaces and identifiers the standards use.
public enum GainMapSignature {
    public static let hdrgmNamespace = "http://ns.adobe.com/hdr-gain-map/1.0/"
    public static let containerNamespace = "http://ns.google.com/photos/1.0/container/"
    public static let itemNamespace = "http://ns.google.com/photos/1.0/container/item/"
    public static let appleAuxNamespace = "http://ns.apple.com/pixeldatainfo/1.0/"
    public static let appleGainMapNamespace = "http://ns.apple.com/HDRGainMap/1.0/"
    public static let appleGainMapType = "urn:com:apple:photo:2020:aux:hdrgainmap"
    /// The APP1 identifier of an XMP packet (XMP part 3 §1.1.3), its null byte included.
    public static let xmpIdentifier: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    /// The APP2 identifier of ISO 21496-1 metadata, its null byte included.
    public static let isoIdentifier: [UInt8] = Array("urn:iso:std:iso:ts:21496:-1".utf8) + [0]
}

/// ISO 21496-1's binary metadata (its clause 6, "GainMapMetadata" in the JPEG APP2 payload):
///
///     u16 minimum_version, u16 writer_version
///     u8  flags: bit 7 multi-channel, bit 6 use base colour space, bit 3 common denominator,
///         bit 2 backward direction (the base is the HDR rendition)
///     common denominator: u32 denominator, u32 base_hdr_headroom_n, u32 alternate_hdr_headroom_n,
///         then per channel s32 gain_map_min_n, s32 gain_map_max_n, u32 gamma_n,
///         s32 base_offset_n, s32 alternate_offset_n
///     otherwise each value as its own numerator and u32 denominator, in the same order.
///
/// Big-endian. A payload of only the two versions (what the primary image carries) says
/// "this file has a gain map" without values.
enum ISOGainMapBlock {
    static let multiChannel: UInt8 = 0x80
    static let useBaseColourSpace: UInt8 = 0x40
    static let commonDenominator: UInt8 = 0x08
    static let backwardDirection: UInt8 = 0x04

    /// The values, nil when the payload holds only the versions or is not one this reader
    /// knows (minimum version other than 0); throws on a payload cut short.
    static func parse(_ payload: [UInt8], offset: Int) throws(EXIFError) -> GainMapMetadata? {
        var at = 0
        func need(_ n: Int) throws(EXIFError) {
            guard payload.count - at >= n else {
                throw .badGainMap(offset: offset + at, reason: "ISO 21496-1 metadata ends early")
            }
        }
        func u16() throws(EXIFError) -> UInt16 {
            try need(2)
            defer { at += 2 }
            return UInt16(payload[at]) << 8 | UInt16(payload[at + 1])
        }
        func u32() throws(EXIFError) -> UInt32 {
            try need(4)
            defer { at += 4 }
            return UInt32(payload[at]) << 24 | UInt32(payload[at + 1]) << 16 | UInt32(payload[at + 2]) << 8
                | UInt32(payload[at + 3])
        }
        func s32() throws(EXIFError) -> Int32 { Int32(bitPattern: try u32()) }
        func ratio(_ n: Double, _ d: UInt32) throws(EXIFError) -> Double {
            guard d != 0 else { throw .badGainMap(offset: offset + at - 4, reason: "ISO 21496-1 denominator 0") }
            return n / Double(d)
        }

        let minimumVersion = try u16()
        let writerVersion = try u16()
        guard at < payload.count else { return nil }
        guard minimumVersion == 0 else { return nil }
        try need(1)
        let flags = payload[at]
        at += 1
        var metadata = GainMapMetadata()
        metadata.version = "\(minimumVersion).\(writerVersion)"
        metadata.useBaseColourSpace = flags & useBaseColourSpace != 0
        let channels = flags & multiChannel != 0 ? 3 : 1
        let backward = flags & backwardDirection != 0
        var baseHeadroom: Double, alternateHeadroom: Double
        var mins: [Double] = [], maxs: [Double] = [], gammas: [Double] = []
        var baseOffsets: [Double] = [], alternateOffsets: [Double] = []
        if flags & commonDenominator != 0 {
            let d = try u32()
            baseHeadroom = try ratio(Double(try u32()), d)
            alternateHeadroom = try ratio(Double(try u32()), d)
            for _ in 0 ..< channels {
                mins.append(try ratio(Double(try s32()), d))
                maxs.append(try ratio(Double(try s32()), d))
                gammas.append(try ratio(Double(try u32()), d))
                baseOffsets.append(try ratio(Double(try s32()), d))
                alternateOffsets.append(try ratio(Double(try s32()), d))
            }
        } else {
            baseHeadroom = try ratio(Double(try u32()), try u32())
            alternateHeadroom = try ratio(Double(try u32()), try u32())
            for _ in 0 ..< channels {
                mins.append(try ratio(Double(try s32()), try u32()))
                maxs.append(try ratio(Double(try s32()), try u32()))
                gammas.append(try ratio(Double(try u32()), try u32()))
                baseOffsets.append(try ratio(Double(try s32()), try u32()))
                alternateOffsets.append(try ratio(Double(try s32()), try u32()))
            }
        }
        metadata.gainMapMin = mins
        metadata.gainMapMax = maxs
        metadata.gamma = gammas
        metadata.baseRenditionIsHDR = backward
        // Base and alternate are SDR and HDR, or HDR and SDR when the direction is backward.
        metadata.offsetSDR = backward ? alternateOffsets : baseOffsets
        metadata.offsetHDR = backward ? baseOffsets : alternateOffsets
        metadata.hdrCapacityMin = backward ? alternateHeadroom : baseHeadroom
        metadata.hdrCapacityMax = backward ? baseHeadroom : alternateHeadroom
        return metadata
    }

    /// The payload for `metadata`, each value as a fraction over 2^20 (libultrahdr's
    /// precision), for a thumbnail made from a source whose values came from XMP.
    static func encode(_ metadata: GainMapMetadata) -> [UInt8] {
        var out: [UInt8] = [0, 0, 0, 0]
        let channels = max(1, min(metadata.gainMapMin.count, metadata.gainMapMax.count, metadata.gamma.count,
                                  metadata.offsetSDR.count, metadata.offsetHDR.count))
        var flags: UInt8 = commonDenominator
        if channels == 3 { flags |= multiChannel }
        if metadata.useBaseColourSpace ?? true { flags |= useBaseColourSpace }
        if metadata.baseRenditionIsHDR { flags |= backwardDirection }
        out.append(flags)
        let denominator = 1 << 20
        func put(_ value: UInt32) {
            out += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        func fixed(_ value: Double) -> UInt32 {
            let scaled = (value * Double(denominator)).rounded()
            let clamped = max(Double(Int32.min), min(Double(Int32.max), scaled.isFinite ? scaled : 0))
            return UInt32(bitPattern: Int32(clamped))
        }
        let backward = metadata.baseRenditionIsHDR
        put(UInt32(denominator))
        put(fixed(backward ? metadata.hdrCapacityMax : metadata.hdrCapacityMin))
        put(fixed(backward ? metadata.hdrCapacityMin : metadata.hdrCapacityMax))
        func channel(_ values: [Double], _ c: Int) -> Double { values[channels == 1 ? 0 : min(c, values.count - 1)] }
        for c in 0 ..< (channels == 3 ? 3 : 1) {
            put(fixed(channel(metadata.gainMapMin, c)))
            put(fixed(channel(metadata.gainMapMax, c)))
            put(fixed(channel(metadata.gamma, c)))
            put(fixed(channel(backward ? metadata.offsetHDR : metadata.offsetSDR, c)))
            put(fixed(channel(backward ? metadata.offsetSDR : metadata.offsetHDR, c)))
        }
        return out
    }
}

/// The Ultra HDR XMP of a gain map image: `hdrgm:Version` and the values (Ultra HDR image
/// format v1, "Gain map metadata"), defaults where a property is absent.
enum UltraHDRXMP {
    static func metadata(_ packet: XMPPacket) -> GainMapMetadata? {
        let ns = GainMapSignature.hdrgmNamespace
        guard packet.prefix(of: ns) != nil, !packet.values("GainMapMax", in: ns).isEmpty else { return nil }
        var metadata = GainMapMetadata()
        metadata.version = packet.values("Version", in: ns).first
        func list(_ name: String, _ fallback: [Double]) -> [Double] {
            let numbers = packet.values(name, in: ns).compactMap(XMPPacket.number)
            return numbers.isEmpty ? fallback : numbers
        }
        metadata.gainMapMin = list("GainMapMin", [0])
        metadata.gainMapMax = list("GainMapMax", [1])
        metadata.gamma = list("Gamma", [1])
        metadata.offsetSDR = list("OffsetSDR", [1.0 / 64])
        metadata.offsetHDR = list("OffsetHDR", [1.0 / 64])
        metadata.hdrCapacityMin = packet.number("HDRCapacityMin", in: ns) ?? 0
        metadata.hdrCapacityMax = packet.number("HDRCapacityMax", in: ns) ?? metadata.gainMapMax.max() ?? 1
        metadata.baseRenditionIsHDR = packet.values("BaseRenditionIsHDR", in: ns).first.flatMap(XMPPacket.boolean) ?? false
        return metadata
    }

    /// The gain map's length from the primary's GContainer directory (the item whose
    /// `Item:Semantic` is "GainMap"), nil when there is none.
    static func containerGainMapLength(_ packet: XMPPacket) -> Int? {
        guard let itemPrefix = packet.prefix(of: GainMapSignature.itemNamespace),
              let containerPrefix = packet.prefix(of: GainMapSignature.containerNamespace) else { return nil }
        for item in packet.elements(Array("\(containerPrefix):Item".utf8)) {
            // The item fragment does not repeat the xmlns declarations: read with the
            // packet's prefixes.
            guard item.values(qualified: "\(itemPrefix):Semantic").first == "GainMap" else { continue }
            return item.values(qualified: "\(itemPrefix):Length").first.flatMap(XMPPacket.number).flatMap { Int(exactly: $0) }
        }
        return nil
    }

    /// The XMP of a thumbnail's primary image: the hdrgm version and a GContainer directory of
    /// the primary and the gain map of `gainMapLength` bytes (Ultra HDR image format v1).
    static func primaryPacket(gainMapLength: Int) -> [UInt8] {
        let text = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Pare">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:hdrgm="\(GainMapSignature.hdrgmNamespace)" xmlns:Container="\(GainMapSignature.containerNamespace)" xmlns:Item="\(GainMapSignature.itemNamespace)" hdrgm:Version="1.0">
           <Container:Directory>
            <rdf:Seq>
             <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>
             <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="\(gainMapLength)"/></rdf:li>
            </rdf:Seq>
           </Container:Directory>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """
        return Array(text.utf8)
    }

    /// The XMP of a thumbnail's gain map image: the values as `hdrgm` properties.
    static func gainMapPacket(_ metadata: GainMapMetadata) -> [UInt8] {
        func value(_ values: [Double]) -> String {
            values.count == 1 ? "\"\(format(values[0]))\"" : ""
        }
        var attributes = " hdrgm:Version=\"1.0\""
        var elements = ""
        for (name, values) in [("GainMapMin", metadata.gainMapMin), ("GainMapMax", metadata.gainMapMax),
                               ("Gamma", metadata.gamma), ("OffsetSDR", metadata.offsetSDR),
                               ("OffsetHDR", metadata.offsetHDR)] {
            if values.count == 1 {
                attributes += " hdrgm:\(name)=\(value(values))"
            } else {
                elements += "   <hdrgm:\(name)><rdf:Seq>" + values.map { "<rdf:li>\(format($0))</rdf:li>" }.joined()
                    + "</rdf:Seq></hdrgm:\(name)>\n"
            }
        }
        attributes += " hdrgm:HDRCapacityMin=\"\(format(metadata.hdrCapacityMin))\""
        attributes += " hdrgm:HDRCapacityMax=\"\(format(metadata.hdrCapacityMax))\""
        attributes += " hdrgm:BaseRenditionIsHDR=\"\(metadata.baseRenditionIsHDR ? "True" : "False")\""
        let text = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Pare">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:hdrgm="\(GainMapSignature.hdrgmNamespace)"\(attributes)>
        \(elements)  </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """
        return Array(text.utf8)
    }

    /// A decimal with up to six places, no exponent: what XMP readers parse everywhere.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let scaled = (abs(value) * 1_000_000).rounded()
        guard scaled < 1e15 else { return value < 0 ? "-1000000000" : "1000000000" }
        let micro = Int(scaled)
        var fraction = "\(micro % 1_000_000)"
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        let sign = value < 0 && micro != 0 ? "-" : ""
        return sign + "\(micro / 1_000_000)" + (fraction.isEmpty ? "" : "." + fraction)
    }
}

#if !hasFeature(Embedded)
extension EXIFReader {
    /// Finds the gain map among the MPF images of a JPEG whose segments `walk` found, and
    /// reads its metadata. The primary's XMP (Ultra HDR) or ISO 21496-1 block says the file
    /// has one; each MPF image's own XMP or ISO block says which image it is; Apple's
    /// auxiliary image is known by its XMP alone. Problems are warnings, never errors: a
    /// damaged gain map must not cost the photo.
    static func readGainMap<Source: ByteSource>(_ source: Source, primaryXMP: XMPPacket?, primaryISO: Bool,
                                                mpf: [MPFEntry], options: EXIFOptions,
                                                warnings: inout [EXIFError]) -> GainMapInfo? {
        let primaryUltraHDR = primaryXMP.map { $0.prefix(of: GainMapSignature.hdrgmNamespace) != nil
            && !$0.values("Version", in: GainMapSignature.hdrgmNamespace).isEmpty } ?? false

        // Candidates: every MPF image but the primary, in order; without MPF, the GContainer
        // directory's gain map, which ends the file.
        var candidates: [(index: Int?, offset: Int, length: Int, width: Int?, height: Int?)] = mpf
            .filter { $0.index > 0 && $0.offset > 0 && $0.length > 0 && $0.offset <= source.count
                && $0.length <= source.count - $0.offset }
            .map { ($0.index, $0.offset, $0.length, $0.width, $0.height) }
        if candidates.isEmpty, primaryUltraHDR, let xmp = primaryXMP,
           let length = UltraHDRXMP.containerGainMapLength(xmp), length > 0, length < source.count {
            let offset = source.count - length
            let size = JPEGSegmentLocator.frameSize(in: source, start: offset, end: source.count, options: options)
            candidates.append((nil, offset, length, size?.width, size?.height))
        }
        for candidate in candidates {
            guard let walk = try? JPEGSegmentLocator(source, start: candidate.offset,
                                                     end: candidate.offset + candidate.length, options: options)
            else { continue }
            var xmp: XMPPacket?
            if let segment = walk.xmp, let bytes = payload(segment, after: GainMapSignature.xmpIdentifier, in: source) {
                xmp = XMPPacket(bytes)
            }
            var iso: [UInt8]?
            if let segment = walk.iso21496 {
                iso = payload(segment, after: GainMapSignature.isoIdentifier, in: source)
            }
            let isApple = xmp.map {
                $0.values("AuxiliaryImageType", in: GainMapSignature.appleAuxNamespace).first
                    == GainMapSignature.appleGainMapType
            } ?? false
            let xmpMetadata = xmp.flatMap(UltraHDRXMP.metadata)
            var isoMetadata: GainMapMetadata?
            if let iso, let segment = walk.iso21496 {
                do {
                    isoMetadata = try ISOGainMapBlock.parse(iso, offset: segment.payloadOffset + GainMapSignature.isoIdentifier.count)
                } catch {
                    warnings.warn(error)
                }
            }
            let standard: GainMapStandard
            if primaryUltraHDR && xmpMetadata != nil {
                standard = .ultraHDR
            } else if isoMetadata != nil {
                standard = .iso21496
            } else if xmpMetadata != nil {
                standard = .ultraHDR
            } else if isApple {
                standard = .apple
            } else {
                continue
            }
            return GainMapInfo(standard: standard, mpfIndex: candidate.index, offset: candidate.offset,
                               length: candidate.length, width: candidate.width, height: candidate.height,
                               metadata: isoMetadata ?? xmpMetadata, hasXMPMetadata: xmpMetadata != nil,
                               hasISOMetadata: isoMetadata != nil, isoPayload: isoMetadata != nil ? iso : nil)
        }
        if primaryUltraHDR || primaryISO {
            warnings.warn(.badGainMap(offset: 0, reason: "the primary image announces a gain map that no MPF image holds"))
        }
        return nil
    }

    /// The bytes of `segment` after `identifier`, nil when they start otherwise or cannot be read.
    static func payload<Source: ByteSource>(_ segment: MarkerSegment, after identifier: [UInt8],
                                            in source: Source) -> [UInt8]? {
        guard segment.payloadLength >= identifier.count,
              let bytes = try? source.bytes(at: segment.payloadOffset, count: segment.payloadLength),
              bytes.starts(with: identifier) else { return nil }
        return Array(bytes.dropFirst(identifier.count))
    }
}
#endif
