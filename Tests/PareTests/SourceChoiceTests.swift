import Testing
@testable import Pare
import PareJPEG

/// The choice of source, on made-up header facts: no decoding involved.
@Suite struct SourceChoiceTests {
    func properties(width: Int, height: Int, thumbnail: (Int, Int)? = nil, previews: [(Int, Int)] = [],
                    orientation: Orientation = .up) -> ImageProperties {
        var made = ImageProperties(
            format: .jpeg, pixelWidth: width, pixelHeight: height, orientation: orientation,
            exifThumbnail: thumbnail.map { EmbeddedImageInfo(kind: .exifThumbnail, offset: 100, length: 8_000, width: $0.0, height: $0.1) },
            previews: previews.enumerated().map {
                EmbeddedImageInfo(kind: .mpfPreview(index: $0.offset + 2), offset: 1_000_000, length: 300_000, width: $0.element.0, height: $0.element.1)
            })
        // What the JPEG reader says of every JPEG.
        made.reducedScales = [.eighth, .quarter, .half]
        return made
    }

    func plan(_ p: ImageProperties, size: Int, policy: EmbeddedPolicy = .auto) -> SourcePlan {
        var options = ThumbnailOptions(maxPixelSize: size)
        options.embedded = policy
        return SourceChooser.plan(properties: p, fileSize: 5_000_000, options: options)
    }

    /// The smallest DCT scale whose long side is at least twice the size asked for (1.9 times
    /// at 1/2, 1.95 at 1/8).
    @Test func smallestDCTScaleThatLeavesAMargin() {
        let p = properties(width: 6000, height: 4000)
        #expect(plan(p, size: 256).source == .mainImage(.eighth))      // 750 px
        #expect(plan(p, size: 384).source == .mainImage(.eighth))      // 750 ≥ 1.95 × 384
        #expect(plan(p, size: 385).source == .mainImage(.quarter))     // 1500 px
        #expect(plan(p, size: 750).source == .mainImage(.quarter))
        #expect(plan(p, size: 751).source == .mainImage(.half))        // 3000 px
        #expect(plan(p, size: 1578).source == .mainImage(.half))       // 3000 ≥ 1.9 × 1578
        #expect(plan(p, size: 1579).source == .mainImage(.full))
        // A 4000-pixel photo's 1024-pixel thumbnail comes from its 1/2 decode (2000 px), its
        // 256-pixel one from its 1/8 decode (500 px), a 257-pixel one from its 1/4 decode.
        #expect(plan(properties(width: 4000, height: 3000), size: 1024).source == .mainImage(.half))
        #expect(plan(properties(width: 4000, height: 3000), size: 256).source == .mainImage(.eighth))
        #expect(plan(properties(width: 4000, height: 3000), size: 257).source == .mainImage(.quarter))
        #expect(plan(p, size: 9000).source == .mainImage(.full))
    }

    @Test func exifThumbnailWhenLargeEnoughAndSameShape() {
        let p = properties(width: 3264, height: 2448, thumbnail: (160, 120))
        #expect(plan(p, size: 160).source == .exifThumbnail)
        #expect(plan(p, size: 161).source == .mainImage(.eighth))
        #expect(plan(p, size: 100).source == .exifThumbnail)
        #expect(plan(p, size: 100, policy: .never).source == .mainImage(.eighth))
        #expect(plan(p, size: 1000, policy: .always).source == .exifThumbnail)
    }

    @Test func letterboxedThumbnailIsRefusedUnderAuto() {
        let p = properties(width: 3008, height: 2000, thumbnail: (160, 120))
        let chosen = plan(p, size: 100)
        #expect(chosen.source == .mainImage(.eighth))
        #expect(chosen.reason.contains("aspect"))
        #expect(plan(p, size: 100, policy: .always).source == .exifThumbnail)
    }

    @Test func mpfPreviewBeatsTheMainImageWhenLargeEnough() {
        let p = properties(width: 6000, height: 4000, thumbnail: (160, 107), previews: [(1920, 1280)])
        #expect(plan(p, size: 160).source == .exifThumbnail)
        let preview = plan(p, size: 1024)
        #expect(preview.source == .mpfPreview(index: 2))
        #expect(preview.scale == .full)                                 // at 1/2 it would be 960 px
        #expect(plan(p, size: 480).scale == .half)
        #expect(plan(p, size: 2000).source == .mainImage(.full))       // 3000 px at 1/2 is < 1.9 × 2000
    }

    /// A main image no larger than the size asked for is decoded itself, even when an
    /// embedded image of its size would reach the target: that image is a re-rendering.
    @Test func mainImageNotLargerThanTheTargetIsDecodedItself() {
        let p = properties(width: 140, height: 140, thumbnail: (140, 140), previews: [(140, 140)])
        for size in [140, 256] {
            let chosen = plan(p, size: size)
            #expect(chosen.source == .mainImage(.full), "size \(size)")
            #expect(chosen.reason.contains("EXIF thumbnail 140×140 is not needed"))
            #expect(chosen.reason.contains("MPF image 2 140×140 is not needed"))
        }
        // One pixel below the main image's size, the thumbnail is a saving again.
        #expect(plan(p, size: 139).source == .exifThumbnail)
        // `always` still takes it.
        #expect(plan(p, size: 256, policy: .always).source == .exifThumbnail)
    }

    @Test func neverEnlarges() {
        let p = properties(width: 300, height: 200)
        #expect(plan(p, size: 1000).source == .mainImage(.full))
        #expect(plan(p, size: 38).source == .mainImage(.half))         // 150 px ≥ 1.9 × 38; 75 px < 2 × 38
        #expect(plan(p, size: 18).source == .mainImage(.eighth))
    }
}
