@testable import Pare
@_spi(Pipeline) import PareCore
@_spi(Pipeline) import PareWebP
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `WebPDecoder.decodePipelined` (a lossy frame's modes and coefficients read on a second
/// thread, reconstructed, filtered and converted on the caller's; a lossless frame's pixels
/// decoded on the second thread, its transforms undone band by band on the caller's): the
/// serial decode's rows, warnings and errors, byte for byte, with rings of 2 and 4, on the
/// fixtures, the made corpus, files cut short, and when cancelled.
@Suite struct PipelinedWebPTests {
    typealias Result = ParallelDecodeTests.Result

    static func decode(_ bytes: [UInt8], slots: Int?, half: Bool = false,
                       cancellation: CancellationCheck = CancellationCheck()) -> Result {
        var rows = ParallelDecodeTests.RowCollector()
        do {
            var decoder = try WebPDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: WebPOptions())
            decoder.cancellation = cancellation
            do {
                if let slots {
                    try decoder.decodePipelined(handoff: DecodePipelineThreads(slots: slots), halfScale: half, into: &rows)
                } else {
                    try decoder.decode(halfScale: half, into: &rows)
                }
            } catch {
                return Result(rows: rows, warnings: decoder.warnings.map { "\($0)" }, error: "\(error)")
            }
            return Result(rows: rows, warnings: decoder.warnings.map { "\($0)" }, error: nil)
        } catch {
            return Result(rows: rows, warnings: [], error: "\(error)")
        }
    }

    static func expectSame(_ bytes: [UInt8], _ what: String) {
        for half in [false, true] {
            let serial = decode(bytes, slots: nil, half: half)
            for slots in [2, 4] {
                let piped = decode(bytes, slots: slots, half: half)
                let label = "\(what)\(half ? " at half size" : ""), \(slots) slots"
                ParallelDecodeTests.expectSame(serial, piped, label)
                #expect(serial.warnings == piped.warnings, "\(label)")
            }
        }
    }

    static func files(_ folder: String) -> [(String, [UInt8])] {
        FileSystem.list(folder).filter { $0.hasSuffix(".webp") }.sorted().compactMap { name in
            FileSystem.read(folder + "/" + name).map { (name, $0) }
        }
    }

    @Test func fixturesMatchTheSerialDecode() {
        let files = Self.files(Corpus.fixtures + "/webp")
        #expect(files.count >= 15)
        for (name, bytes) in files { Self.expectSame(bytes, name) }
    }

    @Test(.requiresMadeCorpus("webp", script: "Fixtures/webp/make-corpus.sh")) func madeCorpusMatchesTheSerialDecode() throws {
        let folder = try #require(Corpus.made("webp"))
        // The two 12 MP files take seconds in a debug build; the rest cover every feature.
        let files = Self.files(folder).filter { $0.1.count < 400_000 }
        #expect(files.count >= 20)
        for (name, bytes) in files { Self.expectSame(bytes, name) }
    }

    /// Lossy and lossless files cut at several points: the rows before the cut, the same
    /// truncation warning.
    @Test func cutFilesMatchTheSerialDecode() throws {
        for name in ["fx-lossy-segments.webp", "fx-lossy-wide.webp", "fx-alpha-best.webp", "fx-lossless-z9.webp",
                     "fx-lossless-palette.webp"] {
            let bytes = try #require(FileSystem.read(Corpus.fixtures + "/webp/" + name))
            for fraction in [20, 50, 80, 95] {
                let cut = Array(bytes.prefix(bytes.count * fraction / 100))
                Self.expectSame(cut, "\(name) cut at \(fraction) %")
            }
        }
    }

    /// Cancelled after a few rows: it stops with the cancellation, having handed out no more
    /// rows than the serial decode cancelled at the same check.
    @Test func cancellationStopsThePipelinedDecode() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/webp/fx-lossy-tall.webp"))
        final class Countdown: @unchecked Sendable { var left = 3 }
        let countdown = Countdown()
        let result = Self.decode(bytes, slots: 2, cancellation: CancellationCheck {
            countdown.left -= 1
            return countdown.left < 0
        })
        #expect(result.error == "\(WebPError.core(.cancelled))")
        let full = Self.decode(bytes, slots: nil)
        #expect(result.rows.ys.count < full.rows.ys.count)
    }

    /// A lossless file cancelled after its first band: the band's rows, then the cancellation.
    @Test func cancellationStopsALosslessDecodeBetweenBands() throws {
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/webp/fx-lossless-z9.webp"))
        for slots in [nil, 2] {
            // The frame's check before anything is read, the first band's, then the second's.
            final class Countdown: @unchecked Sendable { var left = 2 }
            let countdown = Countdown()
            let result = Self.decode(bytes, slots: slots, cancellation: CancellationCheck {
                countdown.left -= 1
                return countdown.left < 0
            })
            #expect(result.error == "\(WebPError.core(.cancelled))")
            #expect(result.rows.ys == Array(0 ..< 16), "\(slots ?? 0) slots")
        }
    }
    /// At half size a lossy picture without alpha comes out (w + 1) / 2 × (h + 1) / 2, and
    /// each pixel is close to the mean of the full decode's 2×2 block (the full decode
    /// interpolates chroma, the half one takes the stored sample): at least 35 dB on every
    /// lossy fixture. Alpha, lossless and animated pictures keep their full size.
    @Test func halfScaleIsTheFullDecodeHalved() throws {
        for (name, bytes) in Self.files(Corpus.fixtures + "/webp") {
            let full = Self.decode(bytes, slots: nil), half = Self.decode(bytes, slots: nil, half: true)
            let header = try #require(full.rows.header), halfHeader = try #require(half.rows.header)
            let eligible = name.hasPrefix("fx-lossy") || name == "fx-meta.webp"
            guard eligible else {
                #expect(halfHeader == header, "\(name)")
                continue
            }
            #expect(halfHeader.width == (header.width + 1) / 2 && halfHeader.height == (header.height + 1) / 2, "\(name)")
            let c = header.format.channels, w = header.width, hw = halfHeader.width
            var squared = 0.0
            for y in 0 ..< halfHeader.height {
                for x in 0 ..< hw {
                    for k in 0 ..< c {
                        var sum = 0
                        for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                            let yy = min(2 * y + dy, header.height - 1), xx = min(2 * x + dx, w - 1)
                            sum += Int(full.rows.bytes[(yy * w + xx) * c + k])
                        }
                        let d = Double(sum) / 4 - Double(half.rows.bytes[(y * hw + x) * c + k])
                        squared += d * d
                    }
                }
            }
            let mse = squared / Double(hw * halfHeader.height * c)
            let psnr = mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
            #expect(psnr >= 35, "\(name): \(psnr) dB")
        }
    }
    /// The source choice takes a lossy WebP at half size when that still reaches the size
    /// with the resampler's margin, and never one with alpha.
    @Test func thumbnailsTakeTheHalfScale() throws {
        let lossy = try ImageSource(bytes: try #require(FileSystem.read(Corpus.fixtures + "/webp/fx-lossy-wide.webp")))
        let size = try lossy.properties()
        let small = try lossy.thumbnail(options: ThumbnailOptions(maxPixelSize: max(size.pixelWidth, size.pixelHeight) / 5))
        #expect(small.source == .mainImage(.half))
        let large = try lossy.thumbnail(options: ThumbnailOptions(maxPixelSize: max(size.pixelWidth, size.pixelHeight) / 2))
        #expect(large.source == .mainImage(.full))
        let alpha = try ImageSource(bytes: try #require(FileSystem.read(Corpus.fixtures + "/webp/fx-alpha-best.webp")))
        #expect(try alpha.thumbnail(options: ThumbnailOptions(maxPixelSize: 16)).source == .fullImage)
    }
}
