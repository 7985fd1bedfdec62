import Synchronization
import Testing
@testable @_spi(CommandLine) import Pare
import PareCore
import PareJPEG
import PareICC
import TestSupport

/// `ThumbnailPipeline.files(_:as:)`, the batch path `pare thumbnail` runs on: the bytes of
/// every request, equal to what the one-call encoders write; the disk cache keyed by every
/// field of the output; errors and cancellation per request.
@Suite struct PipelineFileTests {
    /// Three small JPEGs (one gray) and one input that is not an image.
    static let inputs: [[UInt8]] = [
        SyntheticJPEG.make(width: 320, height: 240),
        SyntheticJPEG.make(width: 200, height: 300, restartInterval: 2),
        SyntheticJPEG.make(width: 97, height: 61, components: [SyntheticJPEG.Component(1, 1)]),
        Array("not an image".utf8),
    ]

    static func requests(size: Int = 48) -> [ThumbnailRequest] {
        inputs.enumerated().map { index, bytes in
            ThumbnailRequest(bytes: bytes, key: "input-\(index)", options: ThumbnailOptions(maxPixelSize: size))
        }
    }

    /// Every request's result, by index.
    static func run(_ pipeline: ThumbnailPipeline, _ requests: [ThumbnailRequest], as output: ThumbnailOutput,
                    concurrency: Int? = nil) async -> [Result<ThumbnailFile, PareError>?] {
        let results = Mutex<[Result<ThumbnailFile, PareError>?]>(Array(repeating: nil, count: requests.count))
        await pipeline.files(requests, as: output, concurrency: concurrency) { index, result in
            results.withLock { $0[index] = result }
        }
        return results.withLock { $0 }
    }

    @Test(arguments: [ImageFileFormat.jpeg, .png, .netpbm])
    func filesAreWhatTheEncodersWrite(format: ImageFileFormat) async throws {
        let pipeline = try PipelineFixtures.pipeline()
        let output = ThumbnailOutput(format: .fixed(format), jpeg: JPEGEncoderOptions(quality: 70), png: .fast)
        let results = await Self.run(pipeline, Self.requests(), as: output, concurrency: 2)
        #expect(results.allSatisfy { $0 != nil })
        for (index, bytes) in Self.inputs.enumerated().dropLast() {
            let file = try #require(try results[index]?.get())
            let thumbnail = try await ImageSource(bytes: bytes).thumbnail(options: ThumbnailOptions(maxPixelSize: 48))
            let expected = try ImageEncoding.encode(thumbnail, as: format, jpeg: JPEGEncoderOptions(quality: 70), png: .fast)
            #expect(file.bytes == expected.bytes, "input \(index)")
            #expect(file.format == format && !file.fromDiskCache)
            #expect((file.width, file.height) == (thumbnail.image.width, thumbnail.image.height))
            #expect(file.ledgerPeakBytes > 0 && file.allocations > 0)
        }
        guard case .failure(.unknownFormat)? = results[3] else {
            Issue.record("the text input gave \(String(describing: results[3]))")
            return
        }
        #expect(pipeline.statistics.decodes == 3)
    }

    @Test func byAlphaPicksJPEGForOpaqueThumbnails() async throws {
        let pipeline = try PipelineFixtures.pipeline()
        let results = await Self.run(pipeline, Array(Self.requests().prefix(1)), as: .automatic)
        #expect(try results[0]?.get().format == .jpeg)
    }

    @Test func theDiskCacheAnswersTheSameOutputOnly() async throws {
        let directory = PipelineFixtures.temporaryDirectory()
        let pipeline = try PipelineFixtures.pipeline { $0.diskCacheDirectory = directory }
        let requests = Array(Self.requests().prefix(3))
        let png = ThumbnailOutput(format: .fixed(.png))
        let first = await Self.run(pipeline, requests, as: png)
        let second = await Self.run(pipeline, requests, as: png)
        for index in 0 ..< 3 {
            let made = try #require(try first[index]?.get()), cached = try #require(try second[index]?.get())
            #expect(!made.fromDiskCache && cached.fromDiskCache)
            #expect(made.bytes == cached.bytes && made.source == cached.source)
            #expect((made.width, made.height) == (cached.width, cached.height))
        }
        #expect(pipeline.statistics.decodes == 3 && pipeline.statistics.diskCacheHits == 3)
        // Netpbm is stored as PNG and written back from its pixels: the same bytes as made.
        let netpbm = ThumbnailOutput(format: .fixed(.netpbm))
        let madeNetpbm = await Self.run(pipeline, requests, as: netpbm)
        let cachedNetpbm = await Self.run(pipeline, requests, as: netpbm)
        for index in 0 ..< 3 {
            #expect(try madeNetpbm[index]?.get().bytes == cachedNetpbm[index]?.get().bytes)
            #expect(try cachedNetpbm[index]?.get().fromDiskCache == true)
            #expect(try cachedNetpbm[index]?.get().format == .netpbm)
        }
        // Another quality is another file.
        let other = await Self.run(pipeline, requests, as: ThumbnailOutput(format: .fixed(.png), png: .small))
        #expect(try other[0]?.get().fromDiskCache == false)
    }

