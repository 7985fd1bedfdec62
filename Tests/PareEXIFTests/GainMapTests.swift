import PareCore
@testable @_spi(Codec) import PareEXIF
import Testing
import TestSupport

/// Gain maps: the XMP reader, ISO 21496-1's binary block, the two fixtures libultrahdr made
/// (Fixtures/gainmap/make-gainmap-files.py --fixtures), and the container a thumbnail writes.
@Suite struct GainMapTests {
    static func metadata(_ name: String) throws -> JPEGMetadata {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/gainmap/\(name)"), "Fixtures/gainmap/\(name) is missing")
        return try EXIFReader.readJPEG(MemoryByteSource(bytes))
    }

    // MARK: XMP

    @Test func xmpAttributesElementsAndSequences() {
        let packet = XMPPacket(Array("""
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
         <rdf:Description xmlns:gm="http://ns.adobe.com/hdr-gain-map/1.0/" gm:Version="1.0" gm:GainMapMinimum="9"
             gm:GainMapMin = '-0.5' gm:Note="a &amp; b">
          <gm:GainMapMax><rdf:Seq><rdf:li>2.5</rdf:li><rdf:li> 3 </rdf:li><rdf:li>1e-1</rdf:li></rdf:Seq></gm:GainMapMax>
          <gm:Gamma>1.25</gm:Gamma>
          <gm:Empty/>
         </rdf:Description></rdf:RDF></x:xmpmeta>
        """.utf8))
        let ns = GainMapSignature.hdrgmNamespace
        #expect(packet.prefix(of: ns) == "gm")
        #expect(packet.values("Version", in: ns) == ["1.0"])
        // The longer name that starts the same is not taken for GainMapMin.
        #expect(packet.values("GainMapMin", in: ns) == ["-0.5"])
        #expect(packet.values("GainMapMax", in: ns) == ["2.5", "3", "1e-1"])
        #expect(packet.number("Gamma", in: ns) == 1.25)
        #expect(packet.values("Note", in: ns) == ["a & b"])
        #expect(packet.values("Empty", in: ns).isEmpty)
        #expect(packet.values("Missing", in: ns).isEmpty)
        #expect(packet.values("Version", in: "http://example.com/other/").isEmpty)
    }

    @Test func xmpNumbers() {
        #expect(XMPPacket.number("2.3") == 2.3)
        #expect(XMPPacket.number("-0.015625") == -0.015625)
        #expect(XMPPacket.number("+4") == 4)
        #expect(XMPPacket.number(" 1e-3 ") == 0.001)
        #expect(XMPPacket.number("5.") == 5)
        #expect(XMPPacket.number(".5") == 0.5)
        #expect(XMPPacket.number("1e999999") == .infinity)
        for bad in ["", "-", "1.2.3", "e5", "1e", "abc", "1,5", "0x10"] {
            #expect(XMPPacket.number(bad) == nil, "\(bad)")
        }
        #expect(XMPPacket.boolean("True") == true && XMPPacket.boolean("False") == false)
        #expect(XMPPacket.boolean("yes") == nil)
    }

    // MARK: ISO 21496-1

    /// Every field different, both encodings (common denominator and one per value).
    @Test func isoBlockRoundTrip() throws {
        var metadata = GainMapMetadata()
        metadata.gainMapMin = [0.25, -0.5, 0]
        metadata.gainMapMax = [3.5, 2, 4]
        metadata.gamma = [1, 0.5, 2]
        metadata.offsetSDR = [0.015625, 0, 0.5]
        metadata.offsetHDR = [0.03125, 0.25, 0]
        metadata.hdrCapacityMin = 0.125
        metadata.hdrCapacityMax = 3.75
        metadata.useBaseColourSpace = true
        let payload = ISOGainMapBlock.encode(metadata)
        #expect(payload.count == 4 + 1 + 12 + 3 * 20)
        var read = try #require(try ISOGainMapBlock.parse(payload, offset: 0))
        read.version = nil
        #expect(read == metadata)

        // Backward direction: base and alternate swap roles.
        metadata.baseRenditionIsHDR = true
        var backward = try #require(try ISOGainMapBlock.parse(ISOGainMapBlock.encode(metadata), offset: 0))
        backward.version = nil
        #expect(backward == metadata)
    }

