@_spi(Codec) import PareCore

/// What a JPEG file's metadata segments hold: the Exif APP1, the MPF APP2 index, where the
/// ICC profile's APP2 chunks are, a JFXX thumbnail, and the primary frame's size, found in one walk from SOI to SOS.
public struct JPEGMetadata: Sendable {
    /// The Exif metadata, or nil when there is no APP1 "Exif\0\0" or its TIFF header is
    /// unreadable (the error is then in `warnings`).
    public var exif: EXIFMetadata?
    /// The MP entries (CIPA DC-007), empty without an MPF segment.
    public var mpf: [MPFEntry]
    /// The MP Index IFD itself, for tools that show it.
    public var mpfIndex: IFD?
    /// The absolute offset of the APP1 marker that holds the Exif data.
    public var exifSegmentOffset: Int?
    /// The absolute offset of the APP2 marker that holds the MPF index.
    public var mpfSegmentOffset: Int?
    /// The APP2 "ICC_PROFILE" segments in file order: where each payload starts (just after
    /// the length field) and its length, for PareICC's `ICCChunkAssembler`.
    public var iccChunks: [(offset: Int, length: Int)] = []
    /// A JPEG thumbnail in a JFIF extension (APP0 "JFXX", code 0x10).
    public var jfxxThumbnail: EmbeddedImage?
    /// The primary image's size from its SOF.
    public var width: Int?
    public var height: Int?
    /// Problems met outside the Exif block (stray bytes, truncated segments, MPF).
    public var warnings: [EXIFError]
    /// The APP2 segment that holds the MPF index, for `EXIFReader.readMPF`.
    var mpfSegment: MarkerSegment? = nil
    #if !hasFeature(Embedded)
    /// The gain map among the MPF images (Ultra HDR, ISO 21496-1 or Apple's), nil when there
    /// is none. Never a preview: see `MPFImageKind.isLargeThumbnail`. (Not read under Embedded
    /// Swift, like the MPF index.)
    public var gainMap: GainMapInfo?
    /// The primary image's XMP packet (APP1), when it has one.
    public var xmp: XMPPacket?
    #endif
}

/// Entry points: a TIFF block in memory, a JPEG file, or a plain TIFF file (TIFF 6.0 §2;
/// Exif 2.32 §4.5–4.6; CIPA DC-007 §5).
public enum EXIFReader {
    /// Reads a TIFF block (the APP1 payload after "Exif\0\0", a PNG eXIf chunk, ...).
    /// `baseOffset` is the absolute file offset of its header, so reported offsets are
    /// absolute.
    public static func readTIFF(_ bytes: [UInt8], baseOffset: Int,
                                options: EXIFOptions = .init()) throws(EXIFError) -> EXIFMetadata {
        try read(TIFFBlock(source: MemoryByteSource(bytes), start: 0, count: bytes.count, absoluteBase: baseOffset),
                 options: options)
    }

    /// Reads a plain TIFF or BigTIFF file through `source`, IFD by IFD, without loading the file.
    public static func readTIFFFile<Source: ByteSource>(_ source: Source,
                                                        options: EXIFOptions = .init()) throws(EXIFError) -> EXIFMetadata {
        try read(TIFFBlock(source: source, start: 0, count: source.count, absoluteBase: 0), options: options)
    }

    /// Reads a JPEG's metadata segments (up to SOS) and the SOF of each embedded image
    /// through `source`. Throws only when the input is not a JPEG; broken metadata leaves
    /// `exif` nil or partial, with warnings.
    public static func readJPEG<Source: ByteSource>(_ source: Source,
                                                    options: EXIFOptions = .init()) throws(EXIFError) -> JPEGMetadata {
        let walk = try JPEGSegmentLocator(source, start: 0, end: source.count, options: options)
        var warnings = walk.warnings
        var exif: EXIFMetadata?
        if let segment = walk.exif {
            // The TIFF block is read where it lies, IFD by IFD, as a TIFF file is: an APP1
            // segment holds up to 64 KiB (a thumbnail, maker notes) that need not be copied.
            do throws(EXIFError) {
                try checkPayload(segment, in: source)
                let start = segment.payloadOffset + 6
                exif = try read(TIFFBlock(source: source, start: start, count: segment.payloadLength - 6,
                                          absoluteBase: start), options: options)
            } catch {
                warnings.warn(error)
            }
        }
        var jfxxThumbnail: EmbeddedImage?
        if let segment = walk.jfxx {
            let start = segment.payloadOffset + 6, length = segment.payloadLength - 6
            if length > 0 {
                let size = JPEGSegmentLocator.frameSize(in: source, start: start, end: start + length, options: options)
                jfxxThumbnail = EmbeddedImage(offset: start, length: length, width: size?.width, height: size?.height)
            }
        }
        // Made once, at the end: filled in place, the whole struct was copied out.
        var result = JPEGMetadata(exif: exif, mpf: [], mpfIndex: nil, exifSegmentOffset: walk.exif?.marker.offset,
                                  mpfSegmentOffset: walk.mpf?.marker.offset,
                                  iccChunks: walk.iccChunks,
                                  jfxxThumbnail: jfxxThumbnail, width: walk.frameWidth, height: walk.frameHeight,
                                  warnings: warnings, mpfSegment: walk.mpf)
        #if !hasFeature(Embedded)
        if let segment = walk.xmp, let bytes = payload(segment, after: GainMapSignature.xmpIdentifier, in: source) {
            result.xmp = XMPPacket(bytes)
        }
        readMPF(source, into: &result, options: options)
        result.gainMap = readGainMap(source, primaryXMP: result.xmp, primaryISO: walk.iso21496 != nil,
                                     mpf: result.mpf, options: options, warnings: &result.warnings)
        #endif
        return result
    }

