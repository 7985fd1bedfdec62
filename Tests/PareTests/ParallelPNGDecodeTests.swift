import CZlib
@testable import Pare
import PareCore
import ParePNG
import Synchronization
import TestSupport
import Testing

/// `ParallelPNGDecoder`: the same rows, metadata and errors as `PNGDecoder.decode(into:)` on
/// one thread (the oracle), whatever the ring's size and the damage, and no helper thread
/// left running after any of them.
@Suite struct ParallelPNGDecodeTests {
    typealias RowCollector = ParallelDecodeTests.RowCollector

    struct Outcome {
        var rows: RowCollector
        var metadata: String
        var error: PNGError?
        var warnings: [PNGWarning] = []
    }

    /// One decode, serial for `workers: 1`; every helper has ended when it returns.
    static func decode(_ bytes: [UInt8], workers: Int, ringBytes: Int = ParallelPNGDecoder.defaultRingBytes,
                       options: PNGOptions = PNGOptions(), ledger: MemoryLedger = MemoryLedger(),
                       cancellation: CancellationCheck = CancellationCheck()) -> Outcome {
        var rows = RowCollector()
        var outcome = Outcome(rows: rows, metadata: "", error: nil)
        do {
            var decoder = try PNGDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
            do {
                try ParallelPNGDecoder.decode(&decoder, ledger: ledger, workers: workers, ringBytes: ringBytes,
                                              cancellation: cancellation, into: &rows)
            } catch {
                outcome.error = error
            }
            outcome.metadata = "\(decoder.metadata)"
            outcome.warnings = decoder.warnings
        } catch {
            outcome.error = error
        }
        outcome.rows = rows
        #expect(runningPNGInflaters.load(ordering: .acquiring) == 0, "a helper thread outlived the decode")
        return outcome
    }

    /// Options that survive damage in the image data (`PNGOptions.strict` false).
    static var surviving: PNGOptions {
        var options = PNGOptions()
        options.strict = false
        return options
    }

    /// Serial and threaded decodes of `bytes` agree, with a ring of one scanline per slot
    /// (the most hand-overs) and the default ring.
    static func expectSame(_ bytes: [UInt8], _ what: String, options: PNGOptions = PNGOptions()) {
        let serial = decode(bytes, workers: 1, options: options)
        for ringBytes in [0, ParallelPNGDecoder.defaultRingBytes] {
            let threaded = decode(bytes, workers: 2, ringBytes: ringBytes, options: options)
            #expect(threaded.error == serial.error, "\(what), ring \(ringBytes)")
            #expect(threaded.rows.ys == serial.rows.ys, "\(what), ring \(ringBytes)")
            #expect(threaded.rows.bytes == serial.rows.bytes, "\(what), ring \(ringBytes)")
            #expect(threaded.rows.begins == serial.rows.begins, "\(what), ring \(ringBytes)")
            #expect(threaded.metadata == serial.metadata, "\(what), ring \(ringBytes)")
            #expect(threaded.warnings == serial.warnings, "\(what), ring \(ringBytes)")
        }
    }

    @Test(.requiresCorpus) func corpusFilesDecodeAlikeOnTwoThreads() throws {
        var files = 0, failures = 0
        for folder in ["pngsuite", "extra", "malformed"] {
            let directory = Corpus.path + "/png/" + folder
            for name in FileSystem.list(directory) where name.hasSuffix(".png") {
                let bytes = try #require(FileSystem.read(directory + "/" + name))
                Self.expectSame(bytes, name)
                if Self.decode(bytes, workers: 1).error != nil { failures += 1 }
                files += 1
            }
        }
        #expect(files > 150)
        #expect(failures > 10, "the malformed files should reach the error paths")
    }

    @Test func largeImagesDecodeAlikeOnTwoThreads() {
        for (width, height, channels, interlaced) in [(1000, 700, 3, false), (333, 517, 4, true), (64, 3000, 1, false)] {
            Self.expectSame(SyntheticPNG.make(width: width, height: height, channels: channels, interlaced: interlaced),
                            "\(width)x\(height)x\(channels) interlaced \(interlaced)")
        }
    }