    @Test func isoBlockVersionOnlyAndDamage() throws {
        // The primary's block: the two versions, no values.
        #expect(try ISOGainMapBlock.parse([0, 0, 0, 0], offset: 0) == nil)
        // A minimum version this reader does not know: not read, not an error.
        #expect(try ISOGainMapBlock.parse([0, 1, 0, 1, 0x40], offset: 0) == nil)
        var metadata = GainMapMetadata()
        metadata.gainMapMax = [2]
        let payload = ISOGainMapBlock.encode(metadata)
        #expect(throws: EXIFError.badGainMap(offset: 100 + 29, reason: "ISO 21496-1 metadata ends early")) {
            try ISOGainMapBlock.parse(Array(payload.dropLast(7)), offset: 100)
        }
        // One value per denominator, a denominator of 0.
        var perValue: [UInt8] = [0, 0, 0, 0, 0x00]
        perValue += [0, 0, 0, 1, 0, 0, 0, 0] // base headroom 1/0
        #expect(throws: EXIFError.badGainMap(offset: 9, reason: "ISO 21496-1 denominator 0")) {
            try ISOGainMapBlock.parse(perValue + [UInt8](repeating: 0, count: 48), offset: 0)
        }
    }

    // MARK: Files

    @Test func libultrahdrISOFile() throws {
        let metadata = try Self.metadata("synthetic-iso.jpg")
        let gainMap = try #require(metadata.gainMap)
        #expect(gainMap.standard == .iso21496)
        #expect(gainMap.hasISOMetadata && !gainMap.hasXMPMetadata)
        #expect(gainMap.mpfIndex == 1)
        #expect(gainMap.offset == metadata.mpf[1].offset && gainMap.length == metadata.mpf[1].length)
        #expect((gainMap.width, gainMap.height) == (48, 32))
        #expect(metadata.mpf[1].kind == .undefined && !metadata.mpf[1].kind.isLargeThumbnail)
        let values = try #require(gainMap.metadata)
        #expect(values.gainMapMin == [0] && values.gamma == [1])
        #expect(values.gainMapMax.count == 1 && values.gainMapMax[0] > 0.5 && values.gainMapMax[0] < 8)
        #expect(values.hdrCapacityMax == values.gainMapMax[0])
        #expect(!values.baseRenditionIsHDR)
        #expect(gainMap.isoPayload?.count == 61)
    }

    /// The same streams as Ultra HDR v1 writes them: XMP only, the same values to 6 places.
    @Test func ultraHDRXMPFile() throws {
        let iso = try #require(try Self.metadata("synthetic-iso.jpg").gainMap?.metadata)
        let metadata = try Self.metadata("synthetic-xmp.jpg")
        let gainMap = try #require(metadata.gainMap)
        #expect(gainMap.standard == .ultraHDR)
        #expect(gainMap.hasXMPMetadata && !gainMap.hasISOMetadata && gainMap.isoPayload == nil)
        let values = try #require(gainMap.metadata)
        #expect(values.version == "1.0")
        #expect(abs(values.gainMapMax[0] - iso.gainMapMax[0]) < 1e-6)
        #expect(abs(values.hdrCapacityMax - iso.hdrCapacityMax) < 1e-6)
        #expect(values.offsetSDR == iso.offsetSDR && values.offsetHDR == iso.offsetHDR)
        #expect(metadata.xmp?.values("Version", in: GainMapSignature.hdrgmNamespace) == ["1.0"])
    }

    /// Without an MPF index, Ultra HDR's GContainer directory locates the gain map at the end.
    @Test func containerDirectoryWithoutMPF() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/gainmap/synthetic-xmp.jpg"))
        let located = try EXIFReader.readJPEG(MemoryByteSource(bytes))
        let mpfAt = try #require(located.mpfSegmentOffset)
        let length = Int(bytes[mpfAt + 2]) << 8 | Int(bytes[mpfAt + 3])
        // The same file with its MPF segment cut out: the gain map still ends the file.
        let cut = Array(bytes[..<mpfAt]) + Array(bytes[(mpfAt + 2 + length)...])
        let metadata = try EXIFReader.readJPEG(MemoryByteSource(cut))
        #expect(metadata.mpf.isEmpty)
        let gainMap = try #require(metadata.gainMap)
        #expect(gainMap.mpfIndex == nil && gainMap.standard == .ultraHDR)
        #expect(gainMap.offset == cut.count - gainMap.length)
        #expect(gainMap.length == located.gainMap?.length)
    }

    @Test func announcedButAbsent() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/gainmap/synthetic-iso.jpg"))
        let metadata = try EXIFReader.readJPEG(MemoryByteSource(bytes))
        // Cut the file before the gain map: the primary still announces one.
        let cut = Array(bytes[..<metadata.mpf[1].offset])
        let read = try EXIFReader.readJPEG(MemoryByteSource(cut))
        #expect(read.gainMap == nil)
        #expect(read.warnings.contains {
            if case .badGainMap = $0 { return true } else { return false }
        })
    }

    /// What a thumbnail writes reads back as what it was given: the ISO block copied when
    /// there is one (the libultrahdr file's streams), XMP alone otherwise (the Ultra HDR one's).
    @Test(arguments: ["synthetic-iso.jpg", "synthetic-xmp.jpg"])
    func containerRoundTrip(_ name: String) throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/gainmap/\(name)"))
        let metadata = try EXIFReader.readJPEG(MemoryByteSource(bytes))
        let source = try #require(metadata.gainMap)
        let values0 = try #require(source.metadata)
        // The file's own two streams (their old MPF and XMP segments stay inside them: the
        // reader takes the first of each, which the container puts first).
        let primary = Array(bytes[0 ..< source.offset])
        let map = Array(bytes[source.offset ..< source.offset + source.length])
        let joined = try #require(GainMapContainer.assemble(primary: primary, gainMap: map, metadata: values0,
                                                            isoPayload: source.isoPayload))
        let read = try EXIFReader.readJPEG(MemoryByteSource(joined))
        #expect(read.warnings.isEmpty)
        #expect(read.mpf.count == 2)
        #expect(read.mpf[0].kind == .baselinePrimary && read.mpf[0].flags.representative)
        #expect(read.mpf[1].kind == .undefined)
        let gainMap = try #require(read.gainMap)
        #expect(gainMap.offset + gainMap.length == joined.count)
        #expect(read.mpf[0].length == gainMap.offset)
        #expect(gainMap.standard == .ultraHDR && gainMap.hasXMPMetadata)
        #expect(gainMap.hasISOMetadata == (source.isoPayload != nil))
        #expect(gainMap.isoPayload == source.isoPayload)
        let values = try #require(gainMap.metadata)
        #expect(abs(values.gainMapMax[0] - values0.gainMapMax[0]) < 1e-6)
        #expect(abs(values.hdrCapacityMax - values0.hdrCapacityMax) < 1e-6)
        #expect(UltraHDRXMP.containerGainMapLength(try #require(read.xmp)) == gainMap.length)
    }

    /// Apple's HDR gain map: an MPF image whose own XMP names the auxiliary type. Made here
    /// from the sample photo (no gain-map writer here writes Apple's form).
    @Test func appleAuxiliaryImage() throws {
        let primary = try #require(FileSystem.read(Corpus.fixtures + "/sample.jpg"))
        let packet = Array("""
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description xmlns:apdi="http://ns.apple.com/pixeldatainfo/1.0/" xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/"
         apdi:AuxiliaryImageType="urn:com:apple:photo:2020:aux:hdrgainmap" HDRGainMap:HDRGainMapVersion="65536"/>
        </rdf:RDF></x:xmpmeta>
        """.utf8)
        let aux = GainMapContainer.inserting(GainMapContainer.segment(0xE1, GainMapSignature.xmpIdentifier + packet),
                                             into: primary)
        let at = GainMapContainer.insertionPoint(primary)
        let primaryLength = primary.count + GainMapContainer.mpfSegmentLength
        let mpf = GainMapContainer.segment(0xE2, GainMapContainer.mpfPayload(
            primaryLength: primaryLength, secondaryLength: aux.count, secondaryOffset: primaryLength - (at + 8)))
        let file = Array(primary[..<at]) + mpf + Array(primary[at...]) + aux
        let metadata = try EXIFReader.readJPEG(MemoryByteSource(file))
        let gainMap = try #require(metadata.gainMap)
        #expect(gainMap.standard == .apple)
        #expect(gainMap.metadata == nil && !gainMap.hasXMPMetadata && !gainMap.hasISOMetadata)
        #expect(gainMap.offset == primaryLength && gainMap.length == aux.count)
        #expect(metadata.warnings.isEmpty)
    }
}
