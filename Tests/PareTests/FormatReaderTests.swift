import Testing
import PareCore
import TestSupport
@testable import Pare

/// The format table: every format has one reader, each signature names one format, and a
/// Netpbm file opens like any other input.
struct FormatReaderTests {
    @Test func everyFormatHasOneReader() {
        for format in ImageFormat.allCases {
            #expect(ImageFormat.readers.filter { $0.format == format }.count == 1, "\(format)")
        }
        #expect(ImageFormat.readers.count == ImageFormat.allCases.count)
    }

    @Test func signaturesNameOneFormat() {
        let samples: [(ImageFormat, [UInt8])] = [
            (.jpeg, [0xFF, 0xD8, 0xFF, 0xE0]),
            (.png, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            (.tiff, [0x4D, 0x4D, 0x00, 0x2A]),
            (.netpbm, Array("P6\n2 1\n255\n".utf8)),
            (.webp, Array("RIFF\u{24}\0\0\0WEBPVP8 ".utf8)),
            (.gif, Array("GIF89a".utf8)),
            (.tiff, Array("IIRO".utf8)),
        ]
        for (format, prefix) in samples {
            #expect(ImageFormat.readers.filter { $0.matches(prefix) }.map { $0.format } == [format])
        }
        // Text that happens to begin with "P5" is not a picture.
        #expect(ImageFormat(sniffing: Array("P5: notes".utf8)) == nil)
    }

    @Test func netpbmOpensAsASource() throws {
        // A 2×1 PPM: red, blue.
        let bytes = Array("P6\n2 1\n255\n".utf8) + [255, 0, 0, 0, 0, 255]
        let source = try ImageSource(bytes: bytes)
        #expect(source.format == .netpbm)
        let properties = try source.properties()
        #expect(properties.pixelWidth == 2 && properties.pixelHeight == 1 && !properties.hasAlpha)
        var builder = ImageBuilder(ledger: MemoryLedger())
        let warnings = try source.decodeMainImage(ledger: MemoryLedger(), into: &builder)
        #expect(warnings.isEmpty)
        let image = try #require(builder.image)
        #expect(image.format == .rgb8)
        #expect(image.withRow(0) { Array($0) } == [255, 0, 0, 0, 0, 255])
        let thumbnail = try source.thumbnail(options: ThumbnailOptions(maxPixelSize: 8))
        #expect(thumbnail.image.width == 2 && thumbnail.source == .fullImage)
    }
}

/// The new formats through the whole thumbnail path: sizes, sources and the decoders' pixels
/// (checked against dwebp, Pillow and tiff2rgba in their own suites) reaching the output.
struct NewFormatThumbnailTests {
    @Test(arguments: ["webp/fx-alpha-best.webp", "webp/fx-anim.webp", "gif/gl-interlaced.gif",
                      "tiff/cmyk8-lzw.tif", "tiff/fax-g4.tif", "tiff/palette8-lzw.tif"])
    func thumbnailsOfEachFormat(path: String) throws {
        let source = try ImageSource(path: Corpus.fixtures + "/" + path)
        let properties = try source.properties()
        let thumbnail = try source.thumbnail(options: ThumbnailOptions(maxPixelSize: 24))
        #expect(max(thumbnail.image.width, thumbnail.image.height) == min(24, max(properties.pixelWidth, properties.pixelHeight)))
        #expect(thumbnail.source == .fullImage)
        #expect(!thumbnail.isDamaged)
        #expect([PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8].contains(thumbnail.image.format))
    }

    /// A plain TIFF's IFD1 is its second page, uncompressed: listed as the EXIF thumbnail,
    /// never chosen as a source (embedded sources are JPEGs), even where it is as large as
    /// the first page and large enough for the thumbnail.
    @Test func uncompressedIFD1IsNotASource() throws {
        let source = try ImageSource(path: Corpus.fixtures + "/tiff/pages2-orientation6.tif")
        let properties = try source.properties()
        #expect(properties.exifThumbnail == nil)
        let thumbnail = try source.thumbnail(options: ThumbnailOptions(maxPixelSize: 40))
        #expect(thumbnail.source == .fullImage)
        // Orientation 6: the 45×37 page turned a quarter, 40 on its long side.
        #expect(thumbnail.image.width == 33 && thumbnail.image.height == 40)
    }

    /// A CMYK TIFF without a profile decodes to the RGB libtiff's RGBA interface makes.
    @Test func cmykTIFFBecomesRGB() throws {
        var builder = ImageBuilder(ledger: MemoryLedger())
        _ = try ImageSource(path: Corpus.fixtures + "/tiff/cmyk8-none.tif").decodeMainImage(ledger: MemoryLedger(),
                                                                                            into: &builder)
        let image = try #require(builder.image)
        #expect(image.format == .rgb8)
    }

    /// A RAW file's thumbnail comes from one of its JPEG previews (PareEXIF's tests check
    /// them against exiftool's), turned by IFD0's orientation; asked for more than the
    /// largest preview holds, it is that preview with a warning.
    @Test(arguments: ["s-olympus.orf", "s-pentax.pef", "s-samsung.srw", "s-sony.arw", "x-CanonRaw.cr2", "x-DNG.dng",
                      "x-Nikon.nef", "x-Panasonic.rw2"])
    func rawFilesUseTheirPreviews(name: String) throws {
        let source = try ImageSource(path: Corpus.fixtures + "/raw/" + name)
        let properties = try source.properties()
        #expect(properties.isRaw && !properties.previews.isEmpty)
        let small = try source.thumbnail(options: ThumbnailOptions(maxPixelSize: 32))
        guard case .rawPreview = small.source else { Issue.record("\(name): \(small.source)"); return }
        #expect(small.appliedOrientation == properties.orientation)
        let large = try source.thumbnail(options: ThumbnailOptions(maxPixelSize: 100_000))
        #expect(large.warnings.contains { if case .rawPreviewSmallerThanAsked = $0 { true } else { false } })
    }
}
