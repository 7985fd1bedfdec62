import PareCore
import ParePNG
import Testing
import TestSupport

/// The corpus's PNGs (PngSuite, png/extra, exif/png) against their PAM references, and
/// every corrupt file rejected with a typed error.
@Suite struct PNGConformanceTests {
    static var validFiles: [String] {
        let root = Corpus.path
        var files: [String] = []
        for folder in ["png/pngsuite", "png/extra", "exif/png"] {
            for name in FileSystem.list(root + "/" + folder) where name.hasSuffix(".png") {
                if folder == "png/pngsuite" && name.hasPrefix("x") { continue }
                files.append(root + "/" + folder + "/" + name)
            }
        }
        return files
    }

    static var corruptFiles: [String] {
        let root = Corpus.path
        let suite = FileSystem.list(root + "/png/pngsuite").filter { $0.hasPrefix("x") && $0.hasSuffix(".png") }
            .map { root + "/png/pngsuite/" + $0 }
        let malformed = FileSystem.list(root + "/png/malformed").filter { $0.hasSuffix(".png") }
            .map { root + "/png/malformed/" + $0 }
        return suite + malformed
    }

    static func stem(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return String(name.dropLast(4))
    }

    @Test(.requiresCorpus) func everyValidFileMatchesItsReferenceBitExactly() throws {
        let root = Corpus.path
        let files = Self.validFiles
        #expect(files.count == 161 + 17 + 2)
        var exact = 0, exactRGBA8 = 0
        var failures: [String] = []
        for path in files {
            let bytes = try #require(FileSystem.read(path))
            let ref = try #require(PAM(FileSystem.read(root + "/png/ref/" + Self.stem(path) + ".pam") ?? []))
            do {
                let image = try PNGDecoder.decodeImage(bytes, ledger: MemoryLedger())
                let rgba = expandToRGBA(image)
                if image.width == ref.width, image.height == ref.height, ref.depth == 4,
                   ref.maxval == (image.format.bytesPerSample == 2 ? 65535 : 255), rgba == ref.samples {
                    exact += 1
                } else {
                    failures.append("\(Self.stem(path)): differs (\(image.format), maxval \(ref.maxval))")
                }
                // The rgba8 output: the same pixels, 16-bit samples rounded to 8 bits.
                var options = PNGOptions()
                options.output = .rgba8
                let eight = try PNGDecoder.decodeImage(bytes, ledger: MemoryLedger(), options: options)
                let expected: [UInt8] = ref.maxval == 255 ? ref.samples : stride(from: 0, to: ref.samples.count, by: 2).map {
                    let v = Int(ref.samples[$0]) << 8 | Int(ref.samples[$0 + 1])
                    return UInt8((v * 255 + 32767) / 65535)
                }
                if eight.format == .rgba8 && eight.pixels == expected { exactRGBA8 += 1 } else {
                    failures.append("\(Self.stem(path)): rgba8 output differs")
                }
            } catch {
                failures.append("\(Self.stem(path)): \(error)")
            }
        }
        print("PNG conformance: \(exact)/\(files.count) bit-exact native, \(exactRGBA8)/\(files.count) rgba8")
        #expect(failures.isEmpty, "\(failures)")
        #expect(exact == files.count)
    }

    @Test(.requiresCorpus) func everyCorruptFileIsRejectedWithATypedError() throws {
        let files = Self.corruptFiles
        #expect(files.count == 14 + 22)
        var accepted: [String] = []
        for path in files {
            let bytes = try #require(FileSystem.read(path))
            do {
                _ = try PNGDecoder.decodeImage(bytes, ledger: MemoryLedger())
                accepted.append(Self.stem(path))
            } catch {
                print("rejected \(Self.stem(path)): \(error)")
                if let expected = Self.expectedErrors[Self.stem(path)] {
                    #expect(expected(error), "\(Self.stem(path)): \(error)")
                }
            }
        }
        #expect(accepted.isEmpty, "accepted: \(accepted)")
    }

