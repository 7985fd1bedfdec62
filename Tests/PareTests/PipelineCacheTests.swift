#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable @_spi(CommandLine) import Pare
import PareCore
import TestSupport

/// A thumbnail of `width`×`height` RGB whose first byte is `marker`, for cache tests.
private func sample(_ width: Int, _ height: Int = 1, marker: UInt8 = 0) throws -> Thumbnail {
    var image = try Image(width: width, height: height, format: .rgb8)
    image.withMutableRow(0) { $0[0] = marker }
    return Thumbnail(image: image, source: .fullImage, reason: "test", appliedOrientation: .up,
                     ledgerPeakBytes: 0, allocations: 0, warnings: [])
}

@Suite struct PipelineMemoryCacheTests {
    @Test func leastRecentlyUsedGoesFirstPastTheCountLimit() throws {
        let cache = MemoryCache(costLimit: 1 << 20, countLimit: 3)
        for name in ["a", "b", "c"] { cache.insert(try sample(10), for: ThumbnailKey(name), residency: .delivered) }
        #expect(cache.value(for: ThumbnailKey("a"), residency: .delivered) != nil)
        cache.insert(try sample(10), for: ThumbnailKey("d"), residency: .delivered)
        #expect(cache.keysByAge.map(\.description) == ["c", "a", "d"])
        #expect(cache.value(for: ThumbnailKey("b"), residency: .delivered) == nil)
        #expect(cache.count == 3)
    }

    @Test func costLimitEvictsByBytes() throws {
        // Entries of 300, 300, 300 and 600 bytes under a 1000-byte limit.
        let cache = MemoryCache(costLimit: 1000, countLimit: 100)
        cache.insert(try sample(100), for: ThumbnailKey("a"), residency: .delivered)
        cache.insert(try sample(100), for: ThumbnailKey("b"), residency: .delivered)
        cache.insert(try sample(100), for: ThumbnailKey("c"), residency: .delivered)
        #expect(cache.totalCost == 900)
        cache.insert(try sample(200), for: ThumbnailKey("d"), residency: .delivered)
        #expect(cache.keysByAge.map(\.description) == ["c", "d"])
        #expect(cache.totalCost == 900)
        // Larger than the whole limit: not kept, nothing else evicted for it.
        cache.insert(try sample(400), for: ThumbnailKey("e"), residency: .delivered)
        #expect(cache.keysByAge.map(\.description) == ["c", "d"])
        // Replacing an entry replaces its cost.
        cache.insert(try sample(10), for: ThumbnailKey("d"), residency: .delivered)
        #expect(cache.totalCost == 330)
    }

    @Test func trimReleasesInTiers() throws {
        let pipeline = try PipelineFixtures.pipeline { $0.diskCacheDirectory = PipelineFixtures.temporaryDirectory() }
        let cache = pipeline.memoryCache
        let residencies: [(String, MemoryCache.Residency)] = [("off", .offscreen), ("pre", .prefetched),
                                                              ("got", .delivered), ("vis", .visible)]
        for (name, residency) in residencies { cache.insert(try sample(4), for: ThumbnailKey(name), residency: residency) }
        cache.markOffscreen(ThumbnailKey("vis"))
        cache.insert(try sample(4), for: ThumbnailKey("vis2"), residency: .visible)
        _ = pipeline.diskCache?.totalBytes
        #expect(pipeline.diskCache?.hasIndex == true)
        pipeline.trim(.diskCacheIndex)
        #expect(pipeline.diskCache?.hasIndex == false)
        #expect(cache.count == 5)
        pipeline.trim(.offscreen)
        #expect(Set(cache.keysByAge.map(\.description)) == ["pre", "got", "vis2"])
        pipeline.trim(.prefetched)
        #expect(Set(cache.keysByAge.map(\.description)) == ["got", "vis2"])
        pipeline.trim(.allButVisible)
        #expect(cache.keysByAge.map(\.description) == ["vis2"])
        pipeline.trim(.everything)
        #expect(cache.count == 0)
    }
}

