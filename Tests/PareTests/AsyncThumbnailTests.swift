import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Pare
import PareCore
import Synchronization
import TestSupport
import Testing

/// The async API: cancellation within an MCU row, values that cross tasks, and no thread
/// explosion when many thumbnails run at once.
@Suite(.serialized) struct AsyncThumbnailTests {
    /// A 24 MP photo (6000×4000, 4:2:0, no restart markers: one serial decode) and a 4096-px
    /// thumbnail of it, which needs the full-scale decode (1/2 would give only 3000 px).
    static let photo = SyntheticJPEG.make(width: 6000, height: 4000)
    static var options: ThumbnailOptions {
        var options = ThumbnailOptions(maxPixelSize: 4096)
        options.decodeWorkers = 1
        return options
    }

    /// Counts the decoders' cancellation checks (once per MCU row) and answers as the async
    /// API does, with `Task.isCancelled`.
    final class CheckCounter: Sendable {
        let calls = Atomic<Int>(0)
        let callsWhenCancelled = Atomic<Int>(-1)

        var check: CancellationCheck {
            CancellationCheck { [self] in
                let n = calls.add(1, ordering: .relaxed).newValue
                let cancelled = Task.isCancelled
                if cancelled { _ = callsWhenCancelled.compareExchange(expected: -1, desired: n, ordering: .relaxed) }
                return cancelled
            }
        }
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    @Test func cancellingATenthOfTheWayInStopsWithinARow() async throws {
        let whole = CheckCounter()
        let wholeStart = ContinuousClock.now
        let full = try await Task {
            let ledger = MemoryLedger()
            let thumbnail = try ImageSource(bytes: Self.photo).thumbnail(options: Self.options, ledger: ledger,
                                                                         cancellation: whole.check)
            return (thumbnail.image.width, thumbnail.image.height, ledger.currentBytes)
        }.value
        let wholeTime = Self.seconds(since: wholeStart)
        let total = whole.calls.load(ordering: .relaxed)
        #expect(full.0 == 4096 && full.1 == 2731 && full.2 == 0)
        #expect(total >= 250)  // 4000 rows / 16 per MCU row

        let part = CheckCounter()
        let start = ContinuousClock.now
        let task = Task { () throws -> Int in
            let ledger = MemoryLedger()
            do {
                _ = try ImageSource(bytes: Self.photo).thumbnail(options: Self.options, ledger: ledger,
                                                                 cancellation: part.check)
            } catch {
                #expect(ledger.currentBytes == 0, "the cancelled job gave back every buffer")
                throw error
            }
            return ledger.currentBytes
        }
        while part.calls.load(ordering: .relaxed) < total / 10 { try await Task.sleep(for: .microseconds(100)) }
        task.cancel()
        let result = await task.result
        let partTime = Self.seconds(since: start)
        #expect(throws: PareError.cancelled) { try result.get() }
        let calls = part.calls.load(ordering: .relaxed), atCancel = part.callsWhenCancelled.load(ordering: .relaxed)
        // The first check after cancel() stops the decode: no MCU row is decoded after it.
        #expect(atCancel == calls)
        #expect(calls < total / 2, "\(calls) of \(total) MCU rows")
        print("24 MP → 4096 px: whole thumbnail \(total) MCU-row checks in \(wholeTime) s; cancelled at check \(total / 10), "
              + "stopped after \(calls) checks in \(partTime) s (\(Int(100 * partTime / wholeTime))% of the time)")
    }

    /// The async entry point itself: a cancelled task ends with `.cancelled` and the ledger
    /// it was given back at zero.
    @Test func asyncThumbnailThrowsCancelled() async throws {
        let task = Task { () async throws -> Thumbnail in
            try await ImageSource(bytes: Self.photo).thumbnail(options: Self.options)
        }
        try await Task.sleep(for: .milliseconds(20))
        task.cancel()
        let result = await task.result
        #expect(throws: PareError.cancelled) { try result.get() }
        #expect(PareError.cancelled.kind == .cancelled)

        // Cancelled before it starts: nothing is allocated.
        let early = await Task { () async -> (PareError?, Int, Int) in
            withUnsafeCurrentTask { $0?.cancel() }
            let ledger = MemoryLedger()
            do throws(PareError) {
                _ = try await ImageSource(bytes: Self.photo).thumbnail(options: Self.options, ledger: ledger)
                return (nil, ledger.peakBytes, ledger.currentBytes)
            } catch {
                return (error, ledger.peakBytes, ledger.currentBytes)
            }
        }.value
        #expect(early.0 == .cancelled && early.1 == 0 && early.2 == 0)
    }

