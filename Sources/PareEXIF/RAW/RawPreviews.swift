import PareCore

/// The TIFF-based RAW formats whose previews `EXIFReader.readRawPreviews` finds, told apart
/// by the header's magic number, IFD0's Make and DNGVersion, and CR2's header extension.
public enum RawFormat: Sendable, Equatable {
    /// A TIFF that is none of the others.
    case tiff
    /// Adobe DNG (IFD0 has DNGVersion, 0xC612).
    case dng
    /// Nikon NEF / NRW.
    case nef
    /// Sony ARW / SR2.
    case arw
    /// Canon CR2 ("CR" after the TIFF header).
    case cr2
    /// Pentax PEF.
    case pef
    /// Samsung SRW.
    case srw
    /// Olympus ORF: magic "RO" or "RS" ("IIRO", "IIRS", "MMOR") instead of 42.
    case orf
    /// Panasonic RW2 / Leica RWL: magic 0x55 ("IIU\0").
    case rw2

    /// The header magic numbers, besides TIFF's 42, of RAW files laid out as classic TIFF.
    static let classicMagics: [UInt64] = [RawMagic.olympusRO, RawMagic.olympusRS, RawMagic.panasonic]
}

/// Magic numbers as the header's byte order reads them (TIFF 6.0 §2 has 42).
enum RawMagic {
    static let olympusRO: UInt64 = 0x4F52
    static let olympusRS: UInt64 = 0x5352
    static let panasonic: UInt64 = 0x55
}

/// What exiftool calls a preview, by where it lies (its -PreviewImage, -JpgFromRaw,
/// -OtherImage and -ThumbnailImage tags).
public enum RawPreviewKind: Sendable, Equatable {
    case thumbnail
    case preview
    case jpgFromRaw
    case other
}

/// One JPEG preview inside a RAW file.
public struct RawPreview: Sendable, Equatable {
    /// The absolute offset of its SOI marker, and its length in bytes.
    public var offset: Int
    public var length: Int
    /// From the JPEG's SOFn (ITU-T T.81 §B.2.2); nil when it has no readable frame header.
    public var width: Int?
    public var height: Int?
    public var kind: RawPreviewKind
    /// The IFD it was found in: "IFD0", "IFD1", "SubIFD", "SubIFD1", "PreviewIFD",
    /// "MakerNotes", "CameraSettings".
    public var ifd: MessageText
    /// The tag that gave its offset: 0x0201 (JPEGInterchangeFormat), 0x0111 (StripOffsets),
    /// 0x002E (RW2's JpgFromRaw), or the maker's own.
    public var tag: UInt16

    /// Its bytes, read from `source`.
    public func bytes<Source: ByteSource>(from source: Source) throws(EXIFError) -> [UInt8] {
        do {
            return try source.bytes(at: offset, count: length)
        } catch {
            throw .core(error)
        }
    }
}

/// The JPEG previews of a RAW file and what a thumbnailer needs besides: IFD0's orientation.
public struct RawPreviews: Sendable {
    public var format: RawFormat
    /// Every JPEG preview found, each once, in the order found.
    public var previews: [RawPreview]
    /// IFD0's Orientation (TIFF 6.0 tag 0x0112), 1…8 when present.
    public var rawOrientation: Int?
    /// Unreadable IFDs, previews outside the file or not JPEG: skipped, not thrown.
    public var warnings: [EXIFError]

    /// IFD0's orientation (top-left when absent or out of range).
    public var orientation: Orientation { Orientation(exifValue: rawOrientation ?? 1) }

    /// The preview with the most pixels (the longest when none has a size).
    public var largest: RawPreview? {
        previews.max { a, b in
            let pa = (a.width ?? 0) * (a.height ?? 0), pb = (b.width ?? 0) * (b.height ?? 0)
            return pa != pb ? pa < pb : a.length < b.length
        }
    }
}

extension EXIFReader {
    /// The JPEG previews of a TIFF-based RAW file (DNG, NEF, ARW, CR2, PEF, SRW, ORF, RW2)
    /// read through `source`: the JPEGInterchangeFormat/Length pairs (TIFF Technical Note 2)
    /// and single-strip JPEG images (Compression 6, 7 or 34892, TIFF 6.0 §22 and DNG 1.7
    /// §6) of IFD0, the IFDs chained after it and its SubIFDs (tag 330, TIFF-PM6 §1),
    /// RW2's JpgFromRaw tag (0x002E), and the preview tags of the Nikon (PreviewIFD),
    /// Olympus (CameraSettings) and Pentax maker notes: the places exiftool names
    /// PreviewImage, JpgFromRaw, OtherImage and ThumbnailImage. A candidate is kept when
    /// it lies inside the file, starts with SOI and is not lossless JPEG (SOF3: raw data).
    /// Throws only when the header or IFD0 cannot be read.
    public static func readRawPreviews<Source: ByteSource>(_ source: Source,
                                                           options: EXIFOptions = .init()) throws(EXIFError) -> RawPreviews {
        var scan = RawPreviewScan(source: source, options: options)
        return try scan.run()
    }
}

