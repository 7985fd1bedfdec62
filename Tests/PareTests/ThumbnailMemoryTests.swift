import Testing
@testable import Pare
import TestSupport
import PareJPEG

/// The thumbnail path's footprint, from the ledger and checked against glibc's heap: it
/// depends on the input's width and the output's size, never on the input's height.
@Suite struct ThumbnailMemoryTests {
    /// On one core; on two, the second thread's half of the scan adds up to
    /// `JPEGOptions.maxSplitScanBytes` (a constant, not a share of the height: the heights
    /// compared on two are those where its share is what that budget holds, not half).
    @Test(arguments: [1, 2])
    func jpeg24MegapixelTo256FitsInOneMebibyte(workers: Int) throws {
        var peaks: [Int] = []
        let limit = 1024 * 1024 + (workers > 1 ? JPEGOptions().maxSplitScanBytes : 0)
        for height in workers > 1 ? [8000, 16000] : [4000, 8000] {
            let bytes = SyntheticJPEG.make(width: 6000, height: height)
            let result = try ThumbnailProbe.run(bytes, size: 256, workers: workers)
            #expect(result.thumbnail.source == .mainImage(.eighth))
            #expect(result.thumbnail.ledgerPeakBytes <= limit, "6000×\(height): \(result.thumbnail.ledgerPeakBytes)")
            if let growth = result.heapPeakGrowth {
                let peak = result.thumbnail.ledgerPeakBytes
                #expect(growth <= peak + peak / 10 + 64 * 1024, "heap grew \(growth) B, ledger peak \(peak) B")
            }
            print("JPEG 6000×\(height) 4:2:0 on \(workers) thread(s) → \(result.thumbnail.image.width)×\(result.thumbnail.image.height): ledger peak \(result.thumbnail.ledgerPeakBytes) B, heap peak growth \(result.heapPeakGrowth.map(String.init) ?? "n/a") B")
            peaks.append(result.thumbnail.ledgerPeakBytes)
        }
        #expect(peaks[1] <= peaks[0] + 64 * 1024, "peak grew with height: \(peaks)")
    }

    @Test(arguments: [false, true])
    func png12MegapixelTo256FitsInTwoMebibytes(interlaced: Bool) throws {
        var peaks: [Int] = []
        for height in [3000, 6000] {
            let bytes = SyntheticPNG.make(width: 4000, height: height, channels: 3, interlaced: interlaced)
            let result = try ThumbnailProbe.run(bytes, size: 256)
            #expect(result.thumbnail.source == .fullImage)
            #expect(result.thumbnail.ledgerPeakBytes <= 2 * 1024 * 1024,
                    "4000×\(height) interlaced \(interlaced): \(result.thumbnail.ledgerPeakBytes)")
            if let growth = result.heapPeakGrowth {
                let peak = result.thumbnail.ledgerPeakBytes
                #expect(growth <= peak + peak / 10 + 64 * 1024, "heap grew \(growth) B, ledger peak \(peak) B")
            }
            print("PNG 4000×\(height) RGB interlaced \(interlaced) → \(result.thumbnail.image.width)×\(result.thumbnail.image.height): ledger peak \(result.thumbnail.ledgerPeakBytes) B, heap peak growth \(result.heapPeakGrowth.map(String.init) ?? "n/a") B")
            peaks.append(result.thumbnail.ledgerPeakBytes)
        }
        #expect(peaks[1] <= peaks[0] + 64 * 1024, "peak grew with height: \(peaks)")
    }
}

/// A lossy WebP read through partition windows and decoded on two threads: its thumbnail's
/// footprint grows with the width only, as JPEG's does, and the heap agrees with the ledger.
@Suite struct WebPThumbnailMemoryTests {
    @Test(.requiresMadeCorpus("webp", script: "Fixtures/webp/make-corpus.sh"))
    func lossy12And24MegapixelTo256HoldTheSame() throws {
        let folder = try #require(Corpus.made("webp"))
        var peaks: [Int] = []
        for name in ["gen-12mp-q80.webp", "gen-24mp-tall-q80.webp"] {
            let bytes = try #require(FileSystem.read(folder + "/" + name))
            let result = try ThumbnailProbe.run(bytes, size: 256)
            #expect(result.thumbnail.source == .mainImage(.half))
            let peak = result.thumbnail.ledgerPeakBytes
            // Nothing near the file's size is held: the file is 0.9 and 1.8 MB.
            #expect(peak <= 2 * 1024 * 1024, "\(name): \(peak)")
            if let growth = result.heapPeakGrowth {
                #expect(growth <= peak + peak / 10 + 64 * 1024, "\(name): heap grew \(growth) B, ledger peak \(peak) B")
            }
            print("WebP \(name) → \(result.thumbnail.image.width)×\(result.thumbnail.image.height): ledger peak \(peak) B, heap peak growth \(result.heapPeakGrowth.map(String.init) ?? "n/a") B")
            peaks.append(peak)
        }
        #expect(peaks[1] <= peaks[0] + 64 * 1024, "peak grew with height: \(peaks)")
    }
}

/// Makes a thumbnail with its own ledger while watching the process heap.
enum ThumbnailProbe {
    struct Result {
        var thumbnail: Thumbnail
        var heapPeakGrowth: Int?
    }

    static func run(_ bytes: [UInt8], size: Int, workers: Int? = nil) throws -> Result {
        let source = try ImageSource(bytes: bytes)
        var options = ThumbnailOptions(maxPixelSize: size)
        options.embedded = .never
        options.decodeWorkers = workers
        let ledger = MemoryLedger(limit: options.memoryLimit)
        let (thumbnail, growth) = try HeapMeter.peakGrowth(ledger: ledger) {
            try source.thumbnail(options: options, ledger: ledger)
        }
        return Result(thumbnail: thumbnail, heapPeakGrowth: growth)
    }
}
