import Testing
import PareCore
import PareJPEG
import ParePNG
@testable import Pare
import TestSupport

/// The pipeline's own limit (`memoryLimit`) and the decoders' limits reached through
/// `ThumbnailOptions`, each giving the decoder's typed error inside `PareError`.
@Suite struct ThumbnailLimitTests {
    static func thumbnail(_ bytes: [UInt8], _ options: ThumbnailOptions) throws(PareError) -> Thumbnail {
        try ImageSource(bytes: bytes).thumbnail(options: options)
    }

    static func options() -> ThumbnailOptions {
        var options = ThumbnailOptions(maxPixelSize: 64)
        options.embedded = .never
        // One thread: a two-thread PNG decode refused its extra buffers falls back to one
        // thread, which fits (ParallelPNGDecodeTests.memoryIsCounted), so a limit just under
        // its peak is not a refusal.
        options.decodeWorkers = 1
        return options
    }

    @Test func memoryLimit() throws {
        let jpeg = SyntheticJPEG.make(width: 1024, height: 768)
        let png = SyntheticPNG.make(width: 400, height: 300, channels: 3, interlaced: false)
        for bytes in [jpeg, png] {
            let peak = try Self.thumbnail(bytes, Self.options()).ledgerPeakBytes
            var options = Self.options()
            options.memoryLimit = peak - 1
            do {
                _ = try Self.thumbnail(bytes, options)
                Issue.record("thumbnailed under a limit below its peak \(peak)")
            } catch {
                // One path for the ledger's refusal, whatever the codec.
                switch error {
                case let .memoryLimit(requested, inUse, limit):
                    #expect(limit == peak - 1 && requested + inUse > limit)
                    #expect(error.kind == .memoryLimit)
                default:
                    Issue.record("unexpected \(error)")
                }
            }
            options.memoryLimit = peak
            #expect(try Self.thumbnail(bytes, options).ledgerPeakBytes == peak)
        }
    }

    @Test func decoderLimitsArePassedOn() throws {
        var options = Self.options()
        options.jpeg.maxDimension = 1000
        do {
            _ = try Self.thumbnail(SyntheticJPEG.make(width: 1024, height: 16), options)
            Issue.record("JPEG over maxDimension thumbnailed")
        } catch {
            #expect(error.description == "JPEG: width 1024 exceeds the limit 1000 at byte 71")
        }
        options = Self.options()
        options.png.maxHeight = 100
        do {
            _ = try Self.thumbnail(SyntheticPNG.make(width: 8, height: 101, channels: 1, interlaced: false), options)
            Issue.record("PNG over maxHeight thumbnailed")
        } catch {
            #expect(error.description == "PNG: height 101 exceeds the limit 100 at byte 8")
        }
    }

    @Test func exifLimitsArePassedOn() throws {
        // Orientation lives in IFD0; with no IFD allowed it cannot be read, and the
        // thumbnail is made anyway, not turned.
        let bytes = try #require(FileSystem.read(Corpus.fixtures + "/sample.jpg"))
        var options = Self.options()
        #expect(try Self.thumbnail(bytes, options).appliedOrientation == .right)
        options.exif.maxIFDs = 0
        #expect(try Self.thumbnail(bytes, options).appliedOrientation == .up)
    }
}