/// One scan of a RAW file's IFDs for previews.
struct RawPreviewScan<Source: ByteSource> {
    let source: Source
    let options: EXIFOptions
    var format = RawFormat.tiff
    /// The file header's byte order, for maker notes that do not give theirs.
    var mainByteOrder = ByteOrder.bigEndian
    var previews: [RawPreview] = []
    var warnings: [EXIFError] = []

    /// TIFF 6.0 §22 old-style JPEG, TIFF-TN2 JPEG, DNG's lossy JPEG.
    static var jpegCompressions: [Int64] { [6, 7, 34892] }

    mutating func run() throws(EXIFError) -> RawPreviews {
        let block = TIFFBlock(source: source, start: 0, count: source.count, absoluteBase: 0)
        var reader = IFDReader(block: block, options: options)
        reader.acceptsRawMagic = true
        let ifd0 = try reader.readFirstIFD(name: "IFD0")
        mainByteOrder = reader.byteOrder
        let header = try block.bytes(at: 0, count: min(10, block.count))
        format = Self.format(header: header, byteOrder: reader.byteOrder, ifd0: ifd0)

        var chain = [ifd0]
        var next = ifd0.nextIFD
        while next != 0 {
            do {
                let ifd = try reader.readIFD(at: next, name: "IFD\(chain.count)")
                chain.append(ifd)
                next = ifd.nextIFD
            } catch {
                warnings.append(error)
                break
            }
        }
        for ifd in chain {
            look(in: ifd, block: block, maker: false)
            if ifd.offset == ifd0.offset, let entry = ifd.entry(TIFFTag.panasonicJpgFromRaw), entry.valueCount > 0 {
                add(start: Int64(entry.valueOffset), length: Int64(entry.valueCount), block: block,
                    kind: .jpgFromRaw, ifd: ifd.name, tag: TIFFTag.panasonicJpgFromRaw)
            }
            readSubIFDs(of: ifd, reader: &reader, block: block)
        }
        if let pointer = ifd0.entry(TIFFTag.exifIFD)?.unsignedInteger() {
            do {
                let exif = try reader.readIFD(at: pointer, name: "ExifIFD")
                readSubIFDs(of: exif, reader: &reader, block: block)
                if let note = exif.entry(TIFFTag.makerNote) { readMakerNote(note, block: block) }
            } catch {
                warnings.append(error)
            }
        }
        warnings += reader.warnings.filter { !Self.isExpectedLargeValue($0) }
        return RawPreviews(format: format, previews: previews,
                           rawOrientation: ifd0.integer(TIFFTag.orientation), warnings: warnings)
    }

    /// A RAW file's large blobs (the maker note, RW2's JpgFromRaw) are read by offset, so
    /// the IFD reader's note that it did not copy them is no news.
    static func isExpectedLargeValue(_ warning: EXIFError) -> Bool {
        if case let .valueTooLarge(_, tag, _, _) = warning {
            return tag == TIFFTag.makerNote || tag == TIFFTag.panasonicJpgFromRaw
        }
        return false
    }

