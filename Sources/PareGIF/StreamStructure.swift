@_spi(Codec) import PareCore

/// Where a frame lies on the logical screen and where its image data starts (GIF89a §20).
struct FrameDescriptor {
    /// The offset of the image separator 0x2C.
    var offset: Int
    var left: Int, top: Int, width: Int, height: Int
    var interlaced: Bool
    /// The local colour table's RGB triples (§21), when there is one.
    var localPalette: [UInt8]?
    /// The offset of the LZW minimum code size byte (§22).
    var dataOffset: Int
}

/// The block labels of GIF89a Appendix B's grammar.
enum BlockLabel {
    static let extensionIntroducer: UInt8 = 0x21
    static let imageSeparator: UInt8 = 0x2C
    static let trailer: UInt8 = 0x3B
    static let graphicControl: UInt8 = 0xF9
    static let comment: UInt8 = 0xFE
    static let plainText: UInt8 = 0x01
    static let application: UInt8 = 0xFF
}

/// Application identifiers and authentication codes (§26) this decoder reads.
enum ApplicationIdentifier {
    static let netscape: [UInt8] = Array("NETSCAPE2.0".utf8)
    static let xmp: [UInt8] = Array("XMP DataXMP".utf8)
}

/// What one step of the walk found.
enum WalkStep {
    case extensionBlock
    case image(FrameDescriptor)
    case trailer
    /// The file ended where a block could start.
    case endOfFile
}

/// The walk over a GIF's blocks (GIF89a §15–§27): the header and logical screen, then
/// extensions and image descriptors up to the trailer, collecting `GIFInfo`. Image data is
/// skipped by its sub-block sizes, never decoded.
struct StructureWalker {
    let options: GIFOptions
    var info = GIFInfo()
    var warnings: [GIFError] = []
    /// The global colour table's RGB triples (§19).
    var globalPalette: [UInt8]?
    var metadataBytes = 0

    init(options: GIFOptions) {
        self.options = options
    }

    mutating func list(_ kind: GIFBlockKind, offset: Int, size: Int, frame: Int?) {
        if info.blocks.count < options.maxListedBlocks {
            info.blocks.append(GIFBlock(offset: offset, size: size, kind: kind, frame: frame))
        } else {
            info.unlistedBlocks += 1
        }
    }

    /// §17 Header and §18 Logical Screen Descriptor, then §19 Global Color Table.
    mutating func readHeader(_ stream: inout ByteStream) throws(GIFError) {
        let header: [UInt8]
        do {
            header = try stream.readBytes(13)
        } catch {
            if stream.count < 6 { throw .badSignature }
            throw .from(error, in: "logical screen descriptor")
        }
        guard header[0] == 0x47, header[1] == 0x49, header[2] == 0x46, header[3] == 0x38,
              header[4] == 0x37 || header[4] == 0x39, header[5] == 0x61 else { throw .badSignature }
        info.version = Array(header[3 ..< 6])
        list(.header, offset: 0, size: 6, frame: nil)
        list(.logicalScreenDescriptor, offset: 6, size: 7, frame: nil)
        info.screenWidth = Int(header[6]) | Int(header[7]) << 8
        info.screenHeight = Int(header[8]) | Int(header[9]) << 8
        let flags = header[10]
        if flags & 0x80 != 0 {
            let offset = stream.position
            let palette = try readColorTable(&stream, sizeField: flags & 7, what: "global colour table")
            list(.globalColorTable, offset: offset, size: palette.count, frame: nil)
            globalPalette = palette
            info.globalColorCount = palette.count / 3
            info.backgroundIndex = Int(header[11])
        }
    }

    /// §19/§21: 2^(size+1) RGB triples.
    func readColorTable(_ stream: inout ByteStream, sizeField: UInt8, what: MessageText) throws(GIFError) -> [UInt8] {
        do {
            return try stream.readBytes(3 << (Int(sizeField) + 1))
        } catch {
            throw .from(error, in: what)
        }
    }