    @Test func oneFileIsABatchOfOne() async throws {
        let pipeline = try PipelineFixtures.pipeline()
        let file = try await pipeline.file(Self.requests()[0], as: ThumbnailOutput(format: .fixed(.png)))
        let thumbnail = try await ImageSource(bytes: Self.inputs[0]).thumbnail(options: ThumbnailOptions(maxPixelSize: 48))
        #expect(file.bytes == (try ImageEncoding.encode(thumbnail, as: .png).bytes))
        await #expect(throws: PareError.self) {
            try await pipeline.file(Self.requests()[3], as: ThumbnailOutput(format: .fixed(.png)))
        }
    }

    @Test func aCancelledBatchDeliversEveryRequest() async throws {
        let pipeline = try PipelineFixtures.pipeline()
        let requests = (0 ..< 16).map { PipelineFixtures.request(PipelineFixtures.large, key: "large-\($0)", fullScale: true) }
        let task = Task { await Self.run(pipeline, requests, as: .automatic, concurrency: 1) }
        task.cancel()
        let results = await task.value
        #expect(results.allSatisfy { $0 != nil })
        let cancelled = results.filter { if case .failure(.cancelled)? = $0 { return true } else { return false } }.count
        #expect(cancelled >= 15, "\(cancelled) of 16 cancelled")
    }

    /// Each worker reserves its share of the budget for the batch: the reservations never
    /// pass the budget, and a request that needs more than a share fails clearly.
    @Test func workersShareTheBudget() async throws {
        let budget = 4 * 1024 * 1024
        let pipeline = try PipelineFixtures.pipeline {
            $0.memoryBudget = budget
            $0.maxConcurrentDecodes = 2
        }
        let small = (0 ..< 6).map { PipelineFixtures.request(PipelineFixtures.medium, key: "small-\($0)", size: 128) }
        // A 2000-pixel output alone is 9 MB, over a share of 2 MiB.
        let large = PipelineFixtures.request(PipelineFixtures.large, key: "large", size: 2000)
        let results = await Self.run(pipeline, small + [large], as: .automatic, concurrency: 2)
        for index in 0 ..< 6 { #expect(try results[index]?.get().width == 128) }
        guard case .failure(.memoryBudgetExceeded(needed: budget / 2, budget: budget))? = results[6] else {
            Issue.record("the large request gave \(String(describing: results[6]))")
            return
        }
        #expect(pipeline.peakReservedBytes <= budget && pipeline.reservedBytes == 0)
    }

    /// Every field of `ThumbnailOutput` and of the JPEG encoder's options changes the disk
    /// cache's key: a field added without being keyed fails here.
    @Test func everyOutputFieldChangesTheKey() throws {
        let base = ThumbnailOutput(format: .fixed(.jpeg))
        let changes: [String: (inout ThumbnailOutput) -> Void] = [
            "format": { $0.format = .jpegOrPNGByAlpha },
            "png": { $0.png = .small },
            "background": { $0.background = .black },
            "jpeg.quality": { $0.jpeg.quality += 1 },
            "jpeg.sampling": { $0.jpeg.sampling = .s444 },
            "jpeg.optimizeHuffmanTables": { $0.jpeg.optimizeHuffmanTables = true },
            "jpeg.restartInterval": { $0.jpeg.restartInterval = .mcuRows(1) },
            "jpeg.progressive": { $0.jpeg.progressive = true },
            "jpeg.forceBaseline": { $0.jpeg.forceBaseline = true },
            "jpeg.iccProfile": { $0.jpeg.iccProfile = ProfileBuilder.sRGBLike().build() },
        ]
        let fields = Set(Mirror(reflecting: base).children.compactMap(\.label).filter { $0 != "jpeg" })
            .union(Mirror(reflecting: base.jpeg).children.compactMap(\.label).map { "jpeg." + $0 })
        #expect(fields == Set(changes.keys), "fields without a key decision: \(fields.subtracting(changes.keys).sorted())")
        for (name, change) in changes {
            var changed = base
            change(&changed)
            #expect(changed.cacheKey != base.cacheKey, "\(name) does not change the key")
        }
        // Netpbm is kept as PNG: its entries are the PNG output's.
        #expect(ThumbnailOutput(format: .fixed(.netpbm)).stored.cacheKey == ThumbnailOutput(format: .fixed(.png)).cacheKey)
    }
}
