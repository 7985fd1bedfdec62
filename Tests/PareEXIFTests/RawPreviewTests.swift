import PareCore
import PareEXIF
import Testing
import TestSupport

/// RAW previews against exiftool: every PreviewImage, JpgFromRaw, OtherImage and
/// ThumbnailImage that `exiftool -b` extracts from Fixtures/raw (ExifTool's own tiny RAW
/// test files, and skeletons, with previews written by ExifTool; see
/// Fixtures/make-raw-fixtures.py) is found, byte for byte, with its size and kind.
@Suite struct RawPreviewTests {
    struct Expected {
        var file: String
        var tag: String
        var length: Int
        var width: Int
        var height: Int
        var digest: UInt64
    }

    static var folder: String { Corpus.fixtures + "/raw" }

    static func expected() -> (previews: [Expected], orientations: [String: Int]) {
        guard let bytes = FileSystem.read(folder + "/expected.txt") else { return ([], [:]) }
        var previews: [Expected] = []
        var orientations: [String: Int] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let f = line.split(separator: " ").map(String.init)
            if f.count == 3, f[1] == "orientation" {
                orientations[f[0]] = Int(f[2])
            } else if f.count == 6, let length = Int(f[2]), let w = Int(f[3]), let h = Int(f[4]),
                      let digest = UInt64(f[5], radix: 16) {
                previews.append(Expected(file: f[0], tag: f[1], length: length, width: w, height: h, digest: digest))
            }
        }
        return (previews, orientations)
    }

    static func kind(_ tag: String) -> RawPreviewKind? {
        switch tag {
        case "PreviewImage": return .preview
        case "JpgFromRaw": return .jpgFromRaw
        case "OtherImage": return .other
        case "ThumbnailImage": return .thumbnail
        default: return nil
        }
    }

    @Test func everyPreviewExiftoolExtractsIsFoundByteForByte() throws {
        let (expected, orientations) = Self.expected()
        #expect(expected.count == 12)
        #expect(orientations.count == 8)
        var matched = 0
        for (file, orientation) in orientations.sorted(by: { $0.key < $1.key }) {
            let bytes = try #require(FileSystem.read(Self.folder + "/" + file))
            let source = MemoryByteSource(bytes)
            let result = try EXIFReader.readRawPreviews(source)
            #expect((result.rawOrientation ?? 0) == orientation, "\(file)")
            let wanted = expected.filter { $0.file == file }
            // Nothing but what exiftool extracts.
            #expect(result.previews.count == wanted.count, "\(file): \(result.previews)")
            for item in wanted {
                let hit = result.previews.first { preview in
                    preview.length == item.length && (try? preview.bytes(from: source)).map(fnv1a64) == item.digest
                }
                #expect(hit != nil, "\(file) \(item.tag) not found")
                if let hit {
                    #expect(hit.width == item.width && hit.height == item.height, "\(file) \(item.tag)")
                    #expect(hit.kind == Self.kind(item.tag), "\(file) \(item.tag): \(hit.kind)")
                    matched += 1
                }
            }
        }
        #expect(matched == 12)
    }

    @Test func formatsAreToldApart() throws {
        let formats: [(String, RawFormat)] = [("x-CanonRaw.cr2", .cr2), ("x-DNG.dng", .dng), ("x-Nikon.nef", .nef),
                                              ("x-Panasonic.rw2", .rw2), ("s-olympus.orf", .orf), ("s-pentax.pef", .pef),
                                              ("s-sony.arw", .arw), ("s-samsung.srw", .srw)]
        for (file, format) in formats {
            let bytes = try #require(FileSystem.read(Self.folder + "/" + file))
            #expect(try EXIFReader.readRawPreviews(MemoryByteSource(bytes)).format == format, "\(file)")
        }
    }

    @Test func theLargestIsTheFullSizeJPEG() throws {
        let bytes = try #require(FileSystem.read(Self.folder + "/x-Nikon.nef"))
        let result = try EXIFReader.readRawPreviews(MemoryByteSource(bytes))
        #expect(result.largest?.kind == .jpgFromRaw)
        #expect(result.largest?.width == 360)
        let preview = try #require(result.previews.first { $0.kind == .preview })
        #expect(preview.ifd == "PreviewIFD")
        #expect(preview.tag == 0x0201)
    }

    @Test func aPreviewPastTheEndIsAWarningNotAnError() throws {
        let bytes = try #require(FileSystem.read(Self.folder + "/x-DNG.dng"))
        let whole = try EXIFReader.readRawPreviews(MemoryByteSource(bytes))
        let last = try #require(whole.previews.max { $0.offset < $1.offset })
        let cut = Array(bytes.prefix(last.offset + last.length / 2))
        let result = try EXIFReader.readRawPreviews(MemoryByteSource(cut))
        #expect(result.previews.count == whole.previews.count - 1)
        #expect(result.warnings.contains { if case .valueOutOfBounds = $0 { return true } else { return false } })
    }

    @Test func damagedInputsThrowTypedErrorsOrFindNothing() throws {
        #expect(throws: EXIFError.notTIFF(offset: 0)) {
            _ = try EXIFReader.readRawPreviews(MemoryByteSource(Array("GIF89a..".utf8)))
        }
        #expect(throws: EXIFError.badMagic(offset: 2, value: 0x55AA)) {
            _ = try EXIFReader.readRawPreviews(MemoryByteSource([0x49, 0x49, 0xAA, 0x55, 8, 0, 0, 0]))
        }
        // Every cut of a file either throws a typed error or lists only previews inside it.
        let bytes = try #require(FileSystem.read(Self.folder + "/s-olympus.orf"))
        for length in stride(from: 0, to: bytes.count, by: 97) {
            let cut = Array(bytes.prefix(length))
            if let result = try? EXIFReader.readRawPreviews(MemoryByteSource(cut)) {
                #expect(result.previews.allSatisfy { $0.offset + $0.length <= length })
            }
        }
    }
}
