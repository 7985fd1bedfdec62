import Foundation
import Pare
import PareFoundation
import TestSupport
import Testing

/// `ImageSource.properties`: what the headers say, per format, and the caching rules.
@Suite struct PropertiesTests {
    /// Every TIFF of the corpus (BigTIFF included) reports the size exiftool gives: IFD0
    /// ImageWidth and ImageLength (which exiftool calls ImageHeight).
    @Test(.requiresCorpus) func tiffFilesReportTheirRealSize() throws {
        let root = Corpus.path
        let dir = root + "/exif/tiff"
        var checked = 0
        for name in FileSystem.list(dir).sorted() {
            let stem = String(name.prefix { $0 != "." })
            let ref = try #require(FileSystem.read(root + "/exif/ref/\(stem).json"), "\(stem).json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(ref)) as? [[String: Any]]).first ?? [:]
            let width = try #require(json["IFD0:ImageWidth"] as? Int)
            let height = try #require(json["IFD0:ImageHeight"] as? Int)
            let properties = try ImageSource(path: dir + "/" + name).properties()
            #expect(properties.format == .tiff)
            #expect(properties.pixelWidth == width && properties.pixelHeight == height,
                    "\(name): \(properties.pixelWidth)×\(properties.pixelHeight), exiftool \(width)×\(height)")
            checked += 1
        }
        print("TIFF corpus: \(checked) files sized as exiftool says")
        #expect(checked == 7)
    }

    /// A BigTIFF whose IFD0 gives a size of 2^62 × 2^62 (LONG8): the size counts as unknown,
    /// and the thumbnail ends with a typed error instead of overflowing in the source choice.
    @Test func bigTIFFSizeBeyondAnyImageIsUnknown() throws {
        func le(_ value: UInt64, _ bytes: Int) -> [UInt8] { (0 ..< bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        // Header (BigTIFF: version 43, offsets of 8 bytes, IFD0 at 16), then IFD0 with two
        // entries of tag, type 16 (LONG8), count 1 and the value, and no next IFD.
        var file: [UInt8] = [0x49, 0x49] + le(43, 2) + le(8, 2) + le(0, 2) + le(16, 8) + le(2, 8)
        for tag in [0x0100, 0x0101] as [UInt64] { file += le(tag, 2) + le(16, 2) + le(1, 8) + le(1 << 62, 8) }
        file += le(0, 8)
        let source = try ImageSource(bytes: file)
        let properties = try source.properties()
        #expect(properties.format == .tiff)
        #expect(properties.pixelWidth == 0 && properties.pixelHeight == 0)
        for embedded in [EmbeddedPolicy.auto, .always, .never] {
            var options = ThumbnailOptions(maxPixelSize: 256)
            options.embedded = embedded
            #expect(throws: PareError.self) { _ = try source.thumbnail(options: options) }
        }
    }

    @Test func jpegAndPNGProperties() throws {
        let jpeg = try ImageSource(bytes: SyntheticJPEG.make(width: 40, height: 24)).properties()
        #expect(jpeg.bitDepth == 8 && !jpeg.hasAlpha && !jpeg.isProgressive && jpeg.colorModel == .yCbCr)
        #expect(jpeg.dateTaken == nil && jpeg.cameraMake == nil && !jpeg.hasGPS)
        let progressive = try ImageSource(bytes: SyntheticProgressiveJPEG.make(width: 40, height: 24)).properties()
        #expect(progressive.isProgressive)
        var image = try Image(width: 3, height: 2, format: .rgba8)
        image.withMutableRow(0) { $0[3] = 7 }
        let png = try ImageSource(bytes: try PNGEncoder(ledger: MemoryLedger()).encode(image)).properties()
        #expect(png.bitDepth == 8 && png.hasAlpha && png.colorModel == .rgb && !png.isProgressive)
    }

    @Test func cameraFacts() throws {
        let properties = try ImageSource(path: Corpus.fixtures + "/sample.jpg").properties()
        #expect(properties.cameraMake == "Pare" && properties.cameraModel == "Fixture")
        #expect(properties.dateTaken == "2024:05:17 10:42:00")
        #expect(properties.orientation == .right && !properties.hasGPS)
    }

    /// Asked again with other limits, the headers are read again under them (the first
    /// answer used to be kept whatever came later).
    @Test func cachedOnlyForTheSameOptions() throws {
        let source = try ImageSource(bytes: SyntheticJPEG.make(width: 40, height: 24))
        #expect(try source.properties().pixelWidth == 40)
        var options = ThumbnailOptions(maxPixelSize: 0)
        options.jpeg.maxDimension = 32
        #expect(throws: PareError.self) { try source.properties(options: options) }
        do {
            _ = try source.properties(options: options)
        } catch {
            guard case .jpeg(.limitExceeded(what: "width", value: 40, limit: 32, offset: _)) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(error.kind == .limit)
        }
        options = ThumbnailOptions(maxPixelSize: 0)
        options.memoryLimit = 16
        do {
            _ = try source.properties(options: options)
            Issue.record("a 16-byte limit was enough")
        } catch {
            #expect(error.kind == .memoryLimit)
            guard case .memoryLimit(_, _, 16) = error else { Issue.record("unexpected \(error)"); return }
        }
        #expect(try source.properties().pixelWidth == 40)
    }

    @Test func foundationInputs() throws {
        let bytes = SyntheticJPEG.make(width: 40, height: 24)
        let fromData = try ImageSource(data: Data(bytes)).thumbnail(options: ThumbnailOptions(maxPixelSize: 20))
        let fromArray = try ImageSource(bytes: bytes).thumbnail(options: ThumbnailOptions(maxPixelSize: 20))
        let fromPointer = try bytes.withUnsafeBytes { raw in
            try ImageSource(unsafeBytes: raw).thumbnail(options: ThumbnailOptions(maxPixelSize: 20))
        }
        #expect(fromData.image == fromArray.image && fromPointer.image == fromArray.image)
        #expect(fromArray.image.width == 20 && fromArray.image.height == 12)
        #expect(throws: PareError.invalidArgument("not a file URL: https://example.org/a.jpg")) {
            try ImageSource(url: URL(string: "https://example.org/a.jpg")!)
        }
        #expect(try ImageSource(url: URL(fileURLWithPath: Corpus.fixtures + "/sample.jpg")).format == .jpeg)
    }

    @Test func callerMistakesAreUsageErrors() throws {
        let source = try ImageSource(bytes: SyntheticJPEG.make(width: 40, height: 24))
        #expect(throws: PareError.invalidArgument("maxPixelSize must be at least 1")) {
            try source.thumbnail(options: ThumbnailOptions(maxPixelSize: 0))
        }
        #expect(PareError.invalidArgument("x").kind == .usage)
        #expect(PareError.png(.unsupportedEncoding(reason: "x")).kind == .usage)
    }
}
