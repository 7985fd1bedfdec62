import Pare
import PareCore
import PareJPEG
import TestSupport
import Testing

/// `ParallelJPEGDecoder`: the same rows, warnings and errors as the serial `JPEGDecoder`,
/// whatever the bands, the workers and the damage.
@Suite struct ParallelDecodeTests {
    /// Keeps every row with its y, in arrival order.
    struct RowCollector: RowSink {
        var bytes: [UInt8] = []
        var ys: [Int] = []
        var header: RowStreamHeader?
        var begins = 0

        mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
            self.header = header
            begins += 1
        }

        mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
            bytes.append(contentsOf: row)
            ys.append(placement.y)
        }
    }

    /// Keeps a byte sum and a row count.
    struct Checksum: RowSink {
        var sum = 0
        var rows = 0

        mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}

        mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
            for byte in row { sum &+= Int(byte) }
            rows += 1
        }
    }

    struct Result {
        var rows: RowCollector
        var warnings: [String]
        var error: String?
    }

    static func serial(_ bytes: [UInt8], scale: JPEGScale, options: JPEGOptions = JPEGOptions()) -> Result {
        var rows = RowCollector()
        do {
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: options)
            do {
                try decoder.decode(scale: scale, into: &rows)
            } catch {
                return Result(rows: rows, warnings: decoder.warnings.map { "\($0)" }, error: "\(error)")
            }
            return Result(rows: rows, warnings: decoder.warnings.map { "\($0)" }, error: nil)
        } catch {
            return Result(rows: rows, warnings: [], error: "\(error)")
        }
    }

    static func parallel(_ bytes: [UInt8], scale: JPEGScale, options: JPEGOptions = JPEGOptions(),
                         ledger: MemoryLedger = MemoryLedger(), workers: Int = 2, maxBandBytes: Int = 16 * 1024)
        -> (Result, ParallelJPEGDecoder.Outcome?) {
        var rows = RowCollector()
        do {
            let outcome = try ParallelJPEGDecoder.decode(source: MemoryByteSource(bytes), scale: scale, options: options,
                                                         ledger: ledger, workers: workers, maxBandBytes: maxBandBytes,
                                                         into: &rows)
            return (Result(rows: rows, warnings: outcome.warnings.map { "\($0)" }, error: nil), outcome)
        } catch {
            return (Result(rows: rows, warnings: [], error: "\(error)"), nil)
        }
    }

    /// Rows compared as booleans: a failing comparison of megabytes of rows would have the
    /// test library compute their difference, for minutes.
    static func expectSame(_ a: Result, _ b: Result, _ what: String) {
        #expect(a.rows.header == b.rows.header, "\(what)")
        #expect(b.rows.begins <= 1, "\(what)")
        let sameYs = a.rows.ys == b.rows.ys, sameBytes = a.rows.bytes == b.rows.bytes
        #expect(sameYs, "\(what): \(a.rows.ys.count) and \(b.rows.ys.count) rows")
        #expect(sameBytes, "\(what): \(a.rows.bytes.count) and \(b.rows.bytes.count) bytes")
        #expect(a.error == b.error, "\(what)")
        if a.error == nil { #expect(a.warnings == b.warnings, "\(what)") }
    }

    static func restartOffsets(_ bytes: [UInt8]) -> [Int] {
        var result: [Int] = []
        for i in 1 ..< bytes.count where bytes[i - 1] == 0xFF && bytes[i] >= 0xD0 && bytes[i] <= 0xD7 { result.append(i) }
        return result
    }

    @Test func bandsMatchSerialDecodeAtEveryScale() throws {
        var inputs: [(String, [UInt8])] = [
            ("synthetic 4:2:0 640x480 every MCU row", SyntheticJPEG.make(width: 640, height: 480, restartInterval: 40)),
            ("synthetic 4:2:2 333x251 every 3 MCUs",
             SyntheticJPEG.make(width: 333, height: 251, components: [.init(2, 1), .init(1, 1), .init(1, 1)],
                                restartInterval: 3)),
        ]
        for name in ["fx-scene-420-rst1", "fx-scene-422-rst2", "fx-scene-420-rst3b", "fx-scene-444-rst1b",
                     "fx-scene-gray-rst7b"] {
            inputs.append((name, try #require(FileSystem.read(Corpus.fixtures + "/jpeg/\(name).jpg"))))
        }
        for (name, bytes) in inputs {
            for scale in JPEGScale.allCases {
                let serial = Self.serial(bytes, scale: scale)
                // The caller's thread with one helper, and with three.
                for workers in [2, 4] {
                    let (parallel, outcome) = Self.parallel(bytes, scale: scale, workers: workers, maxBandBytes: 4 * 1024)
                    Self.expectSame(serial, parallel, "\(name) \(scale.name) \(workers) workers")
                    #expect((outcome?.bands ?? 0) > 1, "\(name) \(scale.name) \(workers) workers: not decoded in bands")
                    #expect(outcome?.fellBack == false, "\(name) \(scale.name) \(workers) workers")
                }
            }
        }
    }

    /// When every band fits a buffer of its own, the bands shrink towards the bottom; their rows
    /// are still the serial decode's, with any number of workers.
    @Test func shrinkingBandsMatchSerialDecode() throws {
        // 96 MCU rows: two workers get bands of six MCU rows, then smaller ones.
        let bytes = SyntheticJPEG.make(width: 256, height: 1536, restartInterval: 16)
        for scale in JPEGScale.allCases {
            let serial = Self.serial(bytes, scale: scale)
            for workers in [2, 3, 4] {
                let (parallel, outcome) = Self.parallel(bytes, scale: scale, workers: workers, maxBandBytes: 16 * 1024 * 1024)
                Self.expectSame(serial, parallel, "\(scale.name) \(workers) workers")
                #expect(outcome?.fellBack == false, "\(scale.name) \(workers) workers")
                if workers == 2 {
                    // 13 bands of six MCU rows, then 5, 4, 3, 2, 2 and 2.
                    #expect(outcome?.bands == 19, "\(scale.name)")
                }
            }
            // With buffers for only some of the bands, they stay equal: 16 of six MCU rows.
            let rowBytes = (serial.rows.header?.width ?? 0) * 3
            let (equal, outcome) = Self.parallel(bytes, scale: scale, workers: 2, maxBandBytes: rowBytes * 2 * 8 * scale.rawValue)
            Self.expectSame(serial, equal, "\(scale.name) few buffers")
            #expect(outcome?.bands == 16, "\(scale.name) few buffers")
        }
    }

    /// Damage the restart index cannot see (a bad code inside an interval, bytes before an
    /// RST marker) sends the image to the serial decoder: same rows, warnings, errors.
    @Test func damageInsideIntervalsFallsBackToSerial() throws {
        let good = SyntheticJPEG.make(width: 512, height: 384, restartInterval: 32)
        let rst = Self.restartOffsets(good)
        #expect(rst.count == 23)
        // An invalid DC code (nine 1 bits, T.81 Table K.3 has none) at the start of an interval.
        func badCode(after marker: Int) -> [UInt8] {
            var bytes = good
            bytes.replaceSubrange(marker + 1 ... marker + 4, with: [0xFF, 0x00, 0xFF, 0x00])
            return bytes
        }
        for (name, bytes) in [("bad code in the first band", badCode(after: rst[0])),
                              ("bad code in a later band", badCode(after: rst[15]))] {
            for scale in [JPEGScale.full, .eighth] {
                let serial = Self.serial(bytes, scale: scale)
                #expect(!serial.warnings.isEmpty, "\(name): the damage should need a repair")
                for workers in [2, 4] {
                    let (parallel, outcome) = Self.parallel(bytes, scale: scale, workers: workers)
                    Self.expectSame(serial, parallel, "\(name) \(scale.name) \(workers) workers")
                    #expect(outcome?.fellBack == true, "\(name) \(scale.name) \(workers) workers")
                }
            }
            // Strict mode: the serial decoder's error, after the same rows.
            var strict = JPEGOptions()
            strict.strict = true
            let serial = Self.serial(bytes, scale: .full, options: strict)
            #expect(serial.error != nil)
            let (parallel, _) = Self.parallel(bytes, scale: .full, options: strict)
            Self.expectSame(serial, parallel, "\(name) strict")
        }
        // Stray bytes before an RST marker: whatever the serial decoder makes of them.
        var stray = good
        stray.insert(contentsOf: [0x12, 0x34, 0x56], at: rst[9] - 1)
        for scale in [JPEGScale.full, .eighth] {
            Self.expectSame(Self.serial(stray, scale: scale), Self.parallel(stray, scale: scale).0, "stray \(scale.name)")
        }
        // A broken RST sequence never gets to the bands.
        var wrongNumber = good
        wrongNumber[rst[4]] = 0xD7
        let serial = Self.serial(wrongNumber, scale: .half)
        let (parallel, outcome) = Self.parallel(wrongNumber, scale: .half)
        Self.expectSame(serial, parallel, "wrong RST number")
        #expect(outcome?.bands == 0)
    }

    /// At most workers + 1 band buffers of `maxBandBytes`, plus one streaming decoder per
    /// worker (their ledgers' peaks are added to the caller's).
    @Test func memoryStaysBounded() throws {
        let bytes = SyntheticJPEG.make(width: 2048, height: 1536, restartInterval: 128)
        let serialLedger = MemoryLedger()
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: serialLedger)
        var counter = RowCollector()
        try decoder.decode(scale: .full, into: &counter)
        let serialPeak = serialLedger.peakBytes
        let ledger = MemoryLedger()
        let maxBand = 256 * 1024
        // A sink that keeps only a checksum, so that the heap holds what the decode holds.
        var checksum = Checksum()
        let (outcome, growth) = try HeapMeter.peakGrowth(ledger: ledger) { () throws -> ParallelJPEGDecoder.Outcome in
            try ParallelJPEGDecoder.decode(source: MemoryByteSource(bytes), scale: .full, ledger: ledger, workers: 2,
                                           maxBandBytes: maxBand, into: &checksum)
        }
        #expect(checksum.rows == 1536)
        #expect(checksum.sum == counter.bytes.reduce(0) { $0 &+ Int($1) })
        #expect(outcome.bands > 4)
        let bound = 3 * maxBand + 3 * serialPeak
        #expect(ledger.peakBytes <= bound, "peak \(ledger.peakBytes), bound \(bound), serial \(serialPeak)")
        #expect(ledger.peakBytes > 3 * maxBand / 2, "worker peaks and band buffers are counted")
        #expect(ledger.currentBytes == 0)
        if let growth {
            print("parallel 2048x1536 1/1: ledger peak \(ledger.peakBytes) B, heap peak growth \(growth) B, serial peak \(serialPeak) B")
            #expect(growth <= ledger.peakBytes + 64 * 1024)
        }
        let (result, _) = Self.parallel(bytes, scale: .full, maxBandBytes: maxBand)
        // A limit with no room for the bands still decodes, serially, as the serial decoder would.
        let tight = MemoryLedger(limit: serialPeak + 64 * 1024)
        let (limited, tightOutcome) = Self.parallel(bytes, scale: .full, ledger: tight, maxBandBytes: maxBand)
        #expect(limited.error == nil)
        #expect(limited.rows.ys.count == 1536)
        #expect(tightOutcome?.bands == 0)
        #expect(limited.rows.bytes == result.rows.bytes)
    }

    /// Thumbnails of a restart JPEG are the same with one worker or two.
    @Test func thumbnailIsIndependentOfWorkers() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/jpeg/fx-scene-420-rst1.jpg"))
        var images: [[UInt8]] = []
        for workers in [1, 2] {
            var options = ThumbnailOptions(maxPixelSize: 64)
            options.decodeWorkers = workers
            let thumbnail = try ImageSource(bytes: bytes).thumbnail(options: options)
            var pixels: [UInt8] = []
            for y in 0 ..< thumbnail.image.height { pixels += Array(thumbnail.image.row(y)) }
            images.append(pixels)
            #expect(thumbnail.warnings.isEmpty)
        }
        #expect(images[0] == images[1])
        #expect(!images[0].isEmpty)
    }
}