    /// Reads one block, from its introducer byte. Throws on damage.
    mutating func step(_ stream: inout ByteStream) throws(GIFError) -> WalkStep {
        let offset = stream.position
        let introducer: UInt8
        do {
            guard let byte = try stream.nextByte() else { return .endOfFile }
            introducer = byte
        } catch {
            throw .core(error)
        }
        switch introducer {
        case BlockLabel.trailer:
            list(.trailer, offset: offset, size: 1, frame: nil)
            return .trailer
        case BlockLabel.extensionIntroducer:
            try readExtension(&stream, offset: offset)
            return .extensionBlock
        case BlockLabel.imageSeparator:
            return .image(try readImageDescriptor(&stream, offset: offset))
        default:
            throw .unexpectedBlock(offset: offset, byte: introducer)
        }
    }

    /// §23–§26, and any other label skipped by its sub-blocks.
    mutating func readExtension(_ stream: inout ByteStream, offset: Int) throws(GIFError) {
        let frame = info.frameCount
        do {
            let label = try stream.readUInt8()
            switch label {
            case BlockLabel.graphicControl:
                let first = try stream.collectSubBlocks(budget: 255) ?? []
                if first.count >= 4 {
                    if frame == 0 { readGraphicControl(first) }
                } else {
                    warnings.append(.shortGraphicControl(offset: offset, size: first.count))
                }
                list(.graphicControl, offset: offset, size: stream.position - offset, frame: frame)
            case BlockLabel.comment:
                // Each comment kept costs its bytes and an entry's worth more, so that a file
                // of a million empty comments cannot fill memory with empty entries.
                if let text = try stream.collectSubBlocks(budget: metadataRoom - Self.entryCost), metadataRoom >= Self.entryCost {
                    metadataBytes += text.count + Self.entryCost
                    info.comments.append(text)
                } else {
                    info.droppedMetadataBlocks += 1
                }
                list(.comment, offset: offset, size: stream.position - offset, frame: frame)
            case BlockLabel.application:
                let identifier = try readApplication(&stream)
                list(.application(identifier: identifier), offset: offset, size: stream.position - offset, frame: frame)
            case BlockLabel.plainText:
                _ = try stream.skipSubBlocks()
                list(.plainText, offset: offset, size: stream.position - offset, frame: frame)
            default:
                _ = try stream.skipSubBlocks()
                list(.unknownExtension(label: label), offset: offset, size: stream.position - offset, frame: frame)
            }
        } catch {
            throw .from(error, in: "extension")
        }
    }

    var metadataRoom: Int { max(0, options.maxMetadataBytes - metadataBytes) }
    /// What keeping one comment costs against `maxMetadataBytes` besides its text.
    static var entryCost: Int { 16 }

    /// §23: packed fields (disposal in bits 2–4, transparency flag in bit 0), delay, index.
    /// As Pillow does, a later GCE before the same image without the transparency flag does
    /// not take back an earlier one's index.
    mutating func readGraphicControl(_ block: [UInt8]) {
        let flags = block[0]
        info.disposal = Int(flags >> 2 & 7)
        info.delay = Int(block[1]) | Int(block[2]) << 8
        if flags & 1 != 0 {
            info.hasTransparency = true
            info.transparentIndex = Int(block[3])
        }
    }

    /// §26: the identifier sub-block, then NETSCAPE2.0's loop count (sub-block 1, a 16-bit
    /// count; the first such block wins) or the XMP packet; others are skipped.
    mutating func readApplication(_ stream: inout ByteStream) throws(CoreError) -> [UInt8] {
        let size = Int(try stream.readUInt8())
        guard size > 0 else { return [] }
        let identifier = try stream.readBytes(size)
        if identifier == ApplicationIdentifier.xmp {
            if info.xmp == nil, let raw = try stream.collectRawSubBlocks(budget: metadataRoom) {
                let packet = Self.removingMagicTrailer(raw)
                metadataBytes += packet.count
                info.xmp = packet
            } else {
                if info.xmp != nil { _ = try stream.skipSubBlocks() }
                info.droppedMetadataBlocks += 1
            }
            return identifier
        }
        if identifier == ApplicationIdentifier.netscape {
            while true {
                let sub = Int(try stream.readUInt8())
                if sub == 0 { break }
                let data = try stream.readBytes(sub)
                if data.count >= 3, data[0] == 1, info.loopCount == nil {
                    info.loopCount = Int(data[1]) | Int(data[2]) << 8
                }
            }
            return identifier
        }
        _ = try stream.skipSubBlocks()
        return identifier
    }

