import PareCore

/// A GPS position from the GPS IFD (Exif 2.32 §4.6.6), in degrees and metres, with the
/// N/S, E/W and above/below sea level references already applied as signs.
public struct GPSPosition: Sendable, Equatable {
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
}

/// How an embedded image's bytes are encoded.
public enum EmbeddedImageEncoding: Sendable, Equatable {
    /// A complete JPEG stream (IFD1 JPEGInterchangeFormat, MPF images, JFXX thumbnails).
    case jpeg
    /// Uncompressed samples from IFD1 strips (Exif 2.32 §4.5.8, Compression = 1).
    case uncompressed
}

/// An image stored inside the file: its bytes are `length` bytes at absolute `offset` of
/// the input, read through the same source when needed (never copied up front).
public struct EmbeddedImage: Sendable, Equatable {
    public let offset: Int
    public let length: Int
    /// The pixel size from the image's own SOF (JPEG) or IFD1 ImageWidth/Height.
    public let width: Int?
    public let height: Int?
    public let encoding: EmbeddedImageEncoding

    public init(offset: Int, length: Int, width: Int?, height: Int?, encoding: EmbeddedImageEncoding = .jpeg) {
        self.offset = offset
        self.length = length
        self.width = width
        self.height = height
        self.encoding = encoding
    }

    /// The image's bytes, read from the input they were found in.
    public func bytes<Source: ByteSource>(from source: Source) throws(EXIFError) -> [UInt8] {
        do {
            return try source.bytes(at: offset, count: length)
        } catch {
            throw .core(error)
        }
    }
}

/// What a TIFF block's IFDs say, with typed accessors for the tags a thumbnailer and a
/// photo browser need, and every IFD kept whole for tools that show the rest. The accessors
/// read the IFDs when asked (a few entries each): a program links only those it uses, and an
/// Embedded one that never asks for a resolution or a position no (soft-float) double
/// arithmetic.
public struct EXIFMetadata: Sendable {
    public var byteOrder: ByteOrder
    /// The absolute offset of the TIFF header ("II"/"MM").
    public var tiffHeaderOffset: Int
    /// IFD0 Orientation (0x0112), `.up` when absent or outside 1…8.
    public var orientation: Orientation { Orientation(exifValue: rawOrientation ?? 1) }
    /// The Orientation value as stored, when there is one.
    public var rawOrientation: Int? { ifd0.integer(0x0112) }
    #if !hasFeature(Embedded)
    // The text fields are read as `String` (not under Embedded Swift, where `IFDEntry.value`
    // holds their bytes: `String` and its Unicode code would be most of a firmware's
    // standard library).
    public var make: String? { ifd0.entry(0x010F)?.string }
    public var model: String? { ifd0.entry(0x0110)?.string }
    public var software: String? { ifd0.entry(0x0131)?.string }
    /// IFD0 DateTime (0x0132), "YYYY:MM:DD HH:MM:SS".
    public var dateTime: String? { ifd0.entry(0x0132)?.string }
    /// ExifIFD DateTimeOriginal (0x9003).
    public var dateTimeOriginal: String? { exifIFD?.entry(0x9003)?.string }
    #endif
    /// ExifIFD PixelXDimension/PixelYDimension (0xA002/0xA003).
    public var pixelWidth: Int? { exifIFD?.integer(0xA002) }
    public var pixelHeight: Int? { exifIFD?.integer(0xA003) }
    /// IFD0 ImageWidth/ImageLength (0x0100/0x0101): the size of the image IFD0 describes,
    /// which in a TIFF file is the main image (TIFF 6.0 §3, baseline fields).
    public var imageWidth: Int? { ifd0.integer(0x0100) }
    public var imageHeight: Int? { ifd0.integer(0x0101) }
    /// IFD0 XResolution/YResolution (0x011A/0x011B); nil for a zero denominator.
    public var xResolution: Double? { ifd0.entry(0x011A)?.double() }
    public var yResolution: Double? { ifd0.entry(0x011B)?.double() }
    /// The GPS IFD's position, when it has any of latitude, longitude or altitude.
    public var gps: GPSPosition? { ifd("GPS").flatMap(Self.position) }
    /// The IFD1 thumbnail, when its offset and length are present, non-zero and inside
    /// the block.
    public var thumbnail: EmbeddedImage?
    /// Every IFD read, in reading order: IFD0, ExifIFD, GPS, InteropIFD, IFD1, IFD2…
    public private(set) var ifds: [IFD]
    /// Where ExifIFD is in `ifds`, noted while reading: the accessors go straight to it
    /// (IFD0 is always first) instead of comparing every IFD's name on each call.
    private let exifIndex: Int?
    /// What was wrong but did not stop the reading.
    public var warnings: [EXIFError]

    /// The IFD named `name` ("IFD0", "IFD1", "ExifIFD", "GPS", "InteropIFD").
    public func ifd(_ name: MessageText) -> IFD? {
        ifds.first { $0.isNamed(name) }
    }