    /// Damage anywhere in the image data (zlib codes, a filter type, an IDAT CRC, the end of
    /// the file) ends both decodes with the same error after the same rows.
    @Test func damagedImageDataFailsAlikeOnTwoThreads() {
        let file = SyntheticPNG.make(width: 700, height: 400, channels: 3, interlaced: false)
        let parts = chunks(of: file)
        let data = parts.filter { $0.0 == "IDAT" }.flatMap(\.1)
        func rebuilt(_ idat: [UInt8], crc: Bool = true) -> [UInt8] {
            var out = pngSignature
            var wroteData = false
            for (type, body) in parts {
                if type != "IDAT" {
                    out += chunk(type, body)
                } else if !wroteData {
                    wroteData = true
                    var piece = chunk("IDAT", idat)
                    if !crc { piece[piece.count - 1] ^= 1 }
                    out += piece
                }
            }
            return out
        }
        var rng = SplitMix(state: 0x19_0C)
        var errors: Set<String> = []
        for round in 0 ..< 40 {
            var idat = data
            let at = Int(rng.next() % UInt64(idat.count))
            idat[at] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            let damaged = rebuilt(idat, crc: round % 4 != 3)
            let serial = Self.decode(damaged, workers: 1)
            if let error = serial.error { errors.insert("\(error)".prefix(20).description) }
            Self.expectSame(damaged, "flip at \(at), round \(round)")
            Self.expectSame(damaged, "flip at \(at), round \(round), not strict", options: Self.surviving)
        }
        Self.expectSame(rebuilt(Array(data.prefix(data.count / 2))), "image data cut in half")
        Self.expectSame(Array(file.prefix(file.count * 2 / 3)), "file cut at two thirds")
        Self.expectSame(rebuilt(Array(data.prefix(data.count / 2))), "image data cut in half, not strict",
                        options: Self.surviving)
        Self.expectSame(Array(file.prefix(file.count * 2 / 3)), "file cut at two thirds, not strict",
                        options: Self.surviving)

        // Filter type 7 on row 250 (§9.2 defines 0–4).
        var raw: [UInt8] = []
        for y in 0 ..< 400 {
            raw.append(y == 250 ? 7 : UInt8(y % 5))
            for x in 0 ..< 700 * 3 { raw.append(UInt8(truncatingIfNeeded: x * 7 + y)) }
        }
        let badFilter = rebuilt(Self.compress(raw))
        let serial = Self.decode(badFilter, workers: 1)
        #expect(serial.rows.ys.count == 250)
        guard case .invalidFilterType(_, row: 250, filter: 7)? = serial.error else {
            Issue.record("expected an invalid filter type, got \(String(describing: serial.error))")
            return
        }
        Self.expectSame(badFilter, "filter type 7 on row 250")
        Self.expectSame(badFilter, "filter type 7 on row 250, not strict", options: Self.surviving)
        // A bad filter type is no transfer damage: an error with strict off too.
        let unsurvived = Self.decode(badFilter, workers: 2, options: Self.surviving)
        #expect(unsurvived.error == serial.error && unsurvived.warnings.isEmpty)
        // The file cut in half is: rows as far as they go, then zeros, one warning.
        let survived = Self.decode(Array(file.prefix(file.count / 2)), workers: 2, options: Self.surviving)
        #expect(survived.error == nil)
        #expect(survived.rows.ys == Array(0 ..< 400))
        let decoded = survived.warnings.first?.scanlinesDecoded ?? 0
        #expect(survived.warnings.count == 1 && decoded > 100 && decoded < 300)
        #expect(survived.rows.bytes.dropFirst(decoded * 700 * 3).allSatisfy { $0 == 0 })
        #expect(errors.count >= 2, "the flips should reach more than one kind of error: \(errors)")
    }