    static func format(header: [UInt8], byteOrder: ByteOrder, ifd0: IFD) -> RawFormat {
        let magic = header.count >= 4 ? byteOrder.unsigned(header, at: 2, size: 2) : 42
        if magic == RawMagic.olympusRO || magic == RawMagic.olympusRS { return .orf }
        if magic == RawMagic.panasonic { return .rw2 }
        if ifd0.entry(TIFFTag.dngVersion) != nil { return .dng }
        // Canon's header extension: "CR", version 2.
        if header.count >= 10, header[8] == 0x43, header[9] == 0x52 { return .cr2 }
        let make = Array((ifd0.entry(TIFFTag.make)?.value ?? []).prefix(8)).map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 32 : $0 }
        if make.starts(with: Array("NIKON".utf8)) { return .nef }
        if make.starts(with: Array("SONY".utf8)) { return .arw }
        if make.starts(with: Array("PENTAX".utf8)) || make.starts(with: Array("RICOH".utf8)) { return .pef }
        if make.starts(with: Array("SAMSUNG".utf8)) { return .srw }
        if make.starts(with: Array("OLYMPUS".utf8)) || make.starts(with: Array("OM DIGIT".utf8)) { return .orf }
        return .tiff
    }

    /// SubIFDs (tag 330), named as exiftool names them: SubIFD, SubIFD1, SubIFD2…
    mutating func readSubIFDs(of parent: IFD, reader: inout IFDReader<Source>, block: TIFFBlock<Source>) {
        guard let entry = parent.entry(TIFFTag.subIFDs) else { return }
        // A damaged count could be in the billions: no more pointers than IFDs may be read.
        for index in 0 ..< min(entry.valueCount, options.maxIFDs) {
            guard let pointer = entry.unsignedInteger(at: index), pointer != 0 else { continue }
            let name: MessageText = index == 0 ? "SubIFD" : "SubIFD\(index)"
            do {
                let ifd = try reader.readIFD(at: pointer, name: name)
                look(in: ifd, block: block, maker: false)
            } catch {
                warnings.append(error)
                return
            }
        }
    }

    /// The JPEGInterchangeFormat pair and a single-strip JPEG of one IFD.
    mutating func look(in ifd: IFD, block: TIFFBlock<Source>, maker: Bool) {
        if let start = ifd.integer64(TIFFTag.jpegInterchangeFormat),
           let length = ifd.integer64(TIFFTag.jpegInterchangeFormatLength), length > 0 {
            add(start: start, length: length, block: block, kind: maker ? .preview : pointerKind(ifd),
                ifd: ifd.name, tag: TIFFTag.jpegInterchangeFormat)
        }
        if let compression = ifd.integer64(TIFFTag.compression), Self.jpegCompressions.contains(compression),
           let offsets = ifd.entry(TIFFTag.stripOffsets), let counts = ifd.entry(TIFFTag.stripByteCounts),
           offsets.valueCount == 1, counts.valueCount == 1,
           let start = offsets.integer(at: 0), let length = counts.integer(at: 0), length > 0 {
            add(start: start, length: length, block: block, kind: stripKind(ifd, compression: compression),
                ifd: ifd.name, tag: TIFFTag.stripOffsets)
        }
    }

    /// exiftool's names for a JPEGInterchangeFormat pair by its IFD.
    func pointerKind(_ ifd: IFD) -> RawPreviewKind {
        if ifd.isNamed("IFD1") { return .thumbnail }
        if ifd.isNamed("IFD0") { return format == .arw ? .preview : format == .cr2 ? .thumbnail : .other }
        if ifd.isNamed("SubIFD") || ifd.isNamed("IFD2") { return .jpgFromRaw }
        return .other
    }

    /// exiftool's names for a JPEG strip by its IFD: CR2's IFD0 and DNG's second SubIFD hold
    /// the preview, DNG's third the full-size JPEG.
    func stripKind(_ ifd: IFD, compression: Int64) -> RawPreviewKind {
        if compression == 34892 { return .other }
        if format == .dng {
            if ifd.isNamed("SubIFD2") { return .jpgFromRaw }
            return ifd.isNamed("SubIFD1") ? .preview : .other
        }
        if ifd.isNamed("IFD1") { return .thumbnail }
        return .preview
    }

    /// Keeps `start..<start+length` of `block` (header-relative) when it is a JPEG that is
    /// not lossless, once.
    mutating func add(start: Int64, length: Int64, block: TIFFBlock<Source>, kind: RawPreviewKind,
                      ifd: MessageText, tag: UInt16) {
        guard start >= 0, length > 0, block.contains(UInt64(start), length: UInt64(length)) else {
            warnings.append(.valueOutOfBounds(ifd: ifd, tag: tag, offset: block.absolute(pointer: UInt64(clamping: start))))
            return
        }
        let offset = block.absolute(Int(start)), count = Int(length)
        if previews.contains(where: { $0.offset == offset && $0.length == count }) { return }
        let from = block.start + Int(start)
        guard let walk = try? JPEGSegmentLocator(source, start: from, end: from + count, options: options,
                                                 stopAtFrame: true) else {
            warnings.append(.notJPEG(offset: offset))
            return
        }
        // T.81 Table B.1: SOF3, 7, 11 and 15 are lossless, the coding of raw sensor data.
        if let marker = walk.frameMarker, marker & 3 == 3 { return }
        previews.append(RawPreview(offset: offset, length: count, width: walk.frameWidth, height: walk.frameHeight,
                                   kind: kind, ifd: ifd, tag: tag))
    }
}
