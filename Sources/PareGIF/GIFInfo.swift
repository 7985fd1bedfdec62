/// What a block of a GIF file is (GIF89a §15–§27, Appendix B's grammar).
public enum GIFBlockKind: Sendable, Equatable {
    /// "GIF87a" / "GIF89a" (§17).
    case header
    /// Width, height, flags, background index, aspect ratio (§18).
    case logicalScreenDescriptor
    /// §19.
    case globalColorTable
    /// §23, with the frame it governs.
    case graphicControl
    /// §24.
    case comment
    /// §25 (drawn text; decoders, Pillow among them, ignore it).
    case plainText
    /// §26, with its 11-byte identifier and code (NETSCAPE2.0, XMP DataXMP, ICCRGBG1…).
    case application(identifier: [UInt8])
    /// An extension label this decoder does not know (skipped by its sub-blocks).
    case unknownExtension(label: UInt8)
    /// §20: position, size, flags of one frame.
    case imageDescriptor
    /// §21.
    case localColorTable
    /// §22: the LZW minimum code size byte and the data sub-blocks.
    case imageData
    /// §27: 0x3B.
    case trailer
}

/// One block of the file, for a byte map (`inspect`/`explain`): where it starts, how many
/// bytes it takes (sub-blocks and terminator included), and which frame it belongs to.
public struct GIFBlock: Sendable, Equatable {
    public var offset: Int
    public var size: Int
    public var kind: GIFBlockKind
    /// The index of the frame whose image descriptor comes next (or came, for the
    /// descriptor, its colour table and data); nil for the header blocks and the trailer.
    public var frame: Int?
}

/// What the blocks of a GIF say, read by `GIFDecoder.init` from a walk over the whole file
/// that skips image data by its sub-block lengths (never decoding it).
public struct GIFInfo: Sendable, Equatable {
    /// "87a" or "89a".
    public var version: [UInt8] = []
    /// The logical screen (§18).
    public var screenWidth = 0
    public var screenHeight = 0
    /// The logical screen's background colour index (§18), when there is a global colour table.
    public var backgroundIndex: Int?
    /// Entries of the global colour table (§19), 0 when there is none.
    public var globalColorCount = 0
    /// Image descriptors found (§20): the frames of an animation. 1 when
    /// `GIFOptions.walksAllBlocks` is false.
    public var frameCount = 0
    /// True when the walk went to the trailer (or to damage that ended it), so that
    /// `frameCount`, `blocks`, `comments` and `loopCount` cover the whole file.
    public var framesCounted = false
    /// The NETSCAPE2.0 application extension's loop count (0: forever); nil without one
    /// (the animation plays once). The first such block anywhere in the file counts, as in
    /// browsers (Pillow reads it only before the first image).
    public var loopCount: Int?
    /// The first frame's Graphic Control Extension names a transparent index (§23).
    public var hasTransparency = false
    /// The first frame's transparent index.
    public var transparentIndex: Int?
    /// The first frame's disposal method (§23: 0 none, 1 keep, 2 background, 3 previous).
    public var disposal = 0
    /// The first frame's delay in hundredths of a second.
    public var delay = 0
    /// The first frame's rectangle on the logical screen (§20).
    public var frameLeft = 0, frameTop = 0, frameWidth = 0, frameHeight = 0
    /// The first frame is interlaced (§20, Appendix E).
    public var interlaced = false
    /// Entries of the first frame's local colour table (§21), 0 when there is none.
    public var localColorCount = 0
    /// The text of each comment extension (§24), its sub-blocks joined.
    public var comments: [[UInt8]] = []
    /// The XMP packet of an "XMP DataXMP" application extension, its magic trailer removed.
    public var xmp: [UInt8]?
    /// Comments or XMP packets dropped past `GIFOptions.maxMetadataBytes`.
    public var droppedMetadataBlocks = 0
    /// The blocks in file order, at most `GIFOptions.maxListedBlocks`.
    public var blocks: [GIFBlock] = []
    /// Blocks not listed past `GIFOptions.maxListedBlocks`.
    public var unlistedBlocks = 0

    public init() {}
}
