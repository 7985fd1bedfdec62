import Testing
import PareCore

@Suite struct OrientationTests {
    /// The stored picture, 3 × 2:
    ///
    ///     1 2 3
    ///     4 5 6
    ///
    /// and what each EXIF orientation makes of it, upright.
    static let expected: [(Orientation, Int, Int, [UInt8])] = [
        (.up, 3, 2, [1, 2, 3, 4, 5, 6]),
        (.upMirrored, 3, 2, [3, 2, 1, 6, 5, 4]),
        (.down, 3, 2, [6, 5, 4, 3, 2, 1]),
        (.downMirrored, 3, 2, [4, 5, 6, 1, 2, 3]),
        (.leftMirrored, 2, 3, [1, 4, 2, 5, 3, 6]),
        (.right, 2, 3, [4, 1, 5, 2, 6, 3]),
        (.rightMirrored, 2, 3, [6, 3, 5, 2, 4, 1]),
        (.left, 2, 3, [3, 6, 2, 5, 1, 4]),
    ]

    private func image(_ values: [UInt8], format: PixelFormat, ledger: MemoryLedger) throws -> Image {
        var image = try Image(width: 3, height: 2, format: format)
        let bpp = format.bytesPerPixel
        for (i, v) in values.enumerated() {
            // Each channel of a pixel differs, so that a pixel copied in pieces would show.
            image.withMutableRow(i / 3) { row in for c in 0 ..< bpp { row[(i % 3) * bpp + c] = v &+ UInt8(c * 10) } }
        }
        return image
    }

    /// Every pixel size (1, 2, 3, 4, 6 and 8 bytes), each copied its own way.
    @Test(arguments: [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8, .gray16, .grayAlpha16, .rgb16, .rgba16, .cmyk8])
    func everyOrientationGivesTheUprightPixels(format: PixelFormat) throws {
        let ledger = MemoryLedger()
        let stored = try image([1, 2, 3, 4, 5, 6], format: format, ledger: ledger)
        #expect(Self.expected.count == Orientation.allCases.count)
        for (orientation, width, height, pixels) in Self.expected {
            let upright = try orientation.apply(to: stored, ledger: ledger)
            #expect(upright.width == width && upright.height == height && upright.format == format)
            let bpp = format.bytesPerPixel
            let expectedBytes = pixels.flatMap { v in (0 ..< bpp).map { v &+ UInt8($0 * 10) } }
            #expect(upright.pixels == expectedBytes, "\(orientation)")
        }
    }

    @Test func orientedSizeMatchesTheTransform() throws {
        let ledger = MemoryLedger()
        let stored = try Image(width: 5, height: 3, format: .rgb8)
        for orientation in Orientation.allCases {
            let upright = try orientation.apply(to: stored, ledger: ledger)
            let size = orientation.orientedSize(width: 5, height: 3)
            #expect(upright.width == size.width && upright.height == size.height, "\(orientation)")
            #expect(orientation.swapsDimensions == (size.width == 3))
        }
        #expect(try Orientation.up.apply(to: stored, ledger: ledger) == stored)
        #expect(ledger.currentBytes == 0)
    }

    /// Undoing: turning by 6 then by 8 (or mirroring twice) gives the stored picture back.
    @Test func inversePairsCancel() throws {
        let ledger = MemoryLedger()
        let stored = try image([1, 2, 3, 4, 5, 6], format: .rgb8, ledger: ledger)
        let pairs: [(Orientation, Orientation)] = [
            (.right, .left), (.down, .down), (.upMirrored, .upMirrored), (.downMirrored, .downMirrored),
            (.leftMirrored, .leftMirrored), (.rightMirrored, .rightMirrored),
        ]
        for (a, b) in pairs {
            let back = try b.apply(to: try a.apply(to: stored, ledger: ledger), ledger: ledger)
            #expect(back.width == 3 && back.height == 2 && back.pixels == stored.pixels, "\(a) then \(b)")
        }
    }

    /// `flipsStoredAxes` against the transform itself: where stored pixels (0, 0), (1, 0)
    /// and (0, 1) land says whether each stored axis runs forwards or backwards upright.
    @Test func flippedAxesMatchTheTransform() throws {
        let stored = Image(width: 3, height: 2, format: .gray8, pixels: [1, 2, 3, 4, 5, 6])
        for orientation in Orientation.allCases {
            let upright = try orientation.apply(to: stored, ledger: MemoryLedger())
            func position(_ value: UInt8) -> (x: Int, y: Int) {
                let i = upright.pixels.firstIndex(of: value)!
                return (i % upright.width, i / upright.width)
            }
            let origin = position(1), nextColumn = position(2), nextRow = position(4)
            let forwardX = nextColumn.x - origin.x + nextColumn.y - origin.y == 1
            let forwardY = nextRow.x - origin.x + nextRow.y - origin.y == 1
            #expect(orientation.flipsStoredAxes == (!forwardX, !forwardY), "\(orientation)")
        }
    }

    @Test func allocatesThroughTheLedger() throws {
        let ledger = MemoryLedger(limit: 20)
        let stored = try ImageBuffer(width: 4, height: 4, format: .gray8, ledger: ledger)
        #expect(throws: CoreError.self) { _ = try Orientation.right.apply(to: stored.image, ledger: ledger) }
        let alone = MemoryLedger(limit: 16)
        _ = try Orientation.right.apply(to: stored.image, ledger: alone)
        // Counted while it was made; the returned image is the caller's.
        #expect(alone.peakBytes == 16 && alone.currentBytes == 0)
    }
}