    /// Reads the MPF index (CIPA DC-007 §5.2) of the file that `metadata` came from into its
    /// `mpf` and `mpfIndex`, and what is wrong with it into its `warnings`. `readJPEG` calls it,
    /// except under Embedded Swift, where a program that does not call it links no MPF code.
    public static func readMPF<Source: ByteSource>(_ source: Source, into metadata: inout JPEGMetadata,
                                                   options: EXIFOptions = .init()) {
        guard let segment = metadata.mpfSegment else { return }
        // Read where it lies too, after "MPF\0", through the same reader as the Exif block.
        do throws(EXIFError) {
            try checkPayload(segment, in: source)
            var primary: (width: Int, height: Int)?
            if let width = metadata.width, let height = metadata.height { primary = (width, height) }
            let header = segment.payloadOffset + 4
            let block = TIFFBlock(source: source, start: header, count: segment.payloadLength - 4,
                                  absoluteBase: header)
            (metadata.mpfIndex, metadata.mpf) = MPFIndex.read(block, in: source, fileStart: 0, primarySize: primary,
                                                              options: options, warnings: &metadata.warnings)
        } catch {
            metadata.warnings.warn(error)
        }
    }

    /// Throws when `segment`'s payload runs past the end of `source` (a truncated file).
    private static func checkPayload<Source: ByteSource>(_ segment: MarkerSegment,
                                                         in source: Source) throws(EXIFError) {
        guard segment.payloadLength <= source.count - segment.payloadOffset else {
            throw .core(.outOfBounds(offset: segment.payloadOffset, needed: segment.payloadLength,
                                     available: max(0, source.count - segment.payloadOffset)))
        }
    }

    /// The header, IFD0 (whose failure is the only fatal one after the header), the Exif,
    /// GPS and Interop sub-IFDs, then the IFD1… chain; later failures become warnings.
    static func read<Source: ByteSource>(_ block: TIFFBlock<Source>,
                                         options: EXIFOptions) throws(EXIFError) -> EXIFMetadata {
        var reader = IFDReader(block: block, options: options)
        let ifd0 = try reader.readFirstIFD(name: "IFD0")
        var ifds = [ifd0]
        // Out of line: inlined at each of its three calls, it was three copies of the same code.
        // True when the IFD was read (it is then the last of `ifds`).
        @inline(never) func follow(_ parent: IFD, _ tag: UInt16, _ name: MessageText, _ names: TagNames.Table) -> Bool {
            guard let pointer = parent.entry(tag) else { return false }
            guard pointer.fieldType?.isPointer == true, let value = pointer.unsignedInteger() else {
                reader.warn(.wrongPointerType(ifd: parent.name, tag: tag, offset: pointer.valueOffset, type: pointer.type))
                return false
            }
            do {
                ifds.append(try reader.readIFD(at: value, name: name, names: names))
                return true
            } catch {
                reader.warn(error)
                return false
            }
        }
        var exifIndex: Int?
        if follow(ifd0, 0x8769, "ExifIFD", .main) {
            exifIndex = ifds.count - 1
            _ = follow(ifds[ifds.count - 1], 0xA005, "InteropIFD", .interop)
        }
        _ = follow(ifd0, 0x8825, "GPS", .gps)
        var ifd1Index: Int?
        var next = ifd0.nextIFD
        var number = 1
        while next != 0 {
            do {
                let ifd = try reader.readIFD(at: next, name: "IFD\(number)")
                if number == 1 { ifd1Index = ifds.count }
                ifds.append(ifd)
                next = ifd.nextIFD
                number += 1
            } catch {
                reader.warn(error)
                break
            }
        }
        return EXIFMetadata(ifds: ifds, exifIndex: exifIndex, ifd1Index: ifd1Index, block: block,
                            byteOrder: reader.byteOrder, options: options, warnings: reader.warnings)
    }
}
