import PareCore
import PareJPEG
import TestSupport
import Testing
@testable import Pare

/// The one-call path from an `ImageSource` to a thumbnail file, and the Netpbm reader.
@Suite struct EncodedThumbnailTests {
    static let sample = "Fixtures/sample.jpg"

    @Test(arguments: ImageFileFormat.allCases)
    func sampleThumbnailInEachFormat(_ format: ImageFileFormat) throws {
        let source = try ImageSource(path: Self.sample)
        let encoded = try source.encodedThumbnail(options: ThumbnailOptions(maxPixelSize: 256), format: format)
        #expect(encoded.thumbnail.image.width == 256 && encoded.thumbnail.image.height == 192)
        switch format {
        case .jpeg:
            #expect(Array(encoded.bytes.prefix(3)) == [0xFF, 0xD8, 0xFF])
            var decoder = try JPEGDecoder(source: MemoryByteSource(encoded.bytes), ledger: MemoryLedger())
            #expect(decoder.info.width == 256 && decoder.info.height == 192)
            var builder = ImageBuilder(ledger: MemoryLedger())
            try decoder.decode(scale: .full, into: &builder)
            #expect(decoder.warnings.isEmpty)
        case .png:
            #expect(Array(encoded.bytes.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        case .netpbm:
            #expect(Array(encoded.bytes.prefix(2)) == Array("P6".utf8))
            #expect(encoded.bytes.count == 15 + 256 * 192 * 3)
        }
    }

    /// JPEG has no alpha: a transparent image is written composited over the background
    /// (white unless told), not as the colour its transparent pixels happen to hold.
    @Test func jpegOfAnImageWithAlphaShowsTheBackground() throws {
        // 16 × 16: the left half transparent black, the right half opaque blue.
        var pixels: [UInt8] = []
        for _ in 0 ..< 16 {
            for x in 0 ..< 16 { pixels += x < 8 ? [0, 0, 0, 0] : [0, 0, 255, 255] }
        }
        let image = Image(width: 16, height: 16, format: .rgba8, pixels: pixels)
        func decoded(_ background: BackgroundColour) throws -> Image {
            let bytes = try ImageEncoding.encode(image, as: .jpeg, jpeg: JPEGEncoderOptions(quality: 95, sampling: .s444),
                                                 background: background)
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
            var builder = ImageBuilder(ledger: MemoryLedger())
            try decoder.decode(scale: .full, into: &builder)
            return try #require(builder.image)
        }
        let white = try decoded(.white), orange = try decoded(BackgroundColour(red: 255, green: 128, blue: 0))
        #expect(white.format == .rgb8)
        // Far from the edge between the halves (columns 1 and 14), within JPEG's error.
        func near(_ image: Image, _ x: Int, _ rgb: [Int]) -> Bool {
            (0 ..< 3).allSatisfy { abs(Int(image.row(8)[x * 3 + $0]) - rgb[$0]) <= 6 }
        }
        #expect(near(white, 1, [255, 255, 255]) && near(white, 14, [0, 0, 255]))
        #expect(near(orange, 1, [255, 128, 0]) && near(orange, 14, [0, 0, 255]))
    }

    @Test func formatsFromFileNames() {
        #expect(ImageFileFormat(fileName: "a/b.JPG") == .jpeg)
        #expect(ImageFileFormat(fileName: "b.jpeg") == .jpeg)
        #expect(ImageFileFormat(fileName: "b.png") == .png)
        #expect(ImageFileFormat(fileName: "b.pgm") == .netpbm)
        #expect(ImageFileFormat(fileName: "b.gif") == nil)
        #expect(ImageFileFormat.netpbm.fileExtension(for: .gray8) == "pgm")
    }

    struct Collector: RowSink {
        var header: RowStreamHeader?
        var rows: [[UInt8]] = []
        mutating func begin(_ header: RowStreamHeader) throws(CoreError) { self.header = header }
        mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) { rows.append(Array(row)) }
    }

    static func read(_ text: String, _ pixels: [UInt8]) throws -> Collector {
        let decoder = try NetpbmDecoder(source: MemoryByteSource(Array(text.utf8) + pixels), ledger: MemoryLedger())
        var sink = Collector()
        try decoder.decode(into: &sink)
        return sink
    }

    @Test func netpbmVariants() throws {
        let gray = try Self.read("P5\n# a comment\n2 2\n255\n", [1, 2, 3, 4])
        #expect(gray.header?.format == .gray8 && gray.rows == [[1, 2], [3, 4]])
        let rgb = try Self.read("P6 1 1 255\n", [9, 8, 7])
        #expect(rgb.header?.format == .rgb8 && rgb.rows == [[9, 8, 7]])
        // MAXVAL 65535 rounds to 8 bits: 0x8080 → 128, 0xFFFF → 255.
        let wide = try Self.read("P5\n2 1\n65535\n", [0x80, 0x80, 0xFF, 0xFF])
        #expect(wide.rows == [[128, 255]])
        // MAXVAL 15 scales up: 15 → 255, 7 → 119.
        #expect(try Self.read("P5\n2 1\n15\n", [15, 7]).rows == [[255, 119]])
        let pam = try Self.read("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n", [1, 2, 3, 4])
        #expect(pam.header?.format == .rgba8 && pam.rows == [[1, 2, 3, 4]])
        #expect(throws: PareError.self) { try Self.read("P5\n2 2\n255\n", [1, 2, 3]) }
        #expect(throws: PareError.self) { try Self.read("P3\n1 1\n255\n1 2 3\n", []) }
        #expect(throws: PareError.self) { try Self.read("P5\n0 2\n255\n", []) }
    }
}