    /// An IDAT run of many chunks (empty and one-byte ones among them), damaged around one
    /// chunk: the helper does not check the CRCs, the caller's thread does, and the first
    /// error is still the serial decode's, after the same rows, even where the helper has
    /// read on past a bad CRC into damaged data or a damaged chunk header.
    @Test func idatCRCsAreCheckedWhereTheSerialDecodeChecksThem() {
        let file = SyntheticPNG.make(width: 640, height: 360, channels: 3, interlaced: false)
        let parts = chunks(of: file)
        let data = parts.filter { $0.0 == "IDAT" }.flatMap(\.1)
        var sizes: [Int] = []
        var left = data.count
        var rng = SplitMix(state: 0x5EED)
        while left > 0 {
            let size = [0, 1, 700, 5000, 16000][Int(rng.next() % 5)]
            sizes.append(min(size, left))
            left -= min(size, left)
        }
        /// The file with its image data in `sizes` chunks; `damage` edits the chunks (a type
        /// and body each) before they are written, `badCRC` names the chunks written with a
        /// wrong CRC. Returns the file and the offset of each IDAT chunk.
        func build(damage: (inout [[UInt8]]) -> Void = { _ in }, badCRC: Set<Int> = [],
                   badType: Int? = nil) -> (file: [UInt8], offsets: [Int]) {
            var bodies: [[UInt8]] = []
            var at = 0
            for size in sizes {
                bodies.append(Array(data[at ..< at + size]))
                at += size
            }
            damage(&bodies)
            var out = pngSignature
            var offsets: [Int] = []
            var wroteData = false
            for (type, body) in parts {
                guard type == "IDAT" else {
                    out += chunk(type, body)
                    continue
                }
                if wroteData { continue }
                wroteData = true
                for (index, body) in bodies.enumerated() {
                    offsets.append(out.count)
                    var piece = chunk("IDAT", body)
                    if badCRC.contains(index) { piece[piece.count - 2] ^= 0x10 }
                    if badType == index { piece[5] = 0x31 }
                    out += piece
                }
            }
            return (out, offsets)
        }
        #expect(sizes.count > 40)
        #expect(sizes.contains(0) && sizes.contains(1))
        let middle = sizes.count / 2
        let clean = build().file
        Self.expectSame(clean, "many IDAT chunks")
        #expect(Self.decode(clean, workers: 2).error == nil)
        for index in [0, middle, sizes.count - 1] {
            // A wrong CRC alone, then with the following chunks' data damaged too.
            let (wrong, offsets) = build(badCRC: [index])
            let serial = Self.decode(wrong, workers: 1)
            #expect(serial.error == .crcMismatch(chunk: "IDAT", offset: offsets[index]), "bad CRC in chunk \(index)")
            Self.expectSame(wrong, "bad CRC in chunk \(index)")
            let (wrongThenDamaged, _) = build(damage: { bodies in
                for later in index + 1 ..< bodies.count where !bodies[later].isEmpty {
                    bodies[later][0] ^= 0xFF
                    bodies[later][bodies[later].count / 2] ^= 0x5A
                }
            }, badCRC: [index])
            #expect(Self.decode(wrongThenDamaged, workers: 1).error == serial.error)
            Self.expectSame(wrongThenDamaged, "bad CRC in chunk \(index), damaged data after it")
        }
        // A bad CRC followed by a chunk header the helper cannot read: the CRC comes first.
        let (badHeader, offsets) = build(badCRC: [middle], badType: middle + 1)
        #expect(Self.decode(badHeader, workers: 1).error == .crcMismatch(chunk: "IDAT", offset: offsets[middle]))
        Self.expectSame(badHeader, "bad CRC, then a bad chunk type")
        Self.expectSame(build(badType: middle).file, "a bad chunk type")
        // Damage inside a chunk whose CRC matches its damaged bytes, then a wrong CRC later.
        for flip in 0 ..< 12 {
            let (damaged, _) = build(damage: { bodies in
                let target = Int(rng.next() % UInt64(bodies.count))
                if !bodies[target].isEmpty { bodies[target][Int(rng.next() % UInt64(bodies[target].count))] ^= 0x24 }
            }, badCRC: [Int(rng.next() % UInt64(sizes.count))])
            Self.expectSame(damaged, "damaged data and a bad CRC, round \(flip)")
        }
        // Cut inside the last chunk's CRC, and inside a chunk in the middle.
        Self.expectSame(Array(clean.prefix(offsets[sizes.count - 1] + 8 + sizes[sizes.count - 1] + 2)), "cut in a CRC")
        Self.expectSame(Array(clean.prefix(offsets[middle] + 10)), "cut in the middle")
    }

    /// Cancelled halfway: `.core(.cancelled)` after the same rows, the helper joined.
    @Test func cancellationStopsTheHelper() {
        let file = SyntheticPNG.make(width: 500, height: 600, channels: 3, interlaced: false)
        for workers in [1, 2] {
            let asked = Atomic<Int>(0)
            let outcome = Self.decode(file, workers: workers, ringBytes: 0, cancellation: CancellationCheck {
                asked.add(1, ordering: .relaxed).newValue > 300
            })
            #expect(outcome.error == .core(.cancelled))
            #expect(outcome.rows.ys.count == 300)
        }
    }

