import Foundation
import PareCore
import PareEXIF
import Testing
import TestSupport

/// Every JPEG, PNG and TIFF under the corpus's exif/ (plus PngSuite's exif2c08.png and
/// Fixtures/exif) against ExifTool's reading of it (`exif/ref/<stem>.json`).
@Suite struct EXIFConformanceTests {
    struct Input {
        let path: String
        let stem: String
        let refFolder: String
    }

    /// What a file gives, whatever its container.
    struct Reading {
        var metadata: EXIFMetadata?
        var jpeg: JPEGMetadata?
        /// ExifTool reports PNG thumbnail offsets relative to the TIFF header.
        var offsetsRelative = false
        var error: EXIFError?
    }

    /// The corpus's exif/ folders and PngSuite's exif2c08.png, with the references in exif/ref.
    static func corpusInputs() -> [Input] {
        let root = Corpus.path
        var result: [Input] = []
        for folder in ["cameras", "edge", "orientation", "png", "tiff", "malformed"] {
            for name in FileSystem.list("\(root)/exif/\(folder)") {
                result.append(Input(path: "\(root)/exif/\(folder)/\(name)", stem: stem(name), refFolder: "\(root)/exif/ref"))
            }
        }
        result.append(Input(path: "\(root)/png/pngsuite/exif2c08.png", stem: "exif2c08", refFolder: "\(root)/exif/ref"))
        return result
    }

    /// Fixtures/exif, each file with its reference beside it.
    static func fixtureInputs() -> [Input] {
        let fixtures = Corpus.fixtures + "/exif"
        var result: [Input] = []
        for name in FileSystem.list(fixtures) where name.hasSuffix(".jpg") && !name.hasSuffix(".thumb.jpg") {
            result.append(Input(path: "\(fixtures)/\(name)", stem: stem(name), refFolder: fixtures))
        }
        return result
    }

    static func stem(_ name: String) -> String {
        String(name[..<(name.lastIndex(of: ".") ?? name.endIndex)])
    }

