import PareCore
import PareEXIF
import Testing
import TestSupport

/// Replays every input under `Fixtures/regressions/exif/` (files the fuzzer once broke the
/// parser with) and the corpus's fuzzed TIFFs the way `Fuzz/exif.swift` runs them: as a
/// JPEG, as a TIFF block in memory and as a TIFF file, then every value accessor on every
/// entry and every embedded image read back. Each read must end in a typed error or in
/// metadata whose offsets lie inside the input.
@Suite struct EXIFRegressionTests {
    /// Runs the accessors and returns what is inconsistent in `metadata`.
    static func check(_ metadata: EXIFMetadata, source: MemoryByteSource, label: String) -> [String] {
        var problems: [String] = []
        for ifd in metadata.ifds {
            for entry in ifd.entries {
                for i in 0 ..< min(entry.valueCount, 4) {
                    _ = entry.integer(at: i)
                    _ = entry.rational(at: i)
                    _ = entry.double(at: i)
                }
                if entry.integer(at: entry.valueCount) != nil || entry.integer(at: -1) != nil {
                    problems.append("\(label): \(ifd.name) tag \(entry.tag) reads past its count")
                }
                _ = entry.string
            }
        }
        if let thumbnail = metadata.thumbnail {
            do {
                let bytes = try thumbnail.bytes(from: source)
                if bytes.count != thumbnail.length { problems.append("\(label): thumbnail length") }
            } catch {
                problems.append("\(label): thumbnail at \(thumbnail.offset)+\(thumbnail.length) is outside the input")
            }
        }
        return problems
    }

    /// Reads `bytes` three ways; returns broken promises and how many reads threw.
    static func replay(_ bytes: [UInt8]) -> (problems: [String], errors: Int) {
        let source = MemoryByteSource(bytes)
        var problems: [String] = []
        var errors = 0
        do {
            let jpeg = try EXIFReader.readJPEG(source)
            if let exif = jpeg.exif { problems += check(exif, source: source, label: "readJPEG") }
            for entry in jpeg.mpf {
                _ = entry.kind.name
                _ = try? entry.image.bytes(from: source)
            }
            if let thumbnail = jpeg.jfxxThumbnail, (try? thumbnail.bytes(from: source)) == nil {
                problems.append("readJPEG: JFXX thumbnail outside the input")
            }
        } catch {
            #expect(error.description.hasPrefix("EXIF"), "\(error)")
            errors += 1
        }
        do {
            problems += check(try EXIFReader.readTIFF(bytes, baseOffset: 0), source: source, label: "readTIFF")
        } catch {
            #expect(error.description.hasPrefix("EXIF"), "\(error)")
            errors += 1
        }
        do {
            problems += check(try EXIFReader.readTIFFFile(source), source: source, label: "readTIFFFile")
        } catch {
            #expect(error.description.hasPrefix("EXIF"), "\(error)")
            errors += 1
        }
        return (problems, errors)
    }

    @Test func everyFuzzRegressionEndsInATypedErrorOrMetadata() throws {
        let inputs = Regressions.inputs("exif")
        try #require(!inputs.isEmpty, "no inputs in \(Regressions.folder("exif"))")
        for input in inputs {
            let result = Self.replay(input.bytes)
            #expect(result.problems.isEmpty, "\(input.name): \(result.problems)")
        }
    }

    @Test(.requiresCorpus) func corpusFuzzedTIFFsEndInATypedErrorOrMetadata() throws {
        let root = Corpus.path
        let names = FileSystem.list(root + "/exif/malformed")
        #expect(names.count == 7)
        for name in names {
            let bytes = try #require(FileSystem.read(root + "/exif/malformed/" + name))
            let result = Self.replay(bytes)
            #expect(result.problems.isEmpty, "\(name): \(result.problems)")
        }
    }

    // The marker walk's budgets hold for the whole walk. Per run of stray bytes, a standalone
    // marker every 65,000 bytes restarted the count, and each of 64 MPF images walked the
    // whole file one byte per read: a 4 MiB file took 18 s.