    /// The zlib stream's Adler-32 (RFC 1950 §2.2) is reported when checked (the default)
    /// and passed over when not; either way the IDAT CRC covers every compressed byte.
    @Test func badAdler32IsReportedWhenChecked() throws {
        let file = SyntheticPNG.make(width: 300, height: 200, channels: 3, interlaced: false)
        let parts = chunks(of: file)
        var idat = parts.filter { $0.0 == "IDAT" }.flatMap(\.1)
        idat[idat.count - 1] ^= 0x55
        var damaged = pngSignature
        var wroteData = false
        for (type, body) in parts where type != "IDAT" || !wroteData {
            if type == "IDAT" { wroteData = true }
            damaged += chunk(type, type == "IDAT" ? idat : body)
        }
        var unchecked = PNGOptions()
        unchecked.verifiesZlibChecksum = false
        let clean = Self.decode(file, workers: 1)
        #expect(clean.error == nil)
        for workers in [1, 2] {
            let checked = Self.decode(damaged, workers: workers)
            guard case .zlibDataError(_, let message)? = checked.error else {
                Issue.record("expected zlib's data error, got \(String(describing: checked.error))")
                continue
            }
            #expect(message == "incorrect data check")
            // zlib finds the mismatch in the call that inflates the last scanline.
            #expect(checked.rows.ys.count == 199)
            #expect(clean.rows.bytes.starts(with: checked.rows.bytes))
            let skipped = Self.decode(damaged, workers: workers, options: unchecked)
            #expect(skipped.error == nil)
            #expect(skipped.rows.bytes == clean.rows.bytes, "the same pixels")
        }
        // Thumbnails do not check it (ThumbnailOptions.png), and make the same pixels.
        #expect(ThumbnailOptions(maxPixelSize: 64).png.verifiesZlibChecksum == false)
        let fromDamaged = try ImageSource(bytes: damaged).thumbnail(options: ThumbnailOptions(maxPixelSize: 64))
        let fromClean = try ImageSource(bytes: file).thumbnail(options: ThumbnailOptions(maxPixelSize: 64))
        #expect(fromDamaged.image.pixels == fromClean.image.pixels)
    }

    /// The thumbnail's bytes do not depend on the threads; a damaged file gives the same
    /// partial thumbnail and warning, or with `strict` the same error.
    @Test func thumbnailIsIndependentOfWorkers() throws {
        let file = SyntheticPNG.make(width: 1200, height: 900, channels: 4, interlaced: false)
        var one = ThumbnailOptions(maxPixelSize: 256)
        one.decodeWorkers = 1
        var two = one
        two.decodeWorkers = 2
        let a = try ImageSource(bytes: file).thumbnail(options: one)
        let b = try ImageSource(bytes: file).thumbnail(options: two)
        #expect(a.image.pixels == b.image.pixels)
        let cut = Array(file.prefix(file.count / 2))
        // Cut in half: the same partial thumbnail and the same warning on one thread or two.
        let partialOne = try ImageSource(bytes: cut).thumbnail(options: one)
        let partialTwo = try ImageSource(bytes: cut).thumbnail(options: two)
        #expect(partialOne.image.pixels == partialTwo.image.pixels)
        #expect(partialOne.warnings == partialTwo.warnings)
        #expect(partialOne.warnings.count == 1 && partialOne.isDamaged)
        // Strict: the same error.
        var errors: [String] = []
        for var options in [one, two] {
            options.strict = true
            #expect(throws: PareError.self) { try ImageSource(bytes: cut).thumbnail(options: options) }
            do {
                _ = try ImageSource(bytes: cut).thumbnail(options: options)
            } catch {
                errors.append("\(error)")
            }
        }
        #expect(errors.count == 2 && errors[0] == errors[1])
        #expect(runningPNGInflaters.load(ordering: .acquiring) == 0)
    }

    /// The ring and a zero scanline take the place of the serial decode's two scanlines, in
    /// the same ledger; a limit too small for the ring decodes on one thread.
    @Test func memoryIsCounted() {
        let file = SyntheticPNG.make(width: 1000, height: 300, channels: 3, interlaced: false)
        let serialLedger = MemoryLedger(), threadedLedger = MemoryLedger()
        _ = Self.decode(file, workers: 1, ledger: serialLedger)
        let threaded = Self.decode(file, workers: 2, ledger: threadedLedger)
        #expect(threaded.error == nil)
        // The CRC reader's window and scratch buffer are two allocations more.
        let line = 3001, ring = ParallelPNGDecoder.defaultRingBytes / 3 / line * 3 * line, crc = 2 * 16 * 1024
        #expect(threadedLedger.peakBytes == serialLedger.peakBytes + ring + line - 2 * line + crc)
        #expect(threadedLedger.allocationCount == serialLedger.allocationCount + 2)
        #expect(threadedLedger.currentBytes == 0)
        let tight = MemoryLedger(limit: serialLedger.peakBytes + 1000)
        let limited = Self.decode(file, workers: 2, ledger: tight)
        #expect(limited.error == nil)
        #expect(limited.rows.bytes == threaded.rows.bytes)
    }

    static func compress(_ data: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&out, &length, data, uLong(data.count), 6)
        precondition(status == Z_OK)
        return Array(out[0 ..< Int(length)])
    }
}
