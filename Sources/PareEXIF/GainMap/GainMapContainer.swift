/// Writes an HDR JPEG from two encoded JPEG streams, a primary (SDR) picture and its gain map,
/// as Ultra HDR v1 lays them out and ISO 21496-1 reads them:
///
///     primary:  SOI [APP0 JFIF] APP1 XMP (hdrgm:Version, GContainer directory)
///               [APP2 ISO 21496-1 version] APP2 MPF  … the rest of the primary … EOI
///     gain map: SOI [APP0 JFIF] APP1 XMP (hdrgm values) [APP2 ISO 21496-1 metadata] … EOI
///
/// The gain map follows the primary's EOI; the MPF index (CIPA DC-007 §5.2) lists both, the
/// gain map as type "undefined" (0x000000) so that no reader takes it for a preview, its
/// offset counted from the MPF header as §5.2.3.3.3 says. The ISO blocks are written when the
/// source had them (their payload copied as it was); the XMP always, since every gain-map
/// reader and ExifTool read it.
@_spi(Codec) public enum GainMapContainer {
    /// The joined file, or nil when either stream does not start with SOI.
    public static func assemble(primary: [UInt8], gainMap: [UInt8], metadata: GainMapMetadata,
                                isoPayload: [UInt8]?) -> [UInt8]? {
        guard primary.starts(with: [0xFF, 0xD8]), gainMap.starts(with: [0xFF, 0xD8]) else { return nil }
        var gainMapSegments = segment(0xE1, GainMapSignature.xmpIdentifier + UltraHDRXMP.gainMapPacket(metadata))
        if let isoPayload { gainMapSegments += segment(0xE2, GainMapSignature.isoIdentifier + isoPayload) }
        let secondary = inserting(gainMapSegments, into: gainMap)

        var head = segment(0xE1, GainMapSignature.xmpIdentifier + UltraHDRXMP.primaryPacket(gainMapLength: secondary.count))
        // ISO 21496-1's primary block: minimum and writer version, both 0.
        if isoPayload != nil { head += segment(0xE2, GainMapSignature.isoIdentifier + [0, 0, 0, 0]) }
        let at = insertionPoint(primary)
        // The MPF segment's size does not depend on the values in it: place it, then fill it.
        let mpfStart = at + head.count
        let primaryLength = primary.count + head.count + mpfSegmentLength
        // The MP header (the TIFF header the offsets count from) follows the marker, the
        // length and "MPF\0".
        let mpfHeader = mpfStart + 4 + 4
        let mpf = segment(0xE2, mpfPayload(primaryLength: primaryLength, secondaryLength: secondary.count,
                                           secondaryOffset: primaryLength - mpfHeader))
        return Array(primary[..<at]) + head + mpf + Array(primary[at...]) + secondary
    }

    /// Where new APPn segments go: after SOI, and after a JFIF APP0 that follows it (JFIF
    /// 1.02 wants its APP0 first).
    static func insertionPoint(_ stream: [UInt8]) -> Int {
        guard stream.count >= 6, stream[2] == 0xFF, stream[3] == 0xE0 else { return 2 }
        let length = Int(stream[4]) << 8 | Int(stream[5])
        return min(stream.count, 4 + length)
    }

    static func inserting(_ segments: [UInt8], into stream: [UInt8]) -> [UInt8] {
        let at = insertionPoint(stream)
        return Array(stream[..<at]) + segments + Array(stream[at...])
    }

    /// A marker segment: FF, the marker, the big-endian length (itself included), the payload.
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// The MP header, an MP Index IFD of three entries (MPFVersion, NumberOfImages, MPEntry)
    /// and the two 16-byte MP entries, big-endian (CIPA DC-007 §5.2.2–5.2.3).
    static let mpfIndexEntries = 3
    static let mpEntrySize = 16
    static let mpfPayloadLength = 4 + 8 + 2 + mpfIndexEntries * 12 + 4 + 2 * mpEntrySize
    static let mpfSegmentLength = 4 + mpfPayloadLength

    static func mpfPayload(primaryLength: Int, secondaryLength: Int, secondaryOffset: Int) -> [UInt8] {
        var out = Array("MPF".utf8) + [0]
        func u16(_ v: Int) { out += [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) { out += [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        out += [0x4D, 0x4D, 0x00, 0x2A]
        u32(8)                              // the IFD follows the header
        u16(mpfIndexEntries)
        u16(0xB000); u16(7); u32(4); out += Array("0100".utf8)      // MPFVersion, UNDEFINED
        u16(0xB001); u16(4); u32(1); u32(2)                           // NumberOfImages, LONG
        let entriesOffset = 8 + 2 + mpfIndexEntries * 12 + 4
        u16(0xB002); u16(7); u32(2 * mpEntrySize); u32(entriesOffset) // MPEntry, UNDEFINED
        u32(0)                              // no next IFD
        // Entry 1: representative image (flag bit 29), baseline MP primary (0x030000), at 0.
        u32(0x2003_0000); u32(primaryLength); u32(0); u16(0); u16(0)
        // Entry 2: type undefined, after the primary.
        u32(0); u32(secondaryLength); u32(secondaryOffset); u16(0); u16(0)
        return out
    }
}