@Suite struct PipelineDiskCacheTests {
    @Test func entryRoundTripsAndRefusesEveryDamage() throws {
        let entry = DiskCacheEntry(key: ThumbnailKey("k|size=64"), encoding: .png, source: .mainImage(.quarter),
                                   reason: "why", orientation: .right, width: 3, height: 2, payload: Array(0 ..< 200))
        let bytes = entry.serialized()
        #expect(try DiskCacheEntry(parsing: bytes) == entry)
        // Every truncation, and a flip of every bit, is refused.
        for length in 0 ..< bytes.count {
            #expect(throws: DiskCacheEntry.Damage.self) { try DiskCacheEntry(parsing: Array(bytes[0 ..< length])) }
        }
        for index in bytes.indices {
            for bit in 0 ..< 8 {
                var damaged = bytes
                damaged[index] ^= 1 << bit
                #expect(throws: DiskCacheEntry.Damage.self) { try DiskCacheEntry(parsing: damaged) }
            }
        }
    }

    @Test func secondPipelineReadsTheDiskCacheInsteadOfDecoding() async throws {
        let directory = PipelineFixtures.temporaryDirectory()
        let request = PipelineFixtures.request(PipelineFixtures.medium, key: "disk", size: 96)
        let first = try PipelineFixtures.pipeline { $0.diskCacheDirectory = directory }
        let made = try await first.thumbnail(request)
        #expect(first.statistics.decodes == 1)
        // The entry is written after the thumbnail is delivered.
        await first.cacheWritesFinished()
        let second = try PipelineFixtures.pipeline { $0.diskCacheDirectory = directory }
        let cached = try await second.thumbnail(request)
        #expect(second.statistics.decodes == 0)
        #expect(second.statistics.diskCacheHits == 1)
        // Stored as JPEG (the thumbnail is opaque): exactly the pixels of that JPEG.
        let stored = try DiskCacheEntry(automatic: made, key: request.cacheKey())
        #expect(stored.encoding == .jpeg)
        #expect(cached.image.pixels == (try stored.image(ledger: MemoryLedger())).pixels)
        #expect(cached.source == made.source)
        #expect(cached.image.format == made.image.format)
    }

    /// A truncated entry, and entries with a bit flipped in the header, the key and the
    /// payload: each is found damaged, removed, never served; the thumbnail is decoded again
    /// and the entry rewritten whole.
    @Test(arguments: ["truncated", "header", "key", "payload"])
    func damagedEntryIsRebuiltNeverServed(damage: String) async throws {
        let directory = PipelineFixtures.temporaryDirectory()
        let request = PipelineFixtures.request(PipelineFixtures.medium, key: "damaged-\(damage)", size: 96)
        let writer = try PipelineFixtures.pipeline { $0.diskCacheDirectory = directory }
        let made = try await writer.thumbnail(request)
        await writer.cacheWritesFinished()
        let path = directory + "/" + DiskCache.fileName(for: try request.cacheKey().encoded(as: ThumbnailOutput.automatic.cacheKey))
        var bytes = try #require(FileSystem.read(path))
        switch damage {
        case "truncated": bytes.removeLast(bytes.count / 3)
        case "header": bytes[DiskCacheEntry.Field.width.offset] ^= 0x01
        case "key": bytes[DiskCacheEntry.Field.fixedSize + 2] ^= 0x20
        default: bytes[bytes.count - 20] ^= 0x80
        }
        #expect(FileIO.writeAtomically(bytes, to: path, temporaryName: ".damage"))

        let pipeline = try PipelineFixtures.pipeline { $0.diskCacheDirectory = directory }
        let rebuilt = try await pipeline.thumbnail(request)
        #expect(pipeline.statistics.diskCacheHits == 0)
        #expect(pipeline.statistics.decodes == 1)
        #expect(pipeline.diskCache?.damagedEntriesRemoved == 1)
        #expect(rebuilt.image.pixels == made.image.pixels)
        await pipeline.cacheWritesFinished()
        let rewritten = try #require(FileSystem.read(path))
        #expect(try DiskCacheEntry(parsing: rewritten).key == request.cacheKey().encoded(as: ThumbnailOutput.automatic.cacheKey))
    }

