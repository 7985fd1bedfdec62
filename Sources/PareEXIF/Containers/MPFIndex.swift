import PareCore

/// The image type code of an MP entry (CIPA DC-007 §5.2.3.3.1, Table 4: the low 24 bits
/// of the Individual Image Attribute).
public enum MPFImageKind: Sendable, Equatable {
    case baselinePrimary
    case largeThumbnailVGA
    case largeThumbnailFullHD
    case largeThumbnail4K
    case largeThumbnail8K
    case panorama
    case disparity
    case multiAngle
    case undefined
    case other(UInt32)

    init(code: UInt32) {
        switch code {
        case 0x030000: self = .baselinePrimary
        case 0x010001: self = .largeThumbnailVGA
        case 0x010002: self = .largeThumbnailFullHD
        case 0x010003: self = .largeThumbnail4K
        case 0x010004: self = .largeThumbnail8K
        case 0x020001: self = .panorama
        case 0x020002: self = .disparity
        case 0x020003: self = .multiAngle
        case 0x000000: self = .undefined
        default: self = .other(code)
        }
    }

    /// True for the preview classes a thumbnailer may use instead of the primary image.
    public var isLargeThumbnail: Bool {
        switch self {
        case .largeThumbnailVGA, .largeThumbnailFullHD, .largeThumbnail4K, .largeThumbnail8K: return true
        default: return false
        }
    }

    /// A short readable name ("large-thumbnail-vga"), as `pare exif --json` prints it.
    public var name: MessageText {
        switch self {
        case .baselinePrimary: return "baseline-primary"
        case .largeThumbnailVGA: return "large-thumbnail-vga"
        case .largeThumbnailFullHD: return "large-thumbnail-full-hd"
        case .largeThumbnail4K: return "large-thumbnail-4k"
        case .largeThumbnail8K: return "large-thumbnail-8k"
        case .panorama: return "multi-frame-panorama"
        case .disparity: return "multi-frame-disparity"
        case .multiAngle: return "multi-frame-multi-angle"
        case .undefined: return "undefined"
        case .other: return "other"
        }
    }
}

/// The flag bits of the Individual Image Attribute (CIPA DC-007 §5.2.3.3.1, Figure 9). Read
/// from a file (`MPFEntry.flags`), never made by callers, like `MPFEntry` itself: the
/// memberwise initialiser stays internal.
public struct MPFImageFlags: Sendable, Equatable {
    public var dependentParent: Bool
    public var dependentChild: Bool
    public var representative: Bool
}

/// One image of a Multi-Picture file: its type, flags and where its JPEG stream is.
public struct MPFEntry: Sendable, Equatable {
    /// Position in the MP Entry list, from 0 (0 is the file's own primary image).
    public let index: Int
    /// The Individual Image Attribute as stored (flags, format, type code).
    public let attribute: UInt32
    public var typeCode: UInt32 { attribute & 0x00FF_FFFF }
    public var kind: MPFImageKind { MPFImageKind(code: typeCode) }
    /// Image data format (bits 24–26): 0 is JPEG.
    public var format: UInt8 { UInt8((attribute >> 24) & 0x7) }
    public var flags: MPFImageFlags {
        MPFImageFlags(dependentParent: attribute & 0x8000_0000 != 0,
                      dependentChild: attribute & 0x4000_0000 != 0,
                      representative: attribute & 0x2000_0000 != 0)
    }
    /// The absolute offset of the image's SOI: the stored offset is relative to the MPF
    /// header (§5.2.3.3.3) and 0 for the primary image, which starts the file.
    public let offset: Int
    public let length: Int
    /// Entry numbers of dependent images (1-based, 0 for none).
    public let dependentImage1: UInt16
    public let dependentImage2: UInt16
    /// The pixel size from the image's SOF, when its bytes are inside the input.
    public let width: Int?
    public let height: Int?

    /// The image as an embedded JPEG, to read its bytes or hand it to a decoder.
    public var image: EmbeddedImage {
        EmbeddedImage(offset: offset, length: length, width: width, height: height, encoding: .jpeg)
    }
}

/// Reads the MP Index IFD of an APP2 "MPF\0" segment (CIPA DC-007 §5.2.3): its MP Entry
/// list (tag 0xB002, 16 bytes per image), and each image's frame size from its own SOF.
enum MPFIndex {
    /// `block` is the segment after "MPF\0" (its header's absolute offset is the base of the
    /// stored image offsets). The primary image starts at `fileStart`. Returns the MPF0 IFD
    /// and the entries.
    static func read<Source: ByteSource>(_ block: TIFFBlock<Source>, in source: Source, fileStart: Int,
                                         primarySize: (width: Int, height: Int)?,
                                         options: EXIFOptions, warnings: inout [EXIFError]) -> (IFD?, [MPFEntry]) {
        let headerOffset = block.absoluteBase
        var reader = IFDReader(block: block, options: options)
        let index: IFD
        do {
            index = try reader.readFirstIFD(name: "MPF0", names: .mpf)
        } catch {
            warnings.append(contentsOf: reader.warnings)
            warnings.warn(error)
            return (nil, [])
        }
        warnings.append(contentsOf: reader.warnings)
        guard let list = index.entry(0xB002), let bytes = list.value, bytes.count >= 16 else {
            warnings.warn(.badMPF(offset: index.offset, reason: "no readable MP Entry list (tag 0xB002)"))
            return (index, [])
        }
        var count = bytes.count / 16
        if count > options.maxMPFEntries {
            warnings.warn(.tooManyMPFEntries(offset: list.valueOffset, count: count, limit: options.maxMPFEntries))
            count = options.maxMPFEntries
        }
        let order = reader.byteOrder
        func long(_ at: Int) -> UInt32 {
            let b = (0 ..< 4).map { UInt32(bytes[at + $0]) }
            return order == .bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
                                       : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
        }
        func short(_ at: Int) -> UInt16 {
            let a = UInt16(bytes[at]), b = UInt16(bytes[at + 1])
            return order == .bigEndian ? a << 8 | b : b << 8 | a
        }
        var entries: [MPFEntry] = []
        for i in 0 ..< count {
            let at = i * 16
            let size = long(at + 4), stored = long(at + 8)
            let start = stored == 0 ? UInt64(fileStart) : UInt64(headerOffset) + UInt64(stored)
            var width: Int?, height: Int?
            var offset = Int(clamping: start)
            let length = Int(clamping: size)
            if start <= UInt64(source.count), UInt64(size) <= UInt64(source.count) - start {
                offset = Int(start)
                if stored == 0, let primarySize {
                    (width, height) = (primarySize.width, primarySize.height)
                } else if let frame = JPEGSegmentLocator.frameSize(in: source, start: offset, end: offset + length,
                                                                   options: options) {
                    (width, height) = (frame.width, frame.height)
                } else {
                    warnings.warn(.badMPF(offset: offset, reason: "image \(i + 1) has no readable JPEG frame header"))
                }
            } else {
                warnings.warn(.badMPF(offset: list.valueOffset + at, reason: "image \(i + 1) lies outside the file"))
            }
            entries.append(MPFEntry(index: i, attribute: long(at), offset: offset, length: length,
                                    dependentImage1: short(at + 12), dependentImage2: short(at + 14),
                                    width: width, height: height))
        }
        return (index, entries)
    }
}