    /// With `strict` off (what thumbnails use) only damage in the image data after at least
    /// one scanline is survived: the two files cut off in their IDAT run and the two whose
    /// IDAT CRC is wrong (found after their last scanline). Every other corrupt file is still
    /// refused with the error the strict decode gives: structure before the image data, an
    /// IDAT run that ends whole before the last scanline, bad filter types, a bad palette index.
    @Test(.requiresCorpus) func strictOffSurvivesOnlyDamagedImageData() throws {
        var options = PNGOptions()
        options.strict = false
        var survived: [String: [PNGWarning]] = [:]
        for path in Self.corruptFiles {
            let bytes = try #require(FileSystem.read(path))
            var strictError: PNGError?
            do { _ = try PNGDecoder.decodeImage(bytes, ledger: MemoryLedger()) } catch { strictError = error }
            do {
                var decoder = try PNGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: options)
                _ = try decoder.decodeImage()
                survived[Self.stem(path)] = decoder.warnings
                #expect(decoder.warnings.map(\.damage) == [strictError], "\(Self.stem(path))")
            } catch {
                #expect(error == strictError, "\(Self.stem(path))")
            }
        }
        #expect(survived.keys.sorted() == ["ipng-x_interlaced_chck", "pil-truncated_end_chunk", "pil-truncated_image",
                                           "xcsn0g01"])
        #expect(survived["pil-truncated_image"]?.map(\.scanlinesDecoded) == [400])
        #expect(survived["xcsn0g01"]?.map(\.scanlinesFilled) == [0])
    }

    /// What some corrupt files must be rejected for.
    static let expectedErrors: [String: @Sendable (PNGError) -> Bool] = [
        "xs1n0g01": { $0 == .badSignature }, "xs2n0g01": { $0 == .badSignature },
        "xs4n0g01": { $0 == .badSignature }, "xs7n0g01": { $0 == .badSignature },
        "xcrn0g04": { $0 == .badSignature }, "xlfn0g04": { $0 == .badSignature },
        "xhdn0g08": { $0 == .crcMismatch(chunk: "IHDR", offset: 8) },
        "xcsn0g01": { if case .crcMismatch("IDAT", _) = $0 { true } else { false } },
        "xdtn0g01": { if case .missingIDAT = $0 { true } else { false } },
        "xc1n0g08": { if case .invalidIHDR = $0 { true } else { false } },
        "xc9n2c08": { if case .invalidIHDR = $0 { true } else { false } },
        "xd0n2c08": { if case .invalidIHDR = $0 { true } else { false } },
        "xd3n2c08": { if case .invalidIHDR = $0 { true } else { false } },
        "xd9n2c08": { if case .invalidIHDR = $0 { true } else { false } },
        "ipng-invalid_palette_index": { if case .paletteIndexOutOfRange = $0 { true } else { false } },
        "ipng-x_ihdr_missing": { $0 == .missingIHDR(offset: 8) },
        "ipng-x_consecutive_idat": { if case .notEnoughImageData = $0 { true } else { false } },
        "ipng-x_image-issue1075": { if case .notEnoughImageData = $0 { true } else { false } },
        "mx-its-f427b6bee1acd1fea3ec953bc556a18a": { if case .invalidPalette = $0 { true } else { false } },
    ]

    @Test(.requiresCorpus) func imageDataSplitAtAnyByteBoundaryDecodesTheSame() throws {
        let root = Corpus.path
        for name in ["basn6a08", "basi2c16", "basn3p01", "basi0g04"] {
            let file = try #require(FileSystem.read(root + "/png/pngsuite/" + name + ".png"))
            let expected = try PNGDecoder.decodeImage(file, ledger: MemoryLedger()).pixels
            for pieces in [[1], [2, 3, 5], [7, 1, 64], [4096]] {
                let split = resplitIDAT(file, pieces: pieces)
                #expect(try PNGDecoder.decodeImage(split, ledger: MemoryLedger()).pixels == expected, "\(name) \(pieces)")
            }
        }
    }

    @Test(.requiresCorpus) func interlacedRowsCarryTheirPlacement() throws {
        let root = Corpus.path
        struct PlacementLog: RowSink {
            var placements: [RowPlacement] = []
            var interlaced = false
            mutating func begin(_ header: RowStreamHeader) throws(CoreError) { interlaced = header.interlaced }
            mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
                placements.append(placement)
            }
        }
        let file = try #require(FileSystem.read(root + "/png/pngsuite/basi0g08.png"))
        var decoder = try PNGDecoder(source: MemoryByteSource(file), ledger: MemoryLedger())
        #expect(decoder.header.interlaced)
        var log = PlacementLog()
        try decoder.decode(into: &log)
        #expect(log.interlaced)
        // 32x32: the passes have 4, 4, 4, 8, 8, 16 and 16 rows.
        #expect(log.placements.count == 60)
        #expect(log.placements[0] == RowPlacement(y: 0, xOrigin: 0, xStep: 8, width: 4))
        #expect(log.placements[4] == RowPlacement(y: 0, xOrigin: 4, xStep: 8, width: 4))
        #expect(log.placements[8] == RowPlacement(y: 4, xOrigin: 0, xStep: 4, width: 8))
        #expect(log.placements.last == RowPlacement(y: 31, xOrigin: 0, xStep: 1, width: 32))
    }

    @Test(.requiresCorpus) func metadataIsReported() throws {
        let root = Corpus.path
        let early = try #require(FileSystem.read(root + "/exif/png/ipng-F-exif-chunk-early.png"))
        var decoder = try PNGDecoder(source: MemoryByteSource(early), ledger: MemoryLedger())
        #expect(decoder.metadata.exifOffset == 41)
        #expect(decoder.metadata.exif?.count == 90)
        #expect(decoder.metadata.exif?.prefix(2).elementsEqual([0x4D, 0x4D]) == true)
        #expect(decoder.metadata.iccProfile != nil)
        #expect(decoder.metadata.physical != nil)
        let profile = try #require(decoder.metadata.iccProfile)
        let inflated = try profile.inflated(limit: 1 << 20, ledger: MemoryLedger())
        // An ICC profile starts with its own size, big-endian.
        #expect(inflated.count > 128)
        #expect(Int(inflated[0]) << 24 | Int(inflated[1]) << 16 | Int(inflated[2]) << 8 | Int(inflated[3]) == inflated.count)
        var sink = CountingSink()
        try decoder.decode(into: &sink)

        // eXIf after IDAT is read by decode.
        let late = try #require(FileSystem.read(root + "/exif/png/mx-sampleWithExifData.png"))
        var lateDecoder = try PNGDecoder(source: MemoryByteSource(late), ledger: MemoryLedger())
        #expect(lateDecoder.metadata.exif == nil)
        #expect(lateDecoder.metadata.paletteSize == 240)
        #expect(lateDecoder.metadata.gamma == 45455)
        #expect(lateDecoder.outputFormat == .rgb8)
        try lateDecoder.decode(into: &sink)
        #expect(lateDecoder.metadata.exifOffset == 11652)
        #expect(lateDecoder.metadata.texts.count == 2)

        let apng = try #require(FileSystem.read(root + "/png/extra/ipng-basic_f20.png"))
        var apngDecoder = try PNGDecoder(source: MemoryByteSource(apng), ledger: MemoryLedger())
        try apngDecoder.decode(into: &sink)
        let animation = try #require(apngDecoder.metadata.animation)
        #expect(animation.frameCount == 20)
        #expect(animation.frameControlChunks == 20)
        #expect(animation.frameDataChunks == 19)

        let badCRC = try #require(FileSystem.read(root + "/png/extra/ipng-issue430.png"))
        var badDecoder = try PNGDecoder(source: MemoryByteSource(badCRC), ledger: MemoryLedger())
        try badDecoder.decode(into: &sink)
        #expect(badDecoder.metadata.skipped.contains { $0.type == "iCCP" && $0.reason == "bad CRC" })
        #expect(badDecoder.metadata.iccProfile == nil)

        let text = try #require(FileSystem.read(root + "/png/extra/ipng-g.png"))
        var textDecoder = try PNGDecoder(source: MemoryByteSource(text), ledger: MemoryLedger())
        try textDecoder.decode(into: &sink)
        print("ipng-g texts: \(textDecoder.metadata.texts.map { "\($0.keyword)=\($0.value.prefix(40))" })")
        #expect(textDecoder.metadata.texts.count == 5)
    }
}