    /// Threads of this process now, from /proc/self/task.
    static func threadCount() -> Int {
        guard let dir = opendir("/proc/self/task") else { return 0 }
        defer { closedir(dir) }
        var n = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
            if name != [46] && name != [46, 46] { n += 1 }
        }
        return n
    }

    /// 64 thumbnails of restart-interval JPEGs in one task group: each would start helper
    /// threads if it ran alone, but the default `decodeWorkers` shares the cores among the
    /// decodes running at once, so the process gains at most cores + 1 threads: the
    /// cooperative pool's (at most one per core, when it had not started them yet) and the
    /// test's own sampler; no decode helper. (2 cores: 2 more measured, the sampler's among them.)
    @Test(.enabled(if: ProcessInfoLite.isLinux)) func manyConcurrentThumbnailsStartFewThreads() async throws {
        let files = (0 ..< 4).map { SyntheticJPEG.make(width: 1600 + 16 * $0, height: 1200, restartInterval: 4) }
        let cores = ParallelJPEGDecoder.activeCores
        let before = Self.threadCount()
        let most = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let sampler = DispatchSemaphore(value: 0)
        SamplerThread.detach {
            while !stop.load(ordering: .relaxed) {
                let n = Self.threadCount()
                if n > most.load(ordering: .relaxed) { most.store(n, ordering: .relaxed) }
                usleep(200)
            }
            sampler.signal()
        }
        let sizes = try await withThrowingTaskGroup(of: Thumbnail.self) { group in
            for i in 0 ..< 64 {
                let bytes = files[i % files.count]
                group.addTask { try await ImageSource(bytes: bytes).thumbnail(options: ThumbnailOptions(maxPixelSize: 160)) }
            }
            var sizes: [Int] = []
            for try await thumbnail in group { sizes.append(thumbnail.image.width) }
            return sizes
        }
        stop.store(true, ordering: .relaxed)
        sampler.wait()
        #expect(sizes.count == 64 && sizes.allSatisfy { $0 == 160 })
        let added = most.load(ordering: .relaxed) - before
        print("64 concurrent async thumbnails (restart interval 4, \(cores) cores): \(before) threads before, "
              + "at most \(most.load(ordering: .relaxed)) during (\(added) more, the sampler's among them)")
        #expect(added <= cores + 1)
    }

    /// One `ImageSource` (a file read with `pread`) shared by 16 child tasks: each makes its
    /// own thumbnail, all equal to one made alone, and its properties are read once and
    /// cached under the source's lock.
    @Test func sharedSourceAcrossTasks() async throws {
        let bytes = SyntheticJPEG.make(width: 640, height: 480, restartInterval: 4)
        let directory = PipelineFixtures.temporaryDirectory()
        let path = directory + "/shared-source.jpg"
        let file = try #require(fopen(path, "wb"))
        #expect(fwrite(bytes, 1, bytes.count, file) == bytes.count)
        fclose(file)
        defer { unlink(path); rmdir(directory) }
        let options = ThumbnailOptions(maxPixelSize: 96)
        let alone = try await ImageSource(path: path).thumbnail(options: options)
        for source in [try ImageSource(path: path), try ImageSource(bytes: bytes)] {
            let pixels = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for _ in 0 ..< 16 {
                    group.addTask { try await source.thumbnail(options: options).image.pixels }
                }
                var all: [[UInt8]] = []
                for try await one in group { all.append(one) }
                return all
            }
            #expect(pixels.count == 16)
            #expect(pixels.allSatisfy { $0 == alone.image.pixels })
            #expect(try source.properties().pixelWidth == 640)
        }
    }
}

/// Whether /proc/self/task can be read.
enum ProcessInfoLite {
    static var isLinux: Bool {
        #if os(Linux)
        return true
        #else
        return false
        #endif
    }
}

/// A detached POSIX thread, for a sampler that must not run on the task pool it watches.
enum SamplerThread {
    static func detach(_ body: @escaping @Sendable () -> Void) {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        _ = pthread_create(&thread, nil, { context in
            if let context { Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body() }
            return nil
        }, context)
        pthread_detach(thread)
    }
}