    /// IFD0, which every reading has (it fails without one).
    private var ifd0: IFD { ifds[0] }
    private var exifIFD: IFD? { exifIndex.map { ifds[$0] } }
}

/// The thumbnail, found once from IFD1 (Exif 2.32 Tables 4–8), since it checks the place
/// against the block and warns.
extension EXIFMetadata {
    /// `ifds` starts with IFD0; `exifIndex` and `ifd1Index` say where ExifIFD and IFD1 are.
    init<Source: ByteSource>(ifds: [IFD], exifIndex: Int?, ifd1Index: Int?, block: TIFFBlock<Source>,
                             byteOrder: ByteOrder, options: EXIFOptions, warnings: [EXIFError]) {
        self.byteOrder = byteOrder
        tiffHeaderOffset = block.absoluteBase
        self.ifds = ifds
        self.exifIndex = exifIndex
        self.warnings = warnings
        thumbnail = nil
        if let ifd1Index {
            thumbnail = thumbnailImage(ifds[ifd1Index], block: block, options: options)
        }
    }

    /// Degrees from three rationals (degrees, minutes, seconds), signed by the reference.
    private static func position(_ ifd: IFD) -> GPSPosition? {
        func degrees(_ tag: UInt16, negativeRef: UInt8, refTag: UInt16) -> Double? {
            guard let entry = ifd.entry(tag), entry.valueCount >= 1, let d = entry.double(at: 0) else { return nil }
            let m = entry.double(at: 1) ?? 0, s = entry.double(at: 2) ?? 0
            let value = d + m / 60 + s / 3600
            return ifd.entry(refTag)?.value?.first == negativeRef ? -value : value
        }
        var result = GPSPosition()
        result.latitude = degrees(0x0002, negativeRef: UInt8(ascii: "S"), refTag: 0x0001)
        result.longitude = degrees(0x0004, negativeRef: UInt8(ascii: "W"), refTag: 0x0003)
        if let altitude = ifd.entry(0x0006)?.double() {
            result.altitude = ifd.integer64(0x0005) == 1 ? -altitude : altitude
        }
        return result == GPSPosition() ? nil : result
    }

    /// The IFD1 thumbnail: JPEGInterchangeFormat/Length (0x0201/0x0202), or for
    /// Compression 1 the strips (0x0111/0x0117) when they are one contiguous run. Both are
    /// a header-relative start and a length, checked against the block in one place.
    private mutating func thumbnailImage<Source: ByteSource>(_ ifd1: IFD, block: TIFFBlock<Source>,
                                                             options: EXIFOptions) -> EmbeddedImage? {
        let start: Int64, length: Int64?, encoding: EmbeddedImageEncoding
        if let offset = ifd1.integer64(0x0201), let count = ifd1.integer64(0x0202) {
            guard count > 0 else { return nil }
            (start, length, encoding) = (offset, count, .jpeg)
        } else {
            guard let run = Self.stripRun(ifd1) else { return nil }
            (start, length, encoding) = (run.first, run.length, .uncompressed)
        }
        guard let length, length > 0, start >= 0, block.contains(UInt64(start), length: UInt64(length)) else {
            warnings.warn(.thumbnailOutOfBounds(offset: block.absolute(pointer: UInt64(clamping: start)),
                                                  length: length.map { Int(clamping: $0) } ?? Int.max))
            return nil
        }
        // Inside the block, so both fit an `Int`.
        let from = Int(start), count = Int(length)
        var width: Int?, height: Int?
        if encoding == .jpeg {
            let size = JPEGSegmentLocator.frameSize(in: block.source, start: block.start + from,
                                                    end: block.start + from + count, options: options)
            (width, height) = (size?.width, size?.height)
        } else {
            (width, height) = (ifd1.integer(0x0100), ifd1.integer(0x0101))
        }
        return EmbeddedImage(offset: block.absolute(from), length: count, width: width, height: height,
                             encoding: encoding)
    }

    /// The first strip's offset and the strips' total length when Compression is 1 and each
    /// strip starts where the one before ends; a nil length when the total passes `Int64`
    /// (BigTIFF's LONG8 and SLONG8 strips can), which is out of bounds.
    private static func stripRun(_ ifd1: IFD) -> (first: Int64, length: Int64?)? {
        guard ifd1.integer64(0x0103) == 1, let offsets = ifd1.entry(0x0111),
              let counts = ifd1.entry(0x0117), offsets.valueCount >= 1, offsets.valueCount == counts.valueCount,
              let first = offsets.integer(at: 0) else { return nil }
        var end = first
        for index in 0 ..< offsets.valueCount {
            guard offsets.integer(at: index) == end, let count = counts.integer(at: index), count >= 0 else { return nil }
            let (sum, overflow) = end.addingReportingOverflow(count)
            if overflow { return (first, nil) }
            end = sum
        }
        let (span, overflow) = end.subtractingReportingOverflow(first)
        return (first, overflow ? nil : span)
    }
}
