import CZlib
import PareCore
@testable import ParePNG
import Testing
import TestSupport

/// Replays every input under `Fixtures/regressions/png/` (files the fuzzer once broke the
/// decoder with) and the corrupt PngSuite files the way `Fuzz/png.swift` runs them: native
/// output into a sink that checks each row's placement, then 8-bit RGBA into an `Image`,
/// each under a 64 MiB ledger. Each must end in a typed error or a consistent image, and
/// give back every ledger byte.
@Suite struct PNGRegressionTests {
    static let ledgerLimit = 64 << 20

    /// What one replay ended with.
    enum Outcome {
        case image(width: Int, height: Int)
        case error(PNGError)
    }

    /// Checks what the decoder promises a sink: rows inside the announced image, of the
    /// announced length.
    struct CheckingSink: RowSink {
        var header: RowStreamHeader?
        var problems: [String] = []
        var rows = 0

        mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
            if self.header != nil { problems.append("begin twice") }
            self.header = header
        }

        mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
            rows += 1
            guard let header else { return problems.append("row before begin") }
            let last = placement.xOrigin + (placement.width - 1) * placement.xStep
            if placement.y < 0 || placement.y >= header.height || placement.xOrigin < 0 || placement.xStep < 1
                || placement.width < 1 || last >= header.width {
                problems.append("row \(rows) placed at \(placement) in \(header.width)×\(header.height)")
            }
            if row.count != placement.width * header.format.bytesPerPixel {
                problems.append("row \(rows): \(row.count) bytes for \(placement.width) pixels")
            }
        }
    }

    /// Decodes `bytes` both ways; returns the native outcome and any broken promise.
    static func replay(_ bytes: [UInt8]) -> (native: Outcome, rgba: Outcome, problems: [String]) {
        var problems: [String] = []
        let ledger = MemoryLedger(limit: ledgerLimit)
        var native: Outcome
        do {
            var decoder = try PNGDecoder(source: MemoryByteSource(bytes), ledger: ledger)
            var sink = CheckingSink()
            try decoder.decode(into: &sink)
            problems += sink.problems
            native = .image(width: sink.header?.width ?? 0, height: sink.header?.height ?? 0)
        } catch {
            native = .error(error)
        }
        if ledger.currentBytes != 0 { problems.append("native: \(ledger.currentBytes) ledger bytes kept") }

        var options = PNGOptions()
        options.output = .rgba8
        let imageLedger = MemoryLedger(limit: ledgerLimit)
        var rgba: Outcome
        do {
            let image = try PNGDecoder.decodeImage(bytes, ledger: imageLedger, options: options)
            if image.format != .rgba8 { problems.append("rgba8 asked, \(image.format) given") }
            if image.pixels.count != image.width * image.height * 4 { problems.append("image size") }
            rgba = .image(width: image.width, height: image.height)
        } catch {
            rgba = .error(error)
        }
        if imageLedger.currentBytes != 0 { problems.append("rgba8: \(imageLedger.currentBytes) ledger bytes kept") }
        switch (native, rgba) {
        case let (.image(w1, h1), .image(w2, h2)) where w1 != w2 || h1 != h2:
            problems.append("native \(w1)×\(h1) but rgba8 \(w2)×\(h2)")
        case (.image, .error), (.error, .image):
            problems.append("native and rgba8 disagree: \(native) / \(rgba)")
        default:
            break
        }
        return (native, rgba, problems)
    }

    @Test func everyFuzzRegressionEndsInATypedErrorOrAnImage() throws {
        let inputs = Regressions.inputs("png")
        try #require(!inputs.isEmpty, "no inputs in \(Regressions.folder("png"))")
        for input in inputs {
            let result = Self.replay(input.bytes)
            #expect(result.problems.isEmpty, "\(input.name): \(result.problems)")
            if case let .error(error) = result.native {
                #expect(!error.description.isEmpty)
            }
        }
    }

    /// The inflater's fast loop once took over a bit buffer of 64 bits from its careful loop
    /// and read it as a step back: this cut-off file then decoded wrongly ("invalid filter
    /// type 250 on scanline 86") where zlib and the fixed inflater run out of data.
    @Test func inflaterHandOverRegressionEndsWhereZlibDoes() throws {
        let input = try #require(Regressions.inputs("png").first { $0.name == "crash-857ca35c7e84.png" })
        guard case let .error(error) = Self.replay(input.bytes).native else {
            Issue.record("decoded")
            return
        }
        #expect(error.description == "PNG: unexpected end of file in chunk IDAT (2330 more byte(s) needed) at byte 739")
    }

    @Test(.requiresCorpus) func corruptPngSuiteFilesEndInATypedError() throws {
        let root = Corpus.path
        let names = FileSystem.list(root + "/png/pngsuite").filter { $0.hasPrefix("x") && $0.hasSuffix(".png") }
        #expect(names.count == 14)
        for name in names {
            let bytes = try #require(FileSystem.read(root + "/png/pngsuite/" + name))
            let result = Self.replay(bytes)
            #expect(result.problems.isEmpty, "\(name): \(result.problems)")
            guard case let .error(error) = result.native, case .error = result.rgba else {
                Issue.record("\(name) decoded; PngSuite marks it corrupt")
                continue
            }
            #expect(error.description.hasPrefix("PNG"), "\(name): \(error)")
        }
    }

    // Metadata costs found by review while fuzzing: the held-bytes total was summed over
    // every text for each new chunk (a 1.4 MB file of empty tEXt took 5.8 s), and a zTXt
    // dropped for inflating past the budget left the budget whole for the next one (100
    // such chunks in 900 KB inflated 800 MiB).

    static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var size = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = compress2(&out, &size, bytes, uLong(bytes.count), 9)
        precondition(status == Z_OK)
        return Array(out[..<Int(size)])
    }

    /// A 1×1 gray PNG with `chunks` between IHDR and IDAT.
    static func tinyPNG(with chunks: [UInt8]) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])
            + chunks + chunk("IDAT", deflate([0, 0])) + chunk("IEND", [])
    }

    @Test func manySmallTextChunksAreKeptInLinearTime() throws {
        let one = chunk("tEXt", Array("a".utf8) + [0])
        let png = Self.tinyPNG(with: Array([[UInt8]](repeating: one, count: 50_000).joined()))
        let decoder = try PNGDecoder(source: MemoryByteSource(png), ledger: MemoryLedger())
        #expect(decoder.metadata.texts.count == 50_000)
        #expect(decoder.metadata.heldBytes == 50_000 * (1 + PNGMetadata.textOverhead))

        // Each entry counts against the budget, not just its one byte of keyword (the chunk
        // needs room for its two bytes, null separator included).
        var options = PNGOptions()
        options.maxMetadataBytes = 1000 * (1 + PNGMetadata.textOverhead) + 1
        let tight = try PNGDecoder(source: MemoryByteSource(png), ledger: MemoryLedger(), options: options)
        #expect(tight.metadata.texts.count == 1000)
        #expect(tight.metadata.skipped.count == 1000)
        #expect(tight.metadata.skipped.allSatisfy { $0.type == "tEXt" && $0.reason == "over the metadata budget" })
        #expect(tight.metadata.unlistedSkips == 48_000)
    }

    @Test func droppedChunkReportsAreLimited() throws {
        var broken = chunk("gAMA", [0, 0, 0xB1, 0x8F])
        broken[broken.count - 1] ^= 1
        let png = Self.tinyPNG(with: Array([[UInt8]](repeating: broken, count: 3000).joined()))
        let decoder = try PNGDecoder(source: MemoryByteSource(png), ledger: MemoryLedger())
        #expect(decoder.metadata.skipped.count == 1000)
        #expect(decoder.metadata.skipped[999] == PNGSkippedChunk(type: "gAMA", offset: 33 + 999 * 16, reason: "bad CRC"))
        #expect(decoder.metadata.unlistedSkips == 2000)

        var options = PNGOptions()
        options.maxSkipReports = 3000
        let all = try PNGDecoder(source: MemoryByteSource(png), ledger: MemoryLedger(), options: options)
        #expect(all.metadata.skipped.count == 3000 && all.metadata.unlistedSkips == 0)
    }

    @Test func droppedZipBombsSpendTheInflationBudget() throws {
        let bomb = chunk("zTXt", Array("bomb".utf8) + [0, 0] + Self.deflate([UInt8](repeating: 0x30, count: 9 << 20)))
        let small = chunk("zTXt", Array("note".utf8) + [0, 0] + Self.deflate(Array("hello".utf8)))
        let png = Self.tinyPNG(with: bomb + bomb + small)

        let decoder = try PNGDecoder(source: MemoryByteSource(png), ledger: MemoryLedger())
        #expect(decoder.metadata.texts.isEmpty)
        let dropped = decoder.metadata.skipped.filter { $0.type == "zTXt" }
        #expect(dropped.count == 3)
        #expect(dropped.allSatisfy { $0.reason.contains("inflated metadata bytes") })
        // The first bomb inflates one byte past the 8 MiB budget; nothing is left after it,
        // so each later stream is refused at its first byte.
        #expect(decoder.inflatedTextBytes == 8 << 20 + 3)

        var options = PNGOptions()
        options.maxMetadataBytes = 32 << 20
        let raised = try PNGDecoder(source: MemoryByteSource(png), ledger: MemoryLedger(), options: options)
        #expect(raised.metadata.texts.map(\.keyword) == ["bomb", "bomb", "note"])
        #expect(raised.metadata.texts.last?.value == "hello")
    }
}
