import PareCore
import Synchronization
import PareJPEG
import ParePNG

/// Thumbnails for a photo grid or an upload server: async, cached in memory and on disk,
/// coalesced, cancellable, prioritised, and bounded both in concurrent decodes and in the
/// bytes all of them hold at once.
///
/// A request goes through these stages, each in its own file:
/// 1. its key (`ThumbnailRequest.cacheKey`: the file's identity and the pixel options);
/// 2. the memory cache (`MemoryCache`, least recently used out, cost and count limits);
/// 3. the job for that key, shared by every concurrent request for it (coalescing): a
///    request joins it, or starts it;
/// 4. in the job: the disk cache (`DiskCache`), then a decode slot (`PriorityGate`, visible
///    before normal before prefetch), then a memory reservation (`MemoryBudget.swift`), the
///    decode against a ledger limited to that reservation, and the write to the disk cache.
///
/// A request whose task is cancelled returns `PareError.cancelled` at once; the job goes
/// on while any other request (or a prefetch) still wants it, and is cancelled when none
/// does, stopping its decode at the next MCU row or scanline batch. `trim(_:)` releases
/// memory in tiers (see `TrimLevel`).
public final class ThumbnailPipeline: Sendable {
    public struct Configuration: Sendable {
        /// Decodes at once. Default: the cores this process may use. Each decode runs on one
        /// core (the pipeline's parallelism is across images).
        public var maxConcurrentDecodes = ParallelJPEGDecoder.activeCores
        /// The most bytes all running decodes may hold together (see `MemoryBudget.swift`).
        public var memoryBudget = 64 * 1024 * 1024
        /// The memory cache's limits: bytes of pixels, and thumbnails.
        public var memoryCacheCostLimit = 64 * 1024 * 1024
        public var memoryCacheCountLimit = 1000
        /// A directory for the disk cache, or nil for none.
        public var diskCacheDirectory: String?
        /// The disk cache's size cap.
        public var diskCacheSizeLimit = 256 * 1024 * 1024
        /// Called with each job's ledger before its decode starts (tests watch the heap
        /// through its `afterAllocation`).
        var ledgerObserver: (@Sendable (MemoryLedger) -> Void)?
        /// Called with the answer each time a decode asks whether its job is cancelled (once
        /// per MCU row or scanline batch): tests count the rows decoded after a cancellation.
        var cancellationObserver: (@Sendable (Bool) -> Void)?
        /// The placeholder `placeholder(_:kind:)` makes when no kind is given, and the one
        /// `trim(.everything)` leaves behind for each visible thumbnail it lets go.
        public var placeholderKind = PlaceholderKind.thumbHash
        /// The placeholders kept (a few dozen bytes each; the oldest go first).
        public var placeholderCountLimit = 10_000
        /// A trim asked again within this time of the last, at the same level or a lighter
        /// one, goes one level deeper on its own (`trim(_:)`).
        public var trimEscalationWindow = Duration.seconds(5)
        /// The clock trims are timed by; tests give one they move themselves.
        public var now: @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }

        public init() {}
    }

    /// What the pipeline has done, for tests and for a debug overlay.
    public struct Statistics: Sendable, Equatable {
        /// Decodes of an input that ran to the end.
        public var decodes = 0
        public var memoryCacheHits = 0
        public var diskCacheHits = 0
        /// Requests (for a thumbnail or a placeholder) that joined a job already running for
        /// their key.
        public var coalesced = 0
        /// Jobs cancelled because every request (and prefetch) for them went away.
        public var cancelledJobs = 0
        /// Decodes run again with a larger reservation after their ledger refused memory.
        public var reservationRetries = 0
        /// Placeholders computed by a decode, and placeholders answered from those kept.
        public var placeholderDecodes = 0
        public var placeholderHits = 0
    }

    public let configuration: Configuration
    let memoryCache: MemoryCache
    let placeholders: PlaceholderCache
    let diskCache: DiskCache?
    let slots: PriorityGate
    let budget: PriorityGate

    /// Everything the lock guards.
    private struct State {
        var jobs: [ThumbnailKey: Job] = [:]
        /// The job each waiting request belongs to, for its cancellation handler.
        var requestKeys: [Int: ThumbnailKey] = [:]
        var nextRequest = 0
        var stats = Statistics()
        /// Disk-cache writes begun and not yet ended, and the callers waiting for none.
        var pendingCacheWrites = 0
        var cacheWriteWaiters: [CheckedContinuation<Void, Never>] = []
        /// The placeholder decodes running, shared by the requests for their key.
        var placeholderJobs: [ThumbnailKey: Task<Result<Placeholder, PareError>, Never>] = [:]
        /// The level the last trim applied, and when.
        var lastTrim: (level: TrimLevel, at: ContinuousClock.Instant)?
    }

    /// Taken before a job's own lock, never after it.
    private let state = Mutex(State())

    public init(configuration: Configuration = Configuration()) throws(PareError) {
        guard configuration.maxConcurrentDecodes > 0, configuration.memoryBudget > 0 else {
            throw .unsupported("a pipeline needs at least one decode and a positive memory budget")
        }
        self.configuration = configuration
        memoryCache = MemoryCache(costLimit: configuration.memoryCacheCostLimit, countLimit: configuration.memoryCacheCountLimit)
        placeholders = PlaceholderCache(countLimit: configuration.placeholderCountLimit)
        diskCache = try configuration.diskCacheDirectory.map { (directory) throws(PareError) in
            try DiskCache(directory: directory, sizeLimit: configuration.diskCacheSizeLimit)
        }
        slots = PriorityGate(capacity: configuration.maxConcurrentDecodes) { _, _ in .unsupported("decode slots") }
        budget = PriorityGate(capacity: configuration.memoryBudget) { needed, budget in
            .memoryBudgetExceeded(needed: needed, budget: budget)
        }
    }

    public var statistics: Statistics { state.withOrderedLock { $0.stats } }
    /// Bytes reserved by running decodes now, and the most ever reserved at once.
    public var reservedBytes: Int { budget.inUse }
    public var peakReservedBytes: Int { budget.peak }
    /// Bytes of pixels in the memory cache now.
    public var memoryCacheBytes: Int { memoryCache.totalCost }

    // MARK: Requests

    /// The thumbnail for `request`: from the memory cache, from a job already running for
    /// the same key, or from a new job. Throws `.cancelled` if the calling task is cancelled
    /// before the thumbnail is ready.
    public func thumbnail(_ request: ThumbnailRequest) async throws(PareError) -> Thumbnail {
        let key = try request.cacheKey()
        let residency: MemoryCache.Residency = request.priority == .visible ? .visible : .delivered
        if let hit = memoryCache.value(for: key, residency: residency) {
            state.withOrderedLock { $0.stats.memoryCacheHits += 1 }
            return hit
        }
        let id = state.withOrderedLock { state in
            state.nextRequest += 1
            return state.nextRequest
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Thumbnail, PareError>, Never>) in
                let immediate: Result<Thumbnail, PareError>? = state.withOrderedLock { state in
                    // Cancelled before registering: the handler has run and found nothing.
                    if Task.isCancelled { return .failure(.cancelled) }
                    // The job may have finished since the first look.
                    if let hit = memoryCache.value(for: key, residency: residency) {
                        state.stats.memoryCacheHits += 1
                        return .success(hit)
                    }
                    let job: Job
                    if let running = state.jobs[key] {
                        job = running
                        state.stats.coalesced += 1
                        raise(job, to: request.priority)
                        // The prefetch has done its part: from now on the job lives as long
                        // as a request wants it (a cell that scrolls past cancels it).
                        job.state.withOrderedLock { $0.prefetching = false }
                    } else {
                        job = startJob(key: key, request: request, priority: request.priority, in: &state)
                    }
                    job.state.withOrderedLock { $0.waiters[id] = (continuation, request.priority) }
                    state.requestKeys[id] = key
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            withdraw(request: id)
        }
        return try result.get()
    }

    // MARK: Placeholders

    /// The placeholder of `request`'s picture (of the whole picture: the request's size,
    /// box and colour do not change it; see `ImageSource.placeholder`), of `kind` or the
    /// configuration's `placeholderKind`: from the placeholders kept, or made by a decode of
    /// the cheapest source that goes ahead of every queued thumbnail at the decode slots
    /// and the memory budget, so that a screen of cells gets its placeholders first.
    /// Requests for the same placeholder share one decode. A decode that has started is
    /// not stopped by a cancelled request (it costs a DC-only decode, and its result is
    /// kept), but the request throws `.cancelled` when it ends.
    public func placeholder(_ request: ThumbnailRequest, kind: PlaceholderKind? = nil) async throws(PareError) -> Placeholder {
        let kind = kind ?? configuration.placeholderKind
        let key = try request.placeholderKey(kind)
        if let kept = placeholders.value(for: key) {
            state.withOrderedLock { $0.stats.placeholderHits += 1 }
            return kept
        }
        let task = state.withOrderedLock { state -> Task<Result<Placeholder, PareError>, Never> in
            if let running = state.placeholderJobs[key] {
                state.stats.coalesced += 1
                return running
            }
            let job = Job(key: key, request: request, priority: .visible, makesPlaceholder: true)
            let task = Task.detached(priority: .userInitiated) { [self] () -> Result<Placeholder, PareError> in
                let result: Result<Placeholder, PareError>
                do throws(PareError) {
                    result = .success(try await makePlaceholder(kind, job: job))
                } catch {
                    result = .failure(error)
                }
                // Kept before the job goes, so that no request finds neither.
                if case let .success(placeholder) = result { placeholders.insert(placeholder, for: key) }
                self.state.withOrderedLock { state in
                    state.placeholderJobs[key] = nil
                    if case .success = result { state.stats.placeholderDecodes += 1 }
                }
                return result
            }
            state.placeholderJobs[key] = task
            return task
        }
        let result = await task.value
        if Task.isCancelled { throw .cancelled }
        return try result.get()
    }

    /// The placeholder of `request`'s picture if one is kept, without waiting: what a cell
    /// draws at once, including after `trim(.everything)` let its thumbnail go.
    public func cachedPlaceholder(_ request: ThumbnailRequest, kind: PlaceholderKind? = nil) -> Placeholder? {
        guard let key = try? request.placeholderKey(kind ?? configuration.placeholderKind) else { return nil }
        return placeholders.value(for: key)
    }

    /// A placeholder job's work: a decode slot and a reservation at the placeholder's rank,
    /// then the decode at about 100 pixels.
    private func makePlaceholder(_ kind: PlaceholderKind, job: Job) async throws(PareError) -> Placeholder {
        try await acquire(1, from: slots, for: job)
        defer { slots.release(1) }
        let source = try job.request.makeSource()
        var options = job.request.options
        options.decodeWorkers = 1
        options.maxPixelSize = ThumbHash.maxSide
        options.box = nil
        let placeholderOptions = options
        return try await withReservation(estimate: JobCost.estimate(source: source, options: options),
                                         memoryLimit: options.memoryLimit, job: job) { ledger throws(PareError) in
            try source.placeholder(kind, options: placeholderOptions, ledger: ledger)
        }
    }

    /// Placeholders made from thumbnails about to be let go, for those that have none kept.
    private func keepPlaceholders(of thumbnails: [(fallback: ThumbnailKey, thumbnail: Thumbnail)]) {
        for (key, thumbnail) in thumbnails where placeholders.value(for: key) == nil {
            if let placeholder = try? thumbnail.placeholder(configuration.placeholderKind) {
                placeholders.insert(placeholder, for: key)
            }
        }
    }

    // MARK: Files

    /// Thumbnails written as files of `output`, for a batch (the command line's
    /// `pare thumbnail`, an export, an upload server's queue): each request's bytes are
    /// handed to `deliver` with the request's index, on the decode thread that made them, in
    /// the order they finish.
    ///
    /// The batch runs `concurrency` workers (at most the pipeline's decode slots). Each holds
    /// a decode slot at `priority` and a reservation for the whole batch, and takes the next
    /// request as soon as it has delivered one, on the same thread: a batch of small files
    /// pays no trip through the async executor per file. A worker's reservation is the
    /// largest `memoryLimit` among the requests, or its share of the budget if that is less;
    /// a request that needs more than the share fails with
    /// `PareError.memoryBudgetExceeded` (a budget of the workers times the limit, as
    /// `pare thumbnail` gives itself, never refuses one the limit allows). While the batch
    /// runs, other requests share what its workers leave of the slots and the budget. A request is answered from the disk cache when
    /// it holds a file for the same key and output; otherwise it is decoded and encoded in
    /// one ledger, delivered, and then stored in the disk cache. Batches are neither
    /// coalesced nor kept in the memory cache: a batch asks for each file once. Cancelling
    /// the calling task stops the workers at the next row batch; every request not made is
    /// delivered as `PareError.cancelled`.
    public func files(_ requests: [ThumbnailRequest], as output: ThumbnailOutput, priority: ThumbnailPriority = .normal,
                      concurrency: Int? = nil,
                      deliver: @escaping @Sendable (_ index: Int, _ result: Result<ThumbnailFile, PareError>) -> Void) async {
        guard let first = requests.first else { return }
        let workers = max(1, min(concurrency ?? configuration.maxConcurrentDecodes, configuration.maxConcurrentDecodes,
                                 requests.count))
        let largest = requests.map { $0.options.memoryLimit ?? Int.max }.max() ?? Int.max
        let reservation = max(JobCost.minimum, min(largest, budget.capacity / workers))
        let batch = BatchCursor()
        let cancel = CancelFlag()
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0 ..< workers {
                    group.addTask { [self] in
                        let seat = Job(key: ThumbnailKey("batch"), request: first, priority: priority)
                        do throws(PareError) {
                            try await acquire(1, from: slots, for: seat)
                        } catch {
                            batch.workerCouldNotStart(error)
                            return
                        }
                        defer { slots.release(1) }
                        do throws(PareError) {
                            try await acquire(reservation, from: budget, for: seat)
                        } catch {
                            batch.workerCouldNotStart(error)
                            return
                        }
                        defer { budget.release(reservation) }
                        await DecodeThread.run { [self] in
                            while let index = batch.next(below: requests.count) {
                                guard !cancel.isSet else {
                                    deliver(index, .failure(.cancelled))
                                    continue
                                }
                                let cancellation = CancellationCheck { cancel.isSet }
                                let started = ContinuousClock.now
                                do throws(PareError) {
                                    let made = try makeFile(requests[index], as: output, limit: reservation,
                                                            alone: workers == 1, cancellation: cancellation)
                                    var file = made.file
                                    file.duration = started.duration(to: .now)
                                    deliver(index, .success(file))
                                    if let entry = made.entry { diskCache?.store(entry) }
                                } catch {
                                    deliver(index, .failure(error))
                                }
                            }
                        }
                    }
                }
            }
        } onCancel: {
            cancel.set()
        }
        // Requests no worker took: every worker was cancelled, or refused its slot or its
        // reservation, before it started.
        let unstarted = batch.startFailure ?? .cancelled
        while let index = batch.next(below: requests.count) { deliver(index, .failure(unstarted)) }
    }

    /// One thumbnail as a file of `output`: `files(_:as:)` with one request.
    public func file(_ request: ThumbnailRequest, as output: ThumbnailOutput) async throws(PareError) -> ThumbnailFile {
        let answer = Mutex<Result<ThumbnailFile, PareError>>(.failure(.cancelled))
        await files([request], as: output, priority: request.priority) { _, result in
            answer.withOrderedLock { $0 = result }
        }
        return try answer.withOrderedLock { $0 }.get()
    }

    /// A batch's request made into a file on a decode thread, with the disk-cache entry to
    /// store once it is delivered (nil when it came from the cache or there is no cache).
    /// `alone`: the batch's only worker, whose decode may use every core.
    private func makeFile(_ request: ThumbnailRequest, as output: ThumbnailOutput, limit: Int, alone: Bool,
                          cancellation: CancellationCheck) throws(PareError) -> (file: ThumbnailFile, entry: DiskCacheEntry?) {
        let key = try request.cacheKey().encoded(as: output.stored.cacheKey)
        if let diskCache, let entry = diskCache.entry(for: key),
           let file = try? Self.file(from: entry, as: output, limit: limit) {
            state.withOrderedLock { $0.stats.diskCacheHits += 1 }
            return (file, nil)
        }
        let source = try request.makeSource()
        var options = request.options
        if options.decodeWorkers == nil && !alone { options.decodeWorkers = 1 }
        let ledger = MemoryLedger(limit: min(limit, options.memoryLimit ?? Int.max))
        configuration.ledgerObserver?(ledger)
        let thumbnail: Thumbnail
        do {
            thumbnail = try source.thumbnail(options: options, ledger: ledger, cancellation: cancellation)
        } catch {
            // Refused by the worker's share of the budget, not by the request's own limit.
            if error.isLedgerLimit && limit < options.memoryLimit ?? Int.max {
                throw .memoryBudgetExceeded(needed: limit, budget: budget.capacity)
            }
            throw error
        }
        let format = output.fileFormat(for: thumbnail.image)
        let (bytes, warnings) = try ImageEncoding.encode(thumbnail, as: format, jpeg: output.jpeg, png: output.png,
                                                         background: output.background, ledger: ledger)
        state.withOrderedLock { $0.stats.decodes += 1 }
        var entry: DiskCacheEntry?
        if diskCache != nil {
            let kept = output.stored.fileFormat(for: thumbnail.image)
            let payload = kept == format ? bytes
                : try ImageEncoding.encode(thumbnail, as: kept, jpeg: output.jpeg, png: output.png,
                                           background: output.background, ledger: ledger).bytes
            entry = DiskCacheEntry(thumbnail: thumbnail, key: key, encoding: kept == .jpeg ? .jpeg : .png, payload: payload)
        }
        let file = ThumbnailFile(bytes: bytes, format: format, source: thumbnail.source, width: thumbnail.image.width,
                                 height: thumbnail.image.height, ledgerPeakBytes: ledger.peakBytes,
                                 allocations: ledger.allocationCount, fromDiskCache: false,
                                 warnings: thumbnail.warnings + warnings)
        return (file, entry)
    }

    /// A disk-cache entry as the file `output` asks for: its bytes as they are, or for
    /// Netpbm its pixels decoded and written again.
    private static func file(from entry: DiskCacheEntry, as output: ThumbnailOutput, limit: Int) throws(PareError) -> ThumbnailFile {
        var file = ThumbnailFile(bytes: entry.payload, format: entry.encoding == .png ? .png : .jpeg, source: entry.source,
                                 width: entry.width, height: entry.height, ledgerPeakBytes: 0, allocations: 0,
                                 fromDiskCache: true, warnings: [])
        if output.format == .fixed(.netpbm) {
            file.bytes = NetpbmEncoder.encode(try entry.image(ledger: MemoryLedger(limit: limit)))
            file.format = .netpbm
        }
        return file
    }

    /// Starts jobs for `requests` at prefetch priority, to fill the caches ahead of need.
    /// A later `thumbnail` call for the same key joins the job, raises its priority and takes
    /// over from the prefetch: the job is then cancelled when that request is.
    public func prefetch(_ requests: [ThumbnailRequest]) {
        for request in requests {
            guard let key = try? request.cacheKey() else { continue }
            state.withOrderedLock { state in
                if let job = state.jobs[key] {
                    job.state.withOrderedLock { $0.prefetching = true }
                } else if memoryCache.value(for: key, residency: .prefetched) == nil {
                    startJob(key: key, request: request, priority: .prefetch, in: &state)
                        .state.withOrderedLock { $0.prefetching = true }
                }
            }
        }
    }

    /// Withdraws prefetches: a job that no request waits for is cancelled.
    public func cancelPrefetch(_ requests: [ThumbnailRequest]) {
        for request in requests {
            guard let key = try? request.cacheKey() else { continue }
            state.withOrderedLock { state in
                guard let job = state.jobs[key] else { return }
                job.state.withOrderedLock { $0.prefetching = false }
                abandonIfUnwanted(job, in: &state)
            }
        }
    }

    /// Tells the pipeline that the view showing `request`'s thumbnail went away: its memory
    /// cache entry becomes the first to go under `trim(.offscreen)`.
    public func markOffscreen(_ request: ThumbnailRequest) {
        guard let key = try? request.cacheKey() else { return }
        memoryCache.markOffscreen(key)
    }

    /// Releases memory in tiers; each level includes the ones before it (see `TrimLevel`).
    /// Never fails a request that a caller awaits.
    ///
    /// A trim asked again within `trimEscalationWindow` of the last one, at the same level
    /// or a lighter one, applies one level deeper than the last did: the pressure the first
    /// trim answered has not gone, as when a memory-pressure handler is called again and
    /// again. Returns the level applied.
    @discardableResult
    public func trim(_ requested: TrimLevel) -> TrimLevel {
        let now = configuration.now()
        let level = state.withOrderedLock { state -> TrimLevel in
            var level = requested
            if let last = state.lastTrim, now - last.at < configuration.trimEscalationWindow, requested <= last.level {
                level = last.level.deeper
            }
            state.lastTrim = (level, now)
            return level
        }
        diskCache?.dropIndex()
        switch level {
        case .diskCacheIndex: return level
        case .offscreen: memoryCache.removeAll(below: .prefetched)
        case .prefetched: memoryCache.removeAll(below: .delivered)
        case .allButVisible: memoryCache.removeAll(below: .visible)
        case .everything: keepPlaceholders(of: memoryCache.removeAll(below: nil))
        }
        if level >= .prefetched {
            state.withOrderedLock { state in
                for job in state.jobs.values {
                    let wasPrefetching = job.state.withOrderedLock { job in
                        defer { job.prefetching = false }
                        return job.prefetching
                    }
                    if wasPrefetching { abandonIfUnwanted(job, in: &state) }
                }
            }
        }
        return level
    }

    // MARK: Jobs

    /// One decode shared by every request for its key. Its mutable fields are behind its own
    /// lock, which is taken inside the pipeline's when both are needed, so that what the
    /// pipeline decides about a job and its `jobs` entry change together.
    private final class Job: Sendable {
        /// The requests waiting for the job, by request number, with their priorities.
        typealias Waiters = [Int: (continuation: CheckedContinuation<Result<Thumbnail, PareError>, Never>, priority: ThumbnailPriority)]

        struct State {
            var priority: ThumbnailPriority
            var waiters: Waiters = [:]
            var prefetching = false
            /// The gate and waiter the job is queued at, so a joining request can raise it.
            var queuedAt: (gate: PriorityGate, waiter: PriorityGate.Waiter)?
            var task: Task<Void, Never>?
        }

        let key: ThumbnailKey
        let request: ThumbnailRequest
        let state: Mutex<State>
        /// Set when the job is abandoned: its decode thread stops at the next row batch.
        let cancel = CancelFlag()
        /// A placeholder's job, which queues ahead of every thumbnail's.
        let makesPlaceholder: Bool

        init(key: ThumbnailKey, request: ThumbnailRequest, priority: ThumbnailPriority, makesPlaceholder: Bool = false) {
            self.key = key
            self.request = request
            self.makesPlaceholder = makesPlaceholder
            state = Mutex(State(priority: priority))
        }
    }

    /// Called with the pipeline's lock held (`state` is what it guards).
    @discardableResult
    private func startJob(key: ThumbnailKey, request: ThumbnailRequest, priority: ThumbnailPriority,
                          in state: inout State) -> Job {
        let job = Job(key: key, request: request, priority: priority)
        state.jobs[key] = job
        let taskPriority: TaskPriority = priority == .visible ? .userInitiated : priority == .normal ? .medium : .utility
        let task = Task.detached(priority: taskPriority) { [self] in
            let (result, fresh) = await run(job)
            finish(job, result)
            if let fresh { await storeInDiskCache(fresh, for: job) }
        }
        job.state.withOrderedLock { $0.task = task }
        return job
    }

    /// Called with the pipeline's lock held.
    private func raise(_ job: Job, to priority: ThumbnailPriority) {
        let queuedAt = job.state.withOrderedLock { job -> (gate: PriorityGate, waiter: PriorityGate.Waiter)? in
            guard priority > job.priority else { return nil }
            job.priority = priority
            return job.queuedAt
        }
        if let (gate, waiter) = queuedAt { gate.raise(waiter, to: priority) }
    }

    /// A request's task was cancelled: it stops waiting now; its job is cancelled if nobody
    /// else wants it.
    private func withdraw(request id: Int) {
        let continuation: CheckedContinuation<Result<Thumbnail, PareError>, Never>? = state.withOrderedLock { state in
            guard let key = state.requestKeys.removeValue(forKey: id), let job = state.jobs[key] else { return nil }
            let continuation = job.state.withOrderedLock { job -> CheckedContinuation<Result<Thumbnail, PareError>, Never>? in
                guard let waiter = job.waiters.removeValue(forKey: id) else { return nil }
                if waiter.priority == .visible && job.waiters.isEmpty {
                    // A cell that scrolled away: if the decode still ends (a prefetch holds it),
                    // its result is off-screen.
                    job.priority = max(.prefetch, job.waiters.values.map(\.priority).max() ?? .prefetch)
                }
                return waiter.continuation
            }
            guard let continuation else { return nil }
            abandonIfUnwanted(job, in: &state)
            return continuation
        }
        continuation?.resume(returning: .failure(.cancelled))
    }

    /// Called with the pipeline's lock held.
    private func abandonIfUnwanted(_ job: Job, in state: inout State) {
        let unwanted = job.state.withOrderedLock { $0.waiters.isEmpty && !$0.prefetching }
        guard unwanted, state.jobs[job.key] === job else { return }
        state.jobs[job.key] = nil
        state.stats.cancelledJobs += 1
        job.cancel.set()
        job.state.withOrderedLock { $0.task }?.cancel()
    }

    /// The job's end: the result goes into the memory cache and to every request waiting.
    private func finish(_ job: Job, _ result: Result<Thumbnail, PareError>) {
        let waiters = state.withOrderedLock { state -> [CheckedContinuation<Result<Thumbnail, PareError>, Never>] in
            let current = state.jobs[job.key] === job
            let waiters = job.state.withOrderedLock { job -> Job.Waiters in
                job.queuedAt = nil
                guard current else { return [:] }
                defer { job.waiters = [:] }
                return job.waiters
            }
            guard current else { return [] }
            state.jobs[job.key] = nil
            if case let .success(thumbnail) = result {
                let best = waiters.values.map(\.priority).max()
                let residency: MemoryCache.Residency = best == .visible ? .visible : best == nil ? .prefetched : .delivered
                memoryCache.insert(thumbnail, for: job.key, residency: residency,
                                   fallback: job.request.placeholderKey(configuration.placeholderKind, identity: job.key.identity))
            }
            for id in waiters.keys { state.requestKeys[id] = nil }
            return waiters.map { $0.value.continuation }
        }
        for continuation in waiters { continuation.resume(returning: result) }
    }

    /// The job's work: the disk cache, else a slot, a reservation, the decode and the write
    /// to the disk cache.
    /// The result, and a fresh thumbnail the disk cache should keep (written by
    /// `storeInDiskCache` once the waiters have it; counted in `pendingCacheWrites` from now).
    private func run(_ job: Job) async -> (Result<Thumbnail, PareError>, fresh: Thumbnail?) {
        do throws(PareError) {
            if let diskCache, let entry = diskCache.entry(for: job.key.encoded(as: ThumbnailOutput.automatic.cacheKey)),
               let thumbnail = try? await decodeEntry(entry, job: job) {
                state.withOrderedLock { $0.stats.diskCacheHits += 1 }
                return (.success(thumbnail), nil)
            }
            try await acquire(1, from: slots, for: job)
            defer { slots.release(1) }
            let thumbnail = try await decode(job)
            let keep = diskCache != nil
            state.withOrderedLock { state in
                state.stats.decodes += 1
                if keep { state.pendingCacheWrites += 1 }
            }
            return (.success(thumbnail), keep ? thumbnail : nil)
        } catch {
            return (.failure(error), nil)
        }
    }

    /// Encodes a fresh thumbnail into the disk cache on a decode thread, against a
    /// reservation from the budget, after its waiters have it. A failure only costs a later
    /// decode.
    private func storeInDiskCache(_ thumbnail: Thumbnail, for job: Job) async {
        if let diskCache {
            let key = job.key.encoded(as: ThumbnailOutput.automatic.cacheKey)
            _ = try? await withReservation(estimate: JobCost.estimate(encoding: thumbnail.image), memoryLimit: nil,
                                           job: job) { ledger throws(PareError) in
                diskCache.store(try DiskCacheEntry(automatic: thumbnail, key: key, ledger: ledger))
            }
        }
        let waiters = state.withOrderedLock { state -> [CheckedContinuation<Void, Never>] in
            state.pendingCacheWrites -= 1
            guard state.pendingCacheWrites == 0 else { return [] }
            defer { state.cacheWriteWaiters = [] }
            return state.cacheWriteWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when every disk-cache write begun so far has ended: the thumbnails already
    /// delivered are then on disk (before a process exits, or in a test).
    public func cacheWritesFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withOrderedLock { state -> Bool in
                guard state.pendingCacheWrites > 0 else { return true }
                state.cacheWriteWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Waits at a gate at the job's priority, raisable while it waits.
    private func acquire(_ amount: Int, from gate: PriorityGate, for job: Job) async throws(PareError) {
        let placeholder = job.makesPlaceholder
        let waiter = job.state.withOrderedLock { job in
            let waiter = gate.makeWaiter(amount: amount, rank: placeholder ? .placeholder : .thumbnail(job.priority))
            job.queuedAt = (gate, waiter)
            return waiter
        }
        defer { job.state.withOrderedLock { $0.queuedAt = nil } }
        try await gate.acquire(waiter)
    }

    /// Runs `body` on a decode thread with a ledger limited to a reservation from the
    /// budget, starting at `estimate` and doubling while the ledger refuses memory (see
    /// `MemoryBudget.swift`).
    private func withReservation<T: Sendable>(
        estimate: Int, memoryLimit: Int?, job: Job, _ body: @escaping @Sendable (MemoryLedger) throws(PareError) -> T
    ) async throws(PareError) -> T {
        var amount = max(JobCost.minimum, min(estimate, budget.capacity))
        let observer = configuration.ledgerObserver
        while true {
            try await acquire(amount, from: budget, for: job)
            let limit = min(amount, memoryLimit ?? Int.max)
            let result: Result<T, PareError> = await DecodeThread.run {
                let ledger = MemoryLedger(limit: limit)
                observer?(ledger)
                do throws(PareError) {
                    return .success(try body(ledger))
                } catch {
                    return .failure(error)
                }
            }
            budget.release(amount)
            switch result {
            case let .success(value):
                return value
            case let .failure(error):
                guard error.isLedgerLimit, limit == amount else { throw error }
                guard amount < budget.capacity else {
                    throw .memoryBudgetExceeded(needed: amount, budget: budget.capacity)
                }
                amount = min(amount * 2, budget.capacity)
                state.withOrderedLock { $0.stats.reservationRetries += 1 }
            }
        }
    }

    private func decode(_ job: Job) async throws(PareError) -> Thumbnail {
        let cancel = job.cancel
        if cancel.isSet { throw .cancelled }
        let source = try job.request.makeSource()
        var options = job.request.options
        options.decodeWorkers = 1
        let estimate = JobCost.estimate(source: source, options: options)
        let decodeOptions = options
        let observer = configuration.cancellationObserver
        let cancellation = CancellationCheck {
            let cancelled = cancel.isSet
            observer?(cancelled)
            return cancelled
        }
        return try await withReservation(estimate: estimate, memoryLimit: options.memoryLimit, job: job) { ledger throws(PareError) in
            try source.thumbnail(options: decodeOptions, ledger: ledger, cancellation: cancellation)
        }
    }

    /// A disk-cache entry decoded back to pixels.
    private func decodeEntry(_ entry: DiskCacheEntry, job: Job) async throws(PareError) -> Thumbnail {
        let entry = Handoff(value: entry)
        return try await withReservation(estimate: JobCost.estimate(entry: entry.value), memoryLimit: nil, job: job) { ledger throws(PareError) in
            let entry = entry.value
            let image = try entry.image(ledger: ledger)
            let gainMap = try entry.gainMap(ledger: ledger)
            return Thumbnail(image: image, source: entry.source, reason: entry.reason, appliedOrientation: entry.orientation,
                             ledgerPeakBytes: ledger.peakBytes, allocations: ledger.allocationCount, warnings: [],
                             gainMap: gainMap)
        }
    }

}

/// The next request of a batch, handed to whichever worker asks first, and why a worker
/// could not start.
private final class BatchCursor: Sendable {
    private let taken = Atomic<Int>(0)

    /// The next index below `count`, or nil when all are taken.
    func next(below count: Int) -> Int? {
        let index = taken.add(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }

    /// Why the first worker that could not start was refused its slot or its reservation:
    /// what the requests no worker took are answered with.
    private let refusal = Mutex<PareError?>(nil)

    func workerCouldNotStart(_ error: PareError) {
        refusal.withOrderedLock { $0 = $0 ?? error }
    }

    var startFailure: PareError? { refusal.withOrderedLock { $0 } }
}
