#if canImport(Glibc)
import Glibc
#endif
import Testing
import PareCore
import PareJPEG
import ParePNG
@testable import Pare
import TestSupport

/// Decompression bombs through the whole thumbnail pipeline: headers that claim 4 gigapixels
/// are refused by the default limits before any buffer is sized from them, and with the
/// limits raised the same kind of file streams through in a few MiB.
@Suite struct BombTests {
    /// The job's ledger peak and the heap's growth while it ran, or the error it threw.
    struct Outcome {
        var thumbnail: Thumbnail?
        var error: PareError?
        var ledgerPeak: Int
        var heapGrowth: Int?
    }

    static func run(_ bytes: [UInt8], _ options: ThumbnailOptions) throws -> Outcome {
        let source = try ImageSource(bytes: bytes)
        let ledger = MemoryLedger(limit: options.memoryLimit)
        let (result, growth) = HeapMeter.peakGrowth(ledger: ledger) { () -> Result<Thumbnail, PareError> in
            do throws(PareError) {
                return .success(try source.thumbnail(options: options, ledger: ledger))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case let .success(thumbnail):
            return Outcome(thumbnail: thumbnail, error: nil, ledgerPeak: ledger.peakBytes, heapGrowth: growth)
        case let .failure(error):
            return Outcome(thumbnail: nil, error: error, ledgerPeak: ledger.peakBytes, heapGrowth: growth)
        }
    }

    static func options(_ size: Int = 256) -> ThumbnailOptions {
        var options = ThumbnailOptions(maxPixelSize: size)
        options.embedded = .never
        return options
    }

    static let mebibyte = 1 << 20

    @Test func jpegClaiming65500SquaredIsRefusedFromItsHeader() throws {
        let bomb = BombFiles.jpeg(width: 65500, height: 65500, dataBytes: 64)
        #expect(bomb.count < 400)
        let outcome = try Self.run(bomb, Self.options())
        let error = try #require(outcome.error)
        guard case .jpeg(.limitExceeded(what: "pixel count", value: 65500 * 65500, limit: 1 << 28, offset: 71)) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect("\(error)" == "JPEG: pixel count 4290250000 exceeds the limit 268435456 at byte 71")
        #expect(outcome.ledgerPeak == 64 * 1024, "refused from the header: only the 64 KiB input window, yet \(outcome.ledgerPeak) ledger bytes")
        if let growth = outcome.heapGrowth { #expect(growth < Self.mebibyte, "heap grew \(growth) B") }
        print("JPEG bomb 65500×65500 (\(bomb.count) B), default limits: \(error); ledger peak \(outcome.ledgerPeak) B, heap growth \(outcome.heapGrowth.map(String.init) ?? "n/a") B")
    }

    @Test func progressiveJPEGClaiming65500SquaredIsRefused() throws {
        let bomb = BombFiles.progressiveJPEG(width: 65500, height: 65500, dataBytes: 64)
        let outcome = try Self.run(bomb, Self.options())
        let error = try #require(outcome.error)
        guard case .jpeg(.limitExceeded(what: "pixel count", value: 65500 * 65500, limit: 1 << 28, offset: 71)) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(outcome.ledgerPeak == 64 * 1024, "refused from the header: only the 64 KiB input window, yet \(outcome.ledgerPeak) ledger bytes")
        if let growth = outcome.heapGrowth { #expect(growth < Self.mebibyte, "heap grew \(growth) B") }

        // With the pixel limit raised, the coefficient store a progressive frame needs (every
        // block's DC at 1/8: 128 MiB here) is still refused, by the job's memory limit,
        // before it is allocated.
        var raised = Self.options()
        raised.jpeg.maxPixels = 65500 * 65500
        raised.memoryLimit = 64 * Self.mebibyte
        let second = try Self.run(bomb, raised)
        let refusal = try #require(second.error)
        guard case let .memoryLimit(requested, _, limit) = refusal else {
            Issue.record("unexpected \(refusal)")
            return
        }
        #expect(limit == 64 * Self.mebibyte && requested > limit)
        #expect(second.ledgerPeak < Self.mebibyte)
        if let growth = second.heapGrowth { #expect(growth < Self.mebibyte, "heap grew \(growth) B") }
        print("progressive JPEG bomb, pixel limit raised: \(refusal); ledger peak \(second.ledgerPeak) B")
    }

    @Test func pngClaiming65535SquaredIsRefusedFromItsHeader() throws {
        let bomb = BombFiles.png(width: 65535, height: 65535, completeData: false)
        #expect(bomb.count < 2000)
        let outcome = try Self.run(bomb, Self.options())
        let error = try #require(outcome.error)
        guard case .png(.limitExceeded(what: "pixel count", value: 65535 * 65535, limit: 1 << 28, offset: 8)) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect("\(error)" == "PNG: pixel count 4294836225 exceeds the limit 268435456 at byte 8")
        #expect(outcome.ledgerPeak == 64 * 1024, "refused from the header: only the 64 KiB input window, yet \(outcome.ledgerPeak) ledger bytes")
        if let growth = outcome.heapGrowth { #expect(growth < Self.mebibyte, "heap grew \(growth) B") }
        print("PNG bomb 65535×65535 (\(bomb.count) B), default limits: \(error); ledger peak \(outcome.ledgerPeak) B, heap growth \(outcome.heapGrowth.map(String.init) ?? "n/a") B")
    }

    @Test func jpegClaiming65500SquaredThumbnailsWhenTheLimitIsRaised() throws {
        let file = BombFiles.jpeg(width: 65500, height: 65500)
        var options = Self.options()
        options.jpeg.maxPixels = 65500 * 65500
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try Self.run(file, options)
        let elapsed = clock.now - start
        if let error = outcome.error { Issue.record("\(error)") }
        let thumbnail = try #require(outcome.thumbnail)
        #expect(thumbnail.source == .mainImage(.eighth))
        #expect(thumbnail.image.width == 256 && thumbnail.image.height == 256)
        #expect(thumbnail.image.row(128)[128] == 128)
        #expect(thumbnail.warnings.isEmpty)
        #expect(outcome.ledgerPeak < 4 * Self.mebibyte)
        if let growth = outcome.heapGrowth {
            #expect(growth <= outcome.ledgerPeak + outcome.ledgerPeak / 10 + 64 * 1024, "heap grew \(growth) B")
        }
        print("JPEG 65500×65500 (\(file.count) B of all-zero blocks), maxPixels raised: \(thumbnail.image.width)×\(thumbnail.image.height) via \(thumbnail.source); ledger peak \(outcome.ledgerPeak) B, heap growth \(outcome.heapGrowth.map(String.init) ?? "n/a") B, \(elapsed)")
    }

    /// With the pixel limit raised, a 65535-pixel-wide PNG streams through in under 4 MiB
    /// whatever its height: two scanlines and the resampler's rows, never the image. The full
    /// 65535×65535 file (4.3 gigapixels, about 50 s in a release build on two cores) runs when the environment
    /// sets PARE_FULL_BOMBS=1; by default 1,024 and 4,096 rows show that the peak does not
    /// grow with the height.
    @Test func pngClaiming65535SquaredThumbnailsWhenTheLimitIsRaised() throws {
        var heights = [1024, 4096]
        if let flag = getenv("PARE_FULL_BOMBS"), String(cString: flag) == "1" { heights.append(65535) }
        var options = Self.options()
        options.png.maxPixels = 65535 * 65535
        var peaks: [Int] = []
        for height in heights {
            let file = BombFiles.png(width: 65535, height: height, completeData: true)
            let clock = ContinuousClock()
            let start = clock.now
            let outcome = try Self.run(file, options)
            let elapsed = clock.now - start
            if let error = outcome.error { Issue.record("\(error)") }
            let thumbnail = try #require(outcome.thumbnail)
            #expect(thumbnail.source == .fullImage)
            #expect(thumbnail.image.width == 256 && thumbnail.image.height == max(1, (height * 256 + 32767) / 65535))
            #expect(thumbnail.image.pixels.allSatisfy { $0 == 0 })
            #expect(outcome.ledgerPeak < 4 * Self.mebibyte)
            if let growth = outcome.heapGrowth {
                #expect(growth <= outcome.ledgerPeak + outcome.ledgerPeak / 10 + 64 * 1024, "heap grew \(growth) B")
            }
            peaks.append(outcome.ledgerPeak)
            print("PNG 65535×\(height) (\(file.count) B), maxPixels raised: \(thumbnail.image.width)×\(thumbnail.image.height); ledger peak \(outcome.ledgerPeak) B, heap growth \(outcome.heapGrowth.map(String.init) ?? "n/a") B, \(elapsed)")
        }
        // Only the output (256 × up to 256 gray bytes) grows with the input's height.
        #expect(peaks.allSatisfy { $0 <= peaks[0] + 256 * 256 + 64 * 1024 }, "peak grew with height: \(peaks)")
    }
}
