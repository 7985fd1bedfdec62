import Testing
import PareCore
import TestSupport
@testable import Pare

/// Boxes and fits (`ThumbnailGeometry`), the crop stage (`CropSink`) and the thumbnails they
/// make: exact box sizes in every orientation, windows taken back to the stored pixels.
struct ThumbnailGeometryTests {
    @Test func boxesParse() {
        #expect(ThumbnailBox(parsing: "256x128") == ThumbnailBox(width: 256, height: 128))
        #expect(ThumbnailBox(parsing: "256x") == ThumbnailBox(width: 256, height: nil))
        #expect(ThumbnailBox(parsing: "x90") == ThumbnailBox(width: nil, height: 90))
        #expect(ThumbnailBox(parsing: "64") == ThumbnailBox(width: 64, height: 64))
        for bad in ["x", "0x5", "5x0", "-3x4", "axb", "", "4x4x4"] { #expect(ThumbnailBox(parsing: bad) == nil, "\(bad)") }
    }

    @Test func fitsOfALandscapePicture() {
        let box = ThumbnailBox(width: 256, height: 256)
        let inside = ThumbnailGeometry(pictureWidth: 4000, pictureHeight: 3000, box: box, fit: .inside, enlarge: false)
        #expect((inside.scaledWidth, inside.scaledHeight, inside.canvasWidth, inside.canvasHeight) == (256, 192, 256, 192))
        #expect(inside.neededLongSide == 256)
        let cover = ThumbnailGeometry(pictureWidth: 4000, pictureHeight: 3000, box: box, fit: .cover, enlarge: false)
        #expect((cover.scaledWidth, cover.scaledHeight) == (256, 256))
        #expect(cover.window == PixelRect(x: 500, y: 0, width: 3000, height: 3000))
        // The square window is 3000 wide: the whole picture must be decoded 4000/3000 × 256 wide.
        #expect(cover.neededLongSide == 342)
        let contain = ThumbnailGeometry(pictureWidth: 4000, pictureHeight: 3000, box: box, fit: .contain, enlarge: false)
        #expect((contain.scaledWidth, contain.scaledHeight, contain.canvasWidth, contain.canvasHeight) == (256, 192, 256, 256))
        let fill = ThumbnailGeometry(pictureWidth: 4000, pictureHeight: 3000, box: box, fit: .fill, enlarge: false)
        #expect((fill.scaledWidth, fill.scaledHeight) == (256, 256))
        // Small pictures are not enlarged; a cover box larger than the picture is cut to it.
        let small = ThumbnailGeometry(pictureWidth: 100, pictureHeight: 50, box: box, fit: .cover, enlarge: false)
        #expect((small.scaledWidth, small.scaledHeight) == (100, 50))
        let enlarged = ThumbnailGeometry(pictureWidth: 100, pictureHeight: 50, box: box, fit: .cover, enlarge: true)
        #expect((enlarged.scaledWidth, enlarged.scaledHeight) == (256, 256))
        // One side open: every fit is inside.
        let wide = ThumbnailGeometry(pictureWidth: 4000, pictureHeight: 3000, box: ThumbnailBox(width: 300, height: nil),
                                     fit: .cover, enlarge: false)
        #expect((wide.scaledWidth, wide.scaledHeight) == (300, 225))
    }

    /// Cropping the upright picture equals cropping the stored picture at `storedWindow` and
    /// then turning it upright, in all eight orientations.
    @Test func storedWindowsMatchUprightWindows() throws {
        let (w, h) = (7, 5)
        let stored = Image(width: w, height: h, format: .gray8, pixels: (0 ..< w * h).map { UInt8($0) })
        let ledger = MemoryLedger()
        for orientation in Orientation.allCases {
            let upright = try orientation.apply(to: stored, ledger: ledger)
            var geometry = ThumbnailGeometry(pictureWidth: upright.width, pictureHeight: upright.height,
                                             box: ThumbnailBox(width: 2, height: 3), fit: .cover, enlarge: true)
            geometry = geometry.positioned(x: 1, y: 1)
            let window = geometry.window
            let expected = (window.y ..< window.y + window.height).map { y in
                upright.withRow(y) { Array($0[window.x ..< window.x + window.width]) }
            }
            let storedWindow = geometry.storedWindow(orientation: orientation, decodedWidth: w, decodedHeight: h)
            var crop = CropSink(window: storedWindow, downstream: ImageBuilder(ledger: ledger))
            try stored.send(to: &crop)
            let turned = try orientation.apply(to: try #require(crop.downstream.image), ledger: ledger)
            let got = (0 ..< turned.height).map { y in turned.withRow(y) { Array($0) } }
            #expect(got == expected, "\(orientation)")
        }
    }

    /// Interlaced placements are cut to the window's columns with their step kept.
    @Test func cropKeepsSteppedPlacements() throws {
        var crop = CropSink(window: PixelRect(x: 3, y: 1, width: 4, height: 2), downstream: ImageBuilder(ledger: MemoryLedger()))
        try crop.begin(RowStreamHeader(width: 10, height: 4, format: .gray8, interlaced: true))
        // Row 1, pixels at x = 1, 3, 5, 7, 9: the window keeps x = 3 and 5.
        let row: [UInt8] = [11, 13, 15, 17, 19]
        try row.withUnsafeBufferPointer { (row) throws(CoreError) in try crop.consume(row, at: RowPlacement(y: 1, xOrigin: 1, xStep: 2, width: 5)) }
        let image = try #require(crop.downstream.image)
        #expect((image.width, image.height) == (4, 2))
        #expect(image.withRow(0) { Array($0) } == [13, 0, 15, 0])
    }

    /// `cover` and `contain` give exactly the box for every orientation of a real photo, and
    /// the plain thumbnail is what it was.
    @Test(arguments: [ThumbnailFit.cover, .contain, .fill])
    func boxesAreExactInEveryOrientation(fit: ThumbnailFit) throws {
        for orientation in Orientation.allCases {
            let source = try ImageSource(path: Corpus.fixtures + "/exif/fx-orientation-\(orientation.rawValue).jpg")
            #expect(try source.properties().orientation == orientation)
            var options = ThumbnailOptions(maxPixelSize: 0)
            options.box = ThumbnailBox(width: 40, height: 30)
            options.fit = fit
            let thumbnail = try source.thumbnail(options: options)
            #expect((thumbnail.image.width, thumbnail.image.height) == (40, 30), "\(orientation)")
        }
    }

    @Test func entropyAndAttentionMoveTheWindowOffCentre() throws {
        // Left half flat gray, right half noise: both measures choose the right.
        let (w, h) = (200, 100)
        var pixels = [UInt8](repeating: 128, count: w * h * 3)
        var state: UInt32 = 1
        for y in 0 ..< h {
            for x in w / 2 ..< w {
                state = state &* 1_664_525 &+ 1_013_904_223
                for c in 0 ..< 3 { pixels[(y * w + x) * 3 + c] = UInt8(truncatingIfNeeded: state >> (8 * UInt32(c) + 8)) }
            }
        }
        let image = Image(width: w, height: h, format: .rgb8, pixels: pixels)
        for crop in [CropPosition.entropy, .attention] {
            let corner = try CropChooser.corner(in: image, width: 100, height: 100, by: crop, ledger: MemoryLedger())
            #expect(corner.x == 100 && corner.y == 0, "\(crop)")
        }
        #expect(try CropChooser.corner(in: image, width: 100, height: 100, by: .centre, ledger: MemoryLedger()) == (50, 0))
        // The helpers the measures rest on.
        #expect(abs(FastMath.log2(0.3) - (-1.736_965_594_166_206)) < 1e-12)
        #expect(abs(FastMath.exp(-2.5) - 0.082_084_998_623_898_8) < 1e-12)
        #expect(abs(FastMath.cubeRoot(0.008) - 0.2) < 1e-12)
    }
}