    /// SOI, `junk`, then a 16×8 SOF0.
    static func stream(after junk: [UInt8]) -> [UInt8] {
        [0xFF, 0xD8] + junk + [0xFF, 0xC0, 0, 11, 8, 0, 8, 0, 16, 1, 1, 0x11, 0]
    }

    /// A JPEG whose APP2 MPF index lists `count` images, all at `image` (appended after EOI).
    static func mpfFile(images count: Int, image: [UInt8]) -> [UInt8] {
        func le32(_ v: Int) -> [UInt8] { (0 ..< 4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let entriesAt = 8 + 2 + 12 + 4
        var tiff: [UInt8] = [0x49, 0x49, 42, 0] + le32(8) + [1, 0, 0x02, 0xB0, 7, 0] + le32(count * 16)
        tiff += le32(entriesAt) + le32(0)
        let segmentLength = 2 + 4 + tiff.count + count * 16
        let imageAt = 2 + 2 + segmentLength + 2
        for _ in 0 ..< count {
            tiff += le32(0x020002) + le32(image.count) + le32(imageAt - 10) + [0, 0, 0, 0]
        }
        let segment: [UInt8] = [0xFF, 0xE2, UInt8(segmentLength >> 8), UInt8(segmentLength & 0xFF)]
            + Array("MPF".utf8) + [0] + tiff
        return [0xFF, 0xD8] + segment + [0xFF, 0xD9] + image
    }

    @Test func strayBytesAreBudgetedForTheWholeWalkNotPerRun() throws {
        // 80,000 stray bytes in runs of 999, each run ended by the standalone marker FF01.
        let run = [UInt8](repeating: 0, count: 999) + [0xFF, 0x01]
        let junk = Array([[UInt8]](repeating: run, count: 80).joined())
        let file = Self.mpfFile(images: 64, image: Self.stream(after: junk))
        let metadata = try EXIFReader.readJPEG(MemoryByteSource(file))
        #expect(metadata.mpf.count == 64)
        #expect(metadata.mpf.allSatisfy { $0.width == nil })
        #expect(metadata.warnings.contains(.badMPF(offset: metadata.mpf[0].offset,
                                                   reason: "image 1 has no readable JPEG frame header")))

        var options = EXIFOptions()
        options.maxStrayBytes = 1 << 17
        let raised = try EXIFReader.readJPEG(MemoryByteSource(file), options: options)
        #expect(raised.mpf.allSatisfy { $0.width == 16 && $0.height == 8 })
    }

    @Test func fillBytesSpendTheStrayByteBudget() throws {
        let padded = Self.stream(after: [UInt8](repeating: 0xFF, count: 70_000))
        let metadata = try EXIFReader.readJPEG(MemoryByteSource(padded))
        #expect(metadata.width == nil)
        // The warning names where the bytes without a marker start, and the budget.
        #expect(metadata.warnings == [.strayBytes(offset: 2, count: 65536)])

        var options = EXIFOptions()
        options.maxStrayBytes = 70_000
        #expect(try EXIFReader.readJPEG(MemoryByteSource(padded), options: options).width == 16)
    }

    @Test func segmentsBeforeSOSAreLimited() throws {
        // 5,000 empty COM segments before the SOF.
        let comments = Array([[UInt8]](repeating: [0xFF, 0xFE, 0, 2], count: 5000).joined())
        let file = Self.stream(after: comments)
        let metadata = try EXIFReader.readJPEG(MemoryByteSource(file))
        #expect(metadata.width == nil)
        #expect(metadata.warnings == [.tooManySegments(offset: 2 + 4096 * 4, limit: 4096)])
        #expect(EXIFError.tooManySegments(offset: 16386, limit: 4096).description
            == "EXIF: JPEG segment count before SOS exceeds the limit 4096 at byte 16386")

        var options = EXIFOptions()
        options.maxSegments = 5001
        let raised = try EXIFReader.readJPEG(MemoryByteSource(file), options: options)
        #expect(raised.width == 16 && raised.height == 8 && raised.warnings.isEmpty)
    }
}