    /// XMP Part 3 §1.1.2: the packet is followed by 257 bytes 0x01, 0xFF, 0xFE, …, 0x01
    /// (then the terminator, already consumed). Without that trailer the bytes are kept as they are.
    static func removingMagicTrailer(_ raw: [UInt8]) -> [UInt8] {
        let trailerLength = 257
        guard raw.count >= trailerLength else { return raw }
        let start = raw.count - trailerLength
        guard raw[start] == 1 else { return raw }
        for i in 1 ..< trailerLength where raw[start + i] != UInt8(256 - i) { return raw }
        return Array(raw[..<start])
    }

    /// §20 Image Descriptor and §21 Local Color Table, up to the code size byte (not read).
    mutating func readImageDescriptor(_ stream: inout ByteStream, offset: Int) throws(GIFError) -> FrameDescriptor {
        let fields: [UInt8]
        do {
            fields = try stream.readBytes(9)
        } catch {
            throw .from(error, in: "image descriptor")
        }
        func le16(_ i: Int) -> Int { Int(fields[i]) | Int(fields[i + 1]) << 8 }
        let flags = fields[8]
        let frame = info.frameCount
        list(.imageDescriptor, offset: offset, size: 10, frame: frame)
        var descriptor = FrameDescriptor(offset: offset, left: le16(0), top: le16(2), width: le16(4),
                                         height: le16(6), interlaced: flags & 0x40 != 0, localPalette: nil,
                                         dataOffset: 0)
        if flags & 0x80 != 0 {
            let tableOffset = stream.position
            let palette = try readColorTable(&stream, sizeField: flags & 7, what: "local colour table")
            list(.localColorTable, offset: tableOffset, size: palette.count, frame: frame)
            descriptor.localPalette = palette
        }
        descriptor.dataOffset = stream.position
        info.frameCount += 1
        return descriptor
    }

    /// §22: skips a frame's image data (code size byte and sub-blocks) from `dataOffset`.
    mutating func skipImageData(_ stream: inout ByteStream, descriptor: FrameDescriptor, frame: Int) throws(GIFError) {
        stream.seek(to: descriptor.dataOffset)
        do {
            try stream.skip(1)
            _ = try stream.skipSubBlocks()
        } catch {
            throw .from(error, in: "image data")
        }
        list(.imageData, offset: descriptor.dataOffset, size: stream.position - descriptor.dataOffset, frame: frame)
    }

    /// Blocks up to and including the first image descriptor (and its local colour table).
    /// Every error throws: without the first frame there is nothing to show.
    mutating func readUntilFirstImage(_ stream: inout ByteStream) throws(GIFError) -> FrameDescriptor {
        while true {
            switch try step(&stream) {
            case .extensionBlock: continue
            case let .image(descriptor): return descriptor
            case .trailer, .endOfFile: throw .noImage(offset: stream.position)
            }
        }
    }

    /// The blocks after the first image descriptor, to the trailer: the frame count, later
    /// comments, a late NETSCAPE2.0 block, the block list. Damage here ends the walk with a
    /// warning (the first frame is still whole).
    mutating func readRest(_ stream: inout ByteStream, first: FrameDescriptor) {
        do throws(GIFError) {
            try skipImageData(&stream, descriptor: first, frame: 0)
            while true {
                switch try step(&stream) {
                case .extensionBlock:
                    continue
                case let .image(descriptor):
                    try skipImageData(&stream, descriptor: descriptor, frame: info.frameCount - 1)
                case .trailer:
                    return
                case .endOfFile:
                    warnings.append(.missingTrailer(offset: stream.position))
                    return
                }
            }
        } catch {
            warnings.append(error)
        }
    }
}