    static func read(_ bytes: [UInt8]) -> Reading {
        var reading = Reading()
        do throws(EXIFError) {
            if bytes.starts(with: [0xFF, 0xD8]) {
                let jpeg = try EXIFReader.readJPEG(MemoryByteSource(bytes))
                reading.jpeg = jpeg
                reading.metadata = jpeg.exif
            } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
                guard let chunk = PNGChunks.eXIf(bytes) else { return reading }
                reading.offsetsRelative = true
                reading.metadata = try EXIFReader.readTIFF(Array(bytes[chunk.offset ..< chunk.offset + chunk.length]),
                                                           baseOffset: chunk.offset)
            } else {
                reading.metadata = try EXIFReader.readTIFFFile(MemoryByteSource(bytes))
            }
        } catch {
            reading.error = error
        }
        return reading
    }

    static func reference(_ path: String) -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: path),
              let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return nil }
        return list.first
    }

    /// The compared values as text, so that numbers and strings compare alike; nil is "absent".
    static func ours(_ reading: Reading, _ key: String) -> String? {
        guard let m = reading.metadata else { return nil }
        let ifd1 = m.ifd("IFD1")
        switch key {
        case "IFD0:Orientation": return m.rawOrientation.map { "\($0)" }
        case "IFD1:ThumbnailOffset":
            guard let raw = ifd1?.entry(0x0201)?.integer() else { return nil }
            return "\(reading.offsetsRelative ? raw : raw + Int64(m.tiffHeaderOffset))"
        case "IFD1:ThumbnailLength": return ifd1?.entry(0x0202)?.integer().map { "\($0)" }
        case "IFD0:Make": return m.make
        case "IFD0:Model": return m.model
        case "ExifIFD:DateTimeOriginal": return m.dateTimeOriginal
        case "ExifIFD:ExifImageWidth": return m.pixelWidth.map { "\($0)" }
        case "ExifIFD:ExifImageHeight": return m.pixelHeight.map { "\($0)" }
        case "File:ExifByteOrder": return m.byteOrder == .littleEndian ? "II" : "MM"
        default: return nil
        }
    }

    static func text(_ value: Any?) -> String? {
        switch value {
        case nil: return nil
        case let s as String: return s
        case let n as NSNumber: return n.stringValue
        default: return "\(value!)"
        }
    }

    static let keys = ["IFD0:Orientation", "IFD1:ThumbnailOffset", "IFD1:ThumbnailLength", "IFD0:Make", "IFD0:Model",
                       "ExifIFD:DateTimeOriginal", "ExifIFD:ExifImageWidth", "ExifIFD:ExifImageHeight"]

    @Test(.requiresCorpus) func corpusAgreesWithExifTool() throws {
        let inputs = Self.corpusInputs()
        #expect(inputs.count == 80)
        try Self.agree(inputs, label: "corpus")
    }

    @Test func fixturesAgreeWithExifTool() throws {
        let inputs = Self.fixtureInputs()
        #expect(inputs.count >= 13)
        try Self.agree(inputs, label: "Fixtures")
    }

    /// Compares `keys`, the byte order, the thumbnail and the MPF image count of every input
    /// with its ExifTool reference.
    static func agree(_ inputs: [Input], label: String) throws {
        var disagreements: [String] = []
        var files = 0, fields = 0, agreeing = 0, thumbnails = 0, byteOrders = 0, mpfFiles = 0, uncompressed = 0
        for input in inputs {
            guard let bytes = FileSystem.read(input.path), let ref = Self.reference("\(input.refFolder)/\(input.stem).json") else {
                disagreements.append("\(input.stem): unreadable file or reference")
                continue
            }
            files += 1
            let reading = Self.read(bytes)
            for key in Self.keys {
                fields += 1
                let theirs = Self.text(ref[key]), mine = Self.ours(reading, key)
                if theirs == mine {
                    agreeing += 1
                } else {
                    disagreements.append("\(input.stem) \(key): exiftool \(theirs ?? "-"), pare \(mine ?? "-") \(reading.error.map { "\($0)" } ?? "")")
                }
            }
            if let order = Self.text(ref["File:ExifByteOrder"]), reading.metadata != nil {
                if order == Self.ours(reading, "File:ExifByteOrder") { byteOrders += 1 }
                else { disagreements.append("\(input.stem): byte order \(order)") }
            }
            // The thumbnail exiftool extracts: IFD1, or a JFXX APP0 where IFD1 has none.
            let thumbPath = "\(input.refFolder)/\(input.stem).thumb.jpg"
            let image = reading.metadata?.thumbnail ?? reading.jpeg?.jfxxThumbnail
            if let expected = FileSystem.read(thumbPath) {
                let source = MemoryByteSource(bytes)
                if let image, let got = try? image.bytes(from: source), got == expected {
                    thumbnails += 1
                    if let width = image.width, let height = image.height {
                        #expect(width > 0 && height > 0)
                    } else {
                        disagreements.append("\(input.stem): thumbnail has no frame size")
                    }
                } else {
                    disagreements.append("\(input.stem): thumbnail bytes differ from \(input.stem).thumb.jpg")
                }
            } else if let image = reading.metadata?.thumbnail {
                // exiftool extracts only JPEG thumbnails; an uncompressed IFD1 strip must
                // match IFD1's ImageWidth × ImageHeight × 3 and exiftool's (absolute) StripOffsets.
                if image.encoding == .uncompressed, let w = image.width, let h = image.height, w * h * 3 == image.length,
                   Self.text(ref["IFD1:StripOffsets"]).flatMap({ Int($0) }) == image.offset {
                    uncompressed += 1
                } else {
                    disagreements.append("\(input.stem): thumbnail at \(image.offset) that exiftool does not extract")
                }
            }
            if let count = ref["MPF0:NumberOfImages"] as? Int {
                mpfFiles += 1
                if reading.jpeg?.mpf.count != count {
                    disagreements.append("\(input.stem): \(reading.jpeg?.mpf.count ?? 0) MPF images, exiftool \(count)")
                }
            }
        }
        let thumbFiles = inputs.filter { FileSystem.exists("\($0.refFolder)/\($0.stem).thumb.jpg") }.count
        print("EXIF conformance (\(label)): \(files) files, \(agreeing)/\(fields) fields agree with exiftool, "
            + "\(thumbnails)/\(thumbFiles) thumbnails byte-identical, \(uncompressed) uncompressed IFD1 thumbnails, \(byteOrders) byte orders, \(mpfFiles) MPF files")
        for line in disagreements { print("  disagree: \(line)") }
        #expect(disagreements.isEmpty)
        #expect(files == inputs.count)
        // Every key of every file was compared.
        #expect(fields == inputs.count * Self.keys.count)
    }
}

/// A tiny PNG chunk walk for the tests (PNG §5.3): the eXIf chunk's data and its offset.
enum PNGChunks {
    static func eXIf(_ bytes: [UInt8]) -> (offset: Int, length: Int)? {
        var at = 8
        while at + 12 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            let type = String(decoding: bytes[at + 4 ..< at + 8], as: UTF8.self)
            guard length <= bytes.count - at - 12 else { return nil }
            if type == "eXIf" { return (at + 8, length) }
            if type == "IEND" { return nil }
            at += 12 + length
        }
        return nil
    }
}