    @Test func leastRecentlyUsedEntriesGoPastTheSizeCap() throws {
        let directory = PipelineFixtures.temporaryDirectory()
        func entry(_ name: String) -> DiskCacheEntry {
            DiskCacheEntry(key: ThumbnailKey(name), encoding: .png, source: .fullImage, reason: "", orientation: .up,
                           width: 1, height: 1, payload: [UInt8](repeating: 7, count: 1000))
        }
        let size = entry("a").serialized().count
        // Room for three and a half entries: the fourth passes the cap, and the least recently
        // used goes, which brings the total under 90% of the cap.
        let cache = try DiskCache(directory: directory, sizeLimit: 3 * size + size / 2)
        for name in ["a", "b", "c"] {
            #expect(cache.store(entry(name)))
            usleep(20_000) // past the file system clock's granularity
        }
        #expect(cache.entry(for: ThumbnailKey("a")) != nil) // a is now the most recent
        usleep(20_000)
        #expect(cache.store(entry("d")))
        #expect(cache.entry(for: ThumbnailKey("b")) == nil)
        // Each read makes its entry the most recent; 20 ms apart, past the clock's granularity.
        for name in ["a", "c", "d"] {
            #expect(cache.entry(for: ThumbnailKey(name)) != nil)
            usleep(20_000)
        }
        #expect(cache.totalBytes == 3 * size)
        // Those reads made a the least recently used: the next write evicts it.
        usleep(20_000)
        #expect(cache.store(entry("e")))
        #expect(cache.entry(for: ThumbnailKey("a")) == nil)
        #expect(cache.totalBytes == 3 * size)
    }

    /// Two caches on one directory (as two processes would have), writing the same keys and
    /// evicting under a small cap at the same time: no reader ever finds a damaged entry, and
    /// every file left is sound.
    @Test func twoCachesShareADirectory() async throws {
        let directory = PipelineFixtures.temporaryDirectory()
        func entry(_ index: Int, writer: Int) -> DiskCacheEntry {
            DiskCacheEntry(key: ThumbnailKey("shared-\(index)"), encoding: .png, source: .fullImage, reason: "writer \(writer)",
                           orientation: .up, width: 1, height: 1, payload: [UInt8](repeating: UInt8(index), count: 3000))
        }
        let caches = [try DiskCache(directory: directory, sizeLimit: 40_000), try DiskCache(directory: directory, sizeLimit: 40_000)]
        await withTaskGroup(of: Void.self) { group in
            for (writer, cache) in caches.enumerated() {
                group.addTask {
                    for round in 0 ..< 200 {
                        let index = (round * 7 + writer) % 30
                        if let found = cache.entry(for: ThumbnailKey("shared-\(index)")) {
                            precondition(found.payload.allSatisfy { $0 == UInt8(index) }, "a wrong payload was served")
                        } else {
                            cache.store(entry(index, writer: writer))
                        }
                    }
                }
            }
        }
        #expect(caches[0].damagedEntriesRemoved == 0)
        #expect(caches[1].damagedEntriesRemoved == 0)
        let names = FileSystem.list(directory)
        #expect(!names.isEmpty)
        for name in names {
            #expect(name.hasSuffix(".pare"), "left over: \(name)")
            let bytes = try #require(FileSystem.read(directory + "/" + name))
            #expect(throws: Never.self) { try DiskCacheEntry(parsing: bytes) }
        }
    }

    @Test func editedFileIsANewKey() async throws {
        let directory = PipelineFixtures.temporaryDirectory()
        let path = directory + "/photo.jpg"
        #expect(FileIO.writeAtomically(PipelineFixtures.medium, to: path, temporaryName: ".w"))
        var options = ThumbnailOptions(maxPixelSize: 64)
        options.embedded = .never
        let request = ThumbnailRequest(path: path, options: options)
        let before = try request.cacheKey()
        let pipeline = try PipelineFixtures.pipeline { $0.diskCacheDirectory = directory + "/cache" }
        #expect(try await pipeline.thumbnail(request).image.width == 64)
        #expect(FileIO.writeAtomically(SyntheticJPEG.make(width: 800, height: 1200), to: path, temporaryName: ".w"))
        #expect(try request.cacheKey() != before)
        #expect(try await pipeline.thumbnail(request).image.height == 64)
        #expect(pipeline.statistics.decodes == 2)
    }

    @Test func leftOverTemporaryFileOfAGoneProcessIsRemoved() throws {
        let directory = PipelineFixtures.temporaryDirectory()
        // PID 2^22 + 1 is above Linux's pid_max limit, so no process has it.
        let stale = directory + "/.tmp-4194305-1-0000000000000000.pare"
        #expect(FileIO.writeAtomically([1, 2, 3], to: stale, temporaryName: ".w"))
        let cache = try DiskCache(directory: directory)
        _ = cache.totalBytes
        #expect(!FileSystem.exists(stale))
    }
}
