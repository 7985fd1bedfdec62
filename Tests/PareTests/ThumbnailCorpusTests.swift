import Testing
@testable import Pare
import PareJPEG
import TestSupport

/// The thumbnail pipeline against the shared corpus: orientation, the scaled path's
/// quality, and the embedded-thumbnail policy on real camera files.
@Suite struct ThumbnailCorpusTests {
    static func path(_ relative: String) -> String {
        Corpus.path + "/" + relative
    }

    func thumbnail(_ path: String, size: Int, configure: (inout ThumbnailOptions) -> Void = { _ in }) throws -> Thumbnail {
        var options = ThumbnailOptions(maxPixelSize: size)
        configure(&options)
        return try ImageSource(path: path).thumbnail(options: options)
    }

    /// The same picture stored in each of the eight orientations comes out the same once
    /// turned upright.
    @Test(.requiresCorpus) func everyOrientationMatchesTheUprightOne() throws {
        let root = Corpus.path
        var compared = 0
        for shape in ["Landscape", "Portrait"] {
            let upright = try thumbnail(root + "/exif/orientation/\(shape)_1.jpg", size: 256)
            for n in 2 ... 8 {
                let turned = try thumbnail(root + "/exif/orientation/\(shape)_\(n).jpg", size: 256)
                #expect(turned.appliedOrientation.rawValue == n)
                #expect(turned.image.width == upright.image.width && turned.image.height == upright.image.height,
                        "\(shape)_\(n): \(turned.image.width)×\(turned.image.height) vs \(upright.image.width)×\(upright.image.height)")
                guard turned.image.width == upright.image.width, turned.image.height == upright.image.height else { continue }
                let comparison = Comparison.between(turned.image.pixels, upright.image.pixels)
                #expect(comparison.psnr >= 30, "\(shape)_\(n): \(comparison)")
                compared += 1
            }
        }
        print("orientation: \(compared) of 14 oriented thumbnails match the upright one at PSNR ≥ 30 dB")
    }

    /// The thumbnail made through a reduced DCT scale is close to the one made from a
    /// full-scale decode with the same filter.
    @Test(.requiresCorpus, arguments: [256, 1024])
    func scaledPathMatchesFullDecode(size: Int) throws {
        let root = Corpus.path
        var psnrs: [Double] = []
        var skipped = 0
        var scaledFiles = 0
        for folder in ["jpeg/conformance", "exif/cameras", "exif/orientation", "exif/edge"] {
            for name in FileSystem.list(root + "/" + folder) where name.hasSuffix(".jpg") {
                let file = root + "/" + folder + "/" + name
                let scaled: Thumbnail, full: Thumbnail
                do {
                    scaled = try thumbnail(file, size: size) { $0.embedded = .never }
                    full = try thumbnail(file, size: size) {
                        $0.embedded = .never
                        $0.forcedJPEGScale = .full
                    }
                } catch PareError.jpeg(.unsupported) {
                    skipped += 1
                    continue
                }
                if scaled.source != .mainImage(.full) { scaledFiles += 1 }
                #expect(scaled.image.width == full.image.width && scaled.image.height == full.image.height, "\(name)")
                guard scaled.image.width == full.image.width, scaled.image.height == full.image.height else { continue }
                let comparison = Comparison.between(scaled.image.pixels, full.image.pixels)
                #expect(comparison.psnr >= 35, "\(name) at \(size): \(comparison)")
                psnrs.append(min(comparison.psnr, 99))
            }
        }
        let mean = psnrs.reduce(0, +) / Double(max(psnrs.count, 1))
        let minimum = psnrs.min() ?? 0
        let scaledCount = scaledFiles
        print("scaled vs full at \(size) px: \(psnrs.count) files (\(scaledCount) through a reduced DCT scale), mean PSNR \((mean * 10).rounded() / 10) dB, minimum \((minimum * 10).rounded() / 10) dB (identical counted as 99 dB), \(skipped) unsupported skipped")
        #expect(psnrs.count > 100)
    }

    /// A camera JPEG whose EXIF thumbnail is 160×120 with the main image's 4:3 shape: the
    /// thumbnail serves a request of 160 px and not one of 161.
    @Test(.requiresCorpus) func exifThumbnailServesExactlyUpToItsSize() throws {
        let file = Self.path("exif/cameras/Apple_iPhone_5.jpg")
        let properties = try ImageSource(path: file).properties()
        let thumb = try #require(properties.exifThumbnail)
        #expect(thumb.width == 160 && thumb.height == 120)
        let at160 = try thumbnail(file, size: 160)
        #expect(at160.source == .exifThumbnail)
        #expect(max(at160.image.width, at160.image.height) == 160)
        let at161 = try thumbnail(file, size: 161)
        #expect(at161.source == .mainImage(.eighth))
        #expect(max(at161.image.width, at161.image.height) == 161)
        #expect(try thumbnail(file, size: 100) { $0.embedded = .never }.source == .mainImage(.eighth))
    }

    /// An Adobe CMYK file whose EXIF thumbnail has the main image's 140×140: at 140 px and
    /// above `auto` decodes the main image (the thumbnail is a re-rendering, 23 dB away), and
    /// gives exactly what `never` gives.
    @Test(.requiresCorpus) func thumbnailAsLargeAsTheMainImageIsNotTaken() throws {
        let file = Self.path("exif/edge/mx-Multiple_ICC_segments.jpg")
        let properties = try ImageSource(path: file).properties()
        let thumb = try #require(properties.exifThumbnail)
        #expect(thumb.width == 140 && thumb.height == 140)
        #expect(properties.pixelWidth == 140 && properties.pixelHeight == 140)
        for size in [140, 256] {
            let auto = try thumbnail(file, size: size)
            let never = try thumbnail(file, size: size) { $0.embedded = .never }
            #expect(auto.source == .mainImage(.full), "size \(size)")
            #expect(auto.image.pixels == never.image.pixels, "size \(size)")
        }
        #expect(try thumbnail(file, size: 140) { $0.embedded = .always }.source == .exifThumbnail)
    }

    /// A 3:2 photo with a 4:3 (letterboxed) thumbnail: `auto` refuses it, `always` takes it.
    @Test(.requiresCorpus) func letterboxedThumbnailIsRefused() throws {
        let file = Self.path("exif/cameras/Nikon_D70.jpg")
        let properties = try ImageSource(path: file).properties()
        let thumb = try #require(properties.exifThumbnail)
        #expect(thumb.width == 160 && thumb.height == 120)
        #expect(properties.pixelWidth == 3008 && properties.pixelHeight == 2000)
        let auto = try thumbnail(file, size: 120)
        #expect(auto.source != .exifThumbnail, "\(auto.reason)")
        #expect(auto.reason.contains("aspect"))
        #expect(try thumbnail(file, size: 120) { $0.embedded = .always }.source == .exifThumbnail)
        let fixture = Corpus.fixtures + "/exif/fx-letterbox.jpg"
        if FileSystem.exists(fixture) {
            #expect(try thumbnail(fixture, size: 120).source != .exifThumbnail)
        }
    }
}

