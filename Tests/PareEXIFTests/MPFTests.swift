import Foundation
import PareCore
import PareEXIF
import Testing
import TestSupport

/// MPF (CIPA DC-007) on the corpus's MPF photos and the committed fixtures. The expected
/// entries are ExifTool 12.57's reading (`exiftool -a -G1 -n -MPF:all`, whose MPImageStart
/// is absolute); widths and heights are those djpeg reports for each embedded stream.
@Suite struct MPFTests {
    struct Expected {
        let attribute: UInt32
        let offset: Int
        let length: Int
        let kind: MPFImageKind
    }

    static func read(_ path: String) -> (bytes: [UInt8], metadata: JPEGMetadata)? {
        guard let bytes = FileSystem.read(path), let metadata = try? EXIFReader.readJPEG(MemoryByteSource(bytes)) else {
            return nil
        }
        return (bytes, metadata)
    }

    func check(_ path: String, _ expected: [Expected], sizes: [(Int, Int)]) {
        guard let (bytes, metadata) = Self.read(path) else {
            Issue.record("cannot read \(path)")
            return
        }
        #expect(metadata.mpf.count == expected.count)
        for (entry, want) in zip(metadata.mpf, expected) {
            #expect(entry.attribute == want.attribute)
            #expect(entry.offset == want.offset)
            #expect(entry.length == want.length)
            #expect(entry.kind == want.kind)
            // Each entry's bytes are a complete JPEG stream: SOI first, EOI last.
            let image = try? entry.image.bytes(from: MemoryByteSource(bytes))
            #expect(image?.prefix(2).elementsEqual([0xFF, 0xD8]) == true)
            #expect(image?.suffix(2).elementsEqual([0xFF, 0xD9]) == true)
        }
        #expect(metadata.mpf.map { $0.width ?? -1 } == sizes.map { $0.0 })
        #expect(metadata.mpf.map { $0.height ?? -1 } == sizes.map { $0.1 })
        #expect(metadata.mpfIndex?.entry(0xB001)?.integer() == Int64(expected.count))
    }

    @Test(.requiresCorpus) func panasonicLargeThumbnail() throws {
        let root = Corpus.path
        check("\(root)/exif/cameras/Panasonic_Lumix_DMC-LX7.jpg", [
            Expected(attribute: 0x8003_0000, offset: 0, length: 3_428_371, kind: .baselinePrimary),
            Expected(attribute: 0x4001_0002, offset: 3_428_864, length: 718_934, kind: .largeThumbnailFullHD),
        ], sizes: [(3648, 2736), (1440, 1080)])
        let metadata = try #require(Self.read("\(root)/exif/cameras/Panasonic_Lumix_DMC-LX7.jpg")?.metadata)
        let flags = metadata.mpf[0].flags
        #expect(flags.dependentParent && !flags.dependentChild && !flags.representative)
        #expect(metadata.mpf[0].dependentImage1 == 2)
        #expect(metadata.mpf[1].flags.dependentChild)
    }

    @Test(.requiresCorpus) func nintendoStereoPair() {
        let root = Corpus.path
        check("\(root)/exif/cameras/Nintendo_3DS_frozenpond.jpg", [
            Expected(attribute: 0x2002_0002, offset: 0, length: 82451, kind: .disparity),
            Expected(attribute: 0x0002_0002, offset: 82452, length: 83757, kind: .disparity),
        ], sizes: [(640, 480), (640, 480)])
    }

    @Test(.requiresCorpus) func singleImageIndex() {
        let root = Corpus.path
        check("\(root)/exif/edge/exifpy-45-gps_ifd.jpg", [
            Expected(attribute: 0x2003_0000, offset: 0, length: 230_349, kind: .baselinePrimary),
        ], sizes: [(1600, 900)])
    }

    /// The fixtures' JSON lists every MP entry (`MPImage<k>:*`): compare all of them.
    @Test func fixturesBothByteOrders() throws {
        for name in ["fx-mpf", "fx-mpf-MM"] {
            // Committed fixtures: a missing or unreadable one fails, it is not skipped.
            let path = Corpus.fixtures + "/exif/\(name).jpg"
            let (_, metadata) = try #require(Self.read(path), "\(path) does not read")
            let ref = try #require(EXIFConformanceTests.reference(Corpus.fixtures + "/exif/\(name).json"))
            #expect(metadata.mpf.count == ref["MPF0:NumberOfImages"] as? Int)
            for entry in metadata.mpf {
                let group = "MPImage\(entry.index + 1):"
                #expect(Int(entry.attribute >> 27) == ref[group + "MPImageFlags"] as? Int)
                #expect(Int(entry.typeCode) == ref[group + "MPImageType"] as? Int)
                #expect(entry.offset == ref[group + "MPImageStart"] as? Int)
                #expect(entry.length == ref[group + "MPImageLength"] as? Int)
                #expect(entry.width != nil && entry.height != nil)
            }
            #expect(metadata.mpf.first?.kind == .baselinePrimary)
            #expect(metadata.mpf.last?.kind.isLargeThumbnail == true)
        }
    }
}
