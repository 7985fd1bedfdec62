import PareCore

/// Maker note signatures and the tags of their preview pairs (offset, length).
enum RawMakerNote {
    static let nikon: [UInt8] = Array("Nikon\0".utf8) + [2]
    static let olympus: [UInt8] = Array("OLYMPUS\0".utf8)
    static let omSystem: [UInt8] = Array("OM SYSTEM\0".utf8)
    static let olympusOld: [UInt8] = Array("OLYMP\0".utf8)
    static let epson: [UInt8] = Array("EPSON\0".utf8)
    static let pentaxAOC: [UInt8] = Array("AOC\0".utf8)
    static let pentax: [UInt8] = Array("PENTAX \0".utf8)

    static let nikonPreviewIFD: UInt16 = 0x0011
    static let olympusCameraSettings: UInt16 = 0x2020
    static let olympusPairs: [(start: UInt16, length: UInt16)] = [(0x0088, 0x0089), (0x1036, 0x1037)]
    static let olympusCameraSettingsPair: (start: UInt16, length: UInt16) = (0x0101, 0x0102)
    static let pentaxPair: (start: UInt16, length: UInt16) = (0x0004, 0x0003)
}

/// The previews that makers keep in their maker notes (Exif 2.32 §4.6.5, tag 0x927C, whose
/// layout each maker defines): Nikon's PreviewIFD, Olympus's PreviewImageStart/Length pairs,
/// Pentax's. Each maker note is an IFD after a signature, with its own rule for the base
/// its offsets count from; what is unreadable is skipped with a warning.
extension RawPreviewScan {
    mutating func readMakerNote(_ note: IFDEntry, block: TIFFBlock<Source>) {
        let start = note.valueOffset
        guard start >= 0, block.contains(UInt64(start), length: 16),
              let head = try? block.bytes(at: start, count: 16) else { return }
        do throws(EXIFError) {
            if head.starts(with: RawMakerNote.nikon) {
                // A TIFF header of its own 10 bytes in; offsets count from it.
                try readNikon(at: start + 10)
            } else if head.starts(with: RawMakerNote.olympus) {
                try readOlympus(base: start, orderAt: 8, ifdAt: 12)
            } else if head.starts(with: RawMakerNote.omSystem) {
                try readOlympus(base: start, orderAt: 12, ifdAt: 16)
            } else if head.starts(with: RawMakerNote.olympusOld) || head.starts(with: RawMakerNote.epson) {
                // Offsets count from the file's TIFF header.
                var reader = makerReader(block, order: nil, head: head, orderAt: 0)
                let ifd = try reader.readIFD(at: UInt64(start + 8), name: "MakerNotes")
                for pair in RawMakerNote.olympusPairs { addPair(ifd, pair, block: block) }
            } else if head.starts(with: RawMakerNote.pentaxAOC) {
                var reader = makerReader(block, order: nil, head: head, orderAt: 4)
                let ifd = try reader.readIFD(at: UInt64(start + 6), name: "MakerNotes")
                addPair(ifd, RawMakerNote.pentaxPair, block: block)
            } else if head.starts(with: RawMakerNote.pentax) {
                let own = TIFFBlock(source: source, start: start, count: source.count - start, absoluteBase: start)
                var reader = makerReader(own, order: nil, head: head, orderAt: 8)
                let ifd = try reader.readIFD(at: 10, name: "MakerNotes")
                addPair(ifd, RawMakerNote.pentaxPair, block: own)
            }
        } catch {
            warnings.append(error)
        }
    }

    /// A reader of `block` in the byte order written at `orderAt` in the maker note's
    /// head ("II" or "MM"), else the file's.
    func makerReader(_ block: TIFFBlock<Source>, order: ByteOrder?, head: [UInt8], orderAt: Int) -> IFDReader<Source> {
        var reader = IFDReader(block: block, options: options)
        reader.byteOrder = mainByteOrder
        if orderAt > 0, head.count >= orderAt + 2 {
            if head[orderAt] == 0x49 && head[orderAt + 1] == 0x49 { reader.byteOrder = .littleEndian }
            if head[orderAt] == 0x4D && head[orderAt + 1] == 0x4D { reader.byteOrder = .bigEndian }
        }
        return reader
    }

    /// Nikon type 3: its own TIFF header, IFD; tag 0x11 points to the PreviewIFD, whose
    /// JPEGInterchangeFormat pair is the preview.
    mutating func readNikon(at headerOffset: Int) throws(EXIFError) {
        let own = TIFFBlock(source: source, start: headerOffset, count: source.count - headerOffset,
                            absoluteBase: headerOffset)
        var reader = IFDReader(block: own, options: options)
        let main = try reader.readFirstIFD(name: "MakerNotes")
        look(in: main, block: own, maker: true)
        if let pointer = main.entry(RawMakerNote.nikonPreviewIFD)?.unsignedInteger() {
            let preview = try reader.readIFD(at: pointer, name: "PreviewIFD")
            look(in: preview, block: own, maker: true)
        }
    }

    /// Olympus (and OM System): an IFD after the signature and byte order, offsets from the
    /// maker note's start; the preview pair is in the main IFD (older cameras) or in the
    /// CameraSettings IFD (tag 0x2020).
    mutating func readOlympus(base: Int, orderAt: Int, ifdAt: Int) throws(EXIFError) {
        let own = TIFFBlock(source: source, start: base, count: source.count - base, absoluteBase: base)
        let head = try own.bytes(at: 0, count: ifdAt)
        var reader = makerReader(own, order: nil, head: head, orderAt: orderAt)
        let main = try reader.readIFD(at: UInt64(ifdAt), name: "MakerNotes")
        for pair in RawMakerNote.olympusPairs { addPair(main, pair, block: own) }
        if let pointer = main.entry(RawMakerNote.olympusCameraSettings)?.unsignedInteger() {
            let settings = try reader.readIFD(at: pointer, name: "CameraSettings")
            addPair(settings, RawMakerNote.olympusCameraSettingsPair, block: own)
        }
    }

    /// A maker's (start, length) tag pair, when both are there and the length is not 0.
    mutating func addPair(_ ifd: IFD, _ pair: (start: UInt16, length: UInt16), block: TIFFBlock<Source>) {
        guard let start = ifd.integer64(pair.start), let length = ifd.integer64(pair.length), length > 0 else { return }
        add(start: start, length: length, block: block, kind: .preview, ifd: ifd.name, tag: pair.start)
    }
}