/// PNG through the thumbnail path: at its own size every PngSuite image comes out as its
/// reference, reduced to 8 bits and expanded to RGBA. Sequential 8-bit images pass through
/// untouched; interlaced and 16-bit ones are filtered with alpha premultiplied (which drops
/// the colour of fully transparent pixels), so all are compared premultiplied, within one
/// level.
@Suite struct PNGThumbnailTests {
    @Test(.requiresCorpus) func pngSuiteAtItsOwnSizeMatchesTheReference() throws {
        let root = Corpus.path
        var matched = 0
        for name in FileSystem.list(root + "/png/pngsuite") where name.hasSuffix(".png") && !name.hasPrefix("x") {
            let stem = String(name.dropLast(4))
            guard let pamBytes = FileSystem.read(root + "/png/ref/\(stem).pam"), let pam = PAM(pamBytes) else { continue }
            var options = ThumbnailOptions(maxPixelSize: max(pam.width, pam.height))
            options.applyOrientation = false
            let thumbnail = try ImageSource(path: root + "/png/pngsuite/" + name).thumbnail(options: options)
            #expect(thumbnail.image.width == pam.width && thumbnail.image.height == pam.height, "\(name)")
            let ours = expandToRGBA(thumbnail.image)
            var reference = pam.samples
            if pam.maxval != 255 {
                reference = []
                for i in stride(from: 0, to: pam.samples.count - 1, by: 2) {
                    let wide = UInt32(pam.samples[i]) << 8 | UInt32(pam.samples[i + 1])
                    reference.append(UInt8((wide * 255 + 32767) / 65535))
                }
            }
            guard ours.count == reference.count else {
                Issue.record("\(name): \(ours.count) samples vs \(reference.count)")
                continue
            }
            func premultiplied(_ rgba: [UInt8]) -> [UInt8] {
                var out = rgba
                for i in stride(from: 0, to: out.count - 3, by: 4) {
                    let alpha = UInt32(out[i + 3])
                    for c in 0 ..< 3 { out[i + c] = UInt8((UInt32(out[i + c]) * alpha + 127) / 255) }
                }
                return out
            }
            let comparison = Comparison.between(premultiplied(ours), premultiplied(reference))
            #expect(comparison.maxDifference <= 1, "\(name): \(comparison)")
            if comparison.maxDifference <= 1 { matched += 1 }
        }
        print("PNG thumbnails at their own size: \(matched) PngSuite images match their references")
        #expect(matched > 150)
    }
}
