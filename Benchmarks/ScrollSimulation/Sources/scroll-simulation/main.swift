#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
@_spi(CommandLine) import Pare

/// The grid: `columns` cells a row, `visibleRows` rows on screen, the window moving down one
/// row every `framesPerRow` frames of 1/60 s, and `prefetchRows` rows below it prefetched.
struct Grid {
    var columns = 4
    var visibleRows = 6
    var prefetchRows = 2
    var framesPerRow: Int
    var rows: Int

    func visible(atFrame frame: Int, count: Int) -> Range<Int> {
        let top = min(frame / framesPerRow, max(0, rows - visibleRows))
        return min(count, top * columns) ..< min(count, (top + visibleRows) * columns)
    }
}

/// When each cell came into view, left it, and got its thumbnail, in seconds from the start.
final class Timeline: Sendable {
    private struct Marks {
        var appeared: [Int: Double] = [:]
        var left: [Int: Double] = [:]
        var done: [Int: Double] = [:]
    }

    private let marks = Mutex(Marks())
    private let start = ContinuousClock.now

    var now: Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    func appear(_ cell: Int) { let t = now; marks.withLock { if $0.appeared[cell] == nil { $0.appeared[cell] = t } } }
    func leave(_ cell: Int) { let t = now; marks.withLock { if $0.left[cell] == nil { $0.left[cell] = t } } }
    func finish(_ cell: Int) { let t = now; marks.withLock { if $0.done[cell] == nil { $0.done[cell] = t } } }
    var snapshot: (appeared: [Int: Double], left: [Int: Double], done: [Int: Double]) {
        marks.withLock { ($0.appeared, $0.left, $0.done) }
    }
}

/// Cells handed to the plain loop as they appear.
final class CellQueue: Sendable {
    private struct Queue {
        var cells: [Int] = []
        var closed = false
    }

    private let queue = Mutex(Queue())

    func push(_ cell: Int) { queue.withLock { $0.cells.append(cell) } }
    func close() { queue.withLock { $0.closed = true } }
    /// The next cell, nil when closed and empty; -1 when nothing is waiting yet.
    func pop() -> Int? { queue.withLock { $0.cells.isEmpty ? ($0.closed ? nil : -1) : $0.cells.removeFirst() } }
}

func peakResidentKiB() -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, file) != nil {
        let text = String(decoding: line.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmHWM:") { return Int(text.split(separator: " ").dropFirst().first ?? "0") ?? 0 }
    }
    return 0
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, arguments[1] == "--mode" else {
    print("usage: scroll-simulation DIR --mode pipeline|loop [--rows N] [--size N] [--frames-per-row N]\n"
        + "       scroll-simulation DIR --mode pipeline|loop --screen [--cells N] [--size N]")
    exit(2)
}
if arguments.contains("--screen") {
    await screen(arguments)
    exit(0)
}
let directory = arguments[0], mode = arguments[2]
var scrolledRows = 100, size = 200, framesPerRow = 15
if let index = arguments.firstIndex(of: "--frames-per-row"), index + 1 < arguments.count {
    framesPerRow = Int(arguments[index + 1]) ?? 15
}
if let index = arguments.firstIndex(of: "--rows"), index + 1 < arguments.count { scrolledRows = Int(arguments[index + 1]) ?? 100 }
if let index = arguments.firstIndex(of: "--size"), index + 1 < arguments.count { size = Int(arguments[index + 1]) ?? 200 }
let names = (FileIO.list(directory) ?? []).filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted()
let grid = Grid(framesPerRow: framesPerRow, rows: (names.count + 3) / 4)
let count = min(names.count, (scrolledRows + grid.visibleRows) * grid.columns)
let paths = names.prefix(count).map { directory + "/" + $0 }
var options = ThumbnailOptions(maxPixelSize: size)
options.decodeWorkers = 1
let immutableOptions = options
let frames = scrolledRows * grid.framesPerRow + 1
let timeline = Timeline()

func request(_ cell: Int, _ priority: ThumbnailPriority) -> ThumbnailRequest {
    ThumbnailRequest(path: paths[cell], options: immutableOptions, priority: priority)
}

var reservedPeak = 0, decodes = 0, cancelled = 0, cacheBytes = 0
let clock = ContinuousClock()
let origin = clock.now
switch mode {
case "pipeline":
    var configuration = ThumbnailPipeline.Configuration()
    configuration.memoryBudget = 32 * 1024 * 1024
    configuration.memoryCacheCostLimit = 8 * 1024 * 1024
    let pipeline = try ThumbnailPipeline(configuration: configuration)
    var tasks: [Int: Task<Void, Never>] = [:]
    var prefetched: Set<Int> = []
    for frame in 0 ..< frames {
        try await clock.sleep(until: origin + .microseconds(frame * 16_667))
        let window = grid.visible(atFrame: frame, count: count)
        for cell in window where tasks[cell] == nil && timeline.snapshot.done[cell] == nil {
            timeline.appear(cell)
            tasks[cell] = Task {
                if (try? await pipeline.thumbnail(request(cell, .visible))) != nil { timeline.finish(cell) }
            }
        }
        for (cell, task) in tasks where !window.contains(cell) {
            task.cancel()
            timeline.leave(cell)
            pipeline.markOffscreen(request(cell, .visible))
            tasks[cell] = nil
        }
        let ahead = Set(window.upperBound ..< min(count, window.upperBound + grid.prefetchRows * grid.columns))
        pipeline.prefetch(ahead.subtracting(prefetched).sorted().map { request($0, .prefetch) })
        pipeline.cancelPrefetch(prefetched.subtracting(ahead).subtracting(window).sorted().map { request($0, .prefetch) })
        prefetched = ahead
    }
    for task in tasks.values { await task.value }
    reservedPeak = pipeline.peakReservedBytes
    decodes = pipeline.statistics.decodes
    cancelled = pipeline.statistics.cancelledJobs
    cacheBytes = pipeline.memoryCacheBytes
case "loop":
    let queue = CellQueue()
    let worker = Task.detached {
        while let cell = queue.pop() {
            if cell < 0 { usleep(500); continue }
            if let source = try? ImageSource(path: paths[cell]), (try? source.thumbnail(options: immutableOptions)) != nil {
                timeline.finish(cell)
            }
        }
    }
    var shown: Set<Int> = []
    var previous = 0 ..< 0
    for frame in 0 ..< frames {
        try await clock.sleep(until: origin + .microseconds(frame * 16_667))
        let window = grid.visible(atFrame: frame, count: count)
        for cell in window where !shown.contains(cell) {
            shown.insert(cell)
            timeline.appear(cell)
            queue.push(cell)
        }
        for cell in previous where !window.contains(cell) { timeline.leave(cell) }
        previous = window
    }
    // The last screen is still visible: wait for it, then stop the loop.
    while Set(previous).subtracting(timeline.snapshot.done.keys).count > 0 { usleep(1000) }
    queue.close()
    await worker.value
default:
    print("--mode takes pipeline or loop")
    exit(2)
}

let (appeared, left, done) = timeline.snapshot
let firstScreen = grid.visible(atFrame: 0, count: count)
let firstVisible = firstScreen.compactMap { done[$0] }.min() ?? .nan
let firstScreenComplete = firstScreen.map { done[$0] ?? .infinity }.max() ?? .nan
// A cell counts as shown if its thumbnail came while it was on screen.
var latencies: [Double] = []
var missed = 0
for (cell, start) in appeared {
    if let finished = done[cell], finished <= (left[cell] ?? .infinity) {
        latencies.append(finished - start)
    } else {
        missed += 1
    }
}
latencies.sort()
func percentile(_ p: Double, of sorted: [Double]) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(p * Double(sorted.count)))]
}
func ms(_ seconds: Double) -> String { seconds.isFinite ? String(Int((seconds * 1000).rounded())) : "-" }
print("\(mode): \(appeared.count) cells came into view over \(scrolledRows) rows, one every \(framesPerRow) frames at 60 Hz; "
    + "first visible thumbnail \(ms(firstVisible)) ms, first screen complete \(ms(firstScreenComplete)) ms; "
    + "shown while visible \(latencies.count), missed \(missed); latency median \(ms(percentile(0.5, of: latencies))) ms, p95 \(ms(percentile(0.95, of: latencies))) ms; "
    + "thumbnails made \(done.count)\(mode == "pipeline" ? ", decodes \(decodes), jobs cancelled \(cancelled), peak reserved \(reservedPeak / 1024) KiB, memory cache \(cacheBytes / 1024) KiB" : ""); "
    + "peak resident \(peakResidentKiB()) KiB")

/// One screen of a grid opened at once: `--cells` square cells (60 by default) of `--size`
/// pixels, each a cover crop of its photo, all wanted at the same moment. Through the
/// pipeline, every cell asks for its placeholder and its thumbnail together (visible), and
/// the placeholders are served ahead; the plain loop makes the placeholders one by one and
/// then the thumbnails one by one, the best order a single loop has. Prints when the first
/// and the last placeholder, and the first and the last thumbnail, arrived.
func screen(_ arguments: [String]) async {
    let directory = arguments[0], mode = arguments[2]
    var cells = 60, side = 200
    if let index = arguments.firstIndex(of: "--cells"), index + 1 < arguments.count { cells = Int(arguments[index + 1]) ?? 60 }
    if let index = arguments.firstIndex(of: "--size"), index + 1 < arguments.count { side = Int(arguments[index + 1]) ?? 200 }
    let names = (FileIO.list(directory) ?? []).filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted()
    let paths = names.prefix(cells).map { directory + "/" + $0 }
    var options = ThumbnailOptions(maxPixelSize: side)
    options.box = ThumbnailBox(width: side, height: side)
    options.fit = .cover
    options.decodeWorkers = 1
    let cellOptions = options
    let placeholders = Timeline(), thumbnails = Timeline()
    var decodes = ""
    switch mode {
    case "pipeline":
        guard let pipeline = try? ThumbnailPipeline() else { exit(1) }
        await withTaskGroup(of: Void.self) { group in
            for (cell, path) in paths.enumerated() {
                let request = ThumbnailRequest(path: path, options: cellOptions, priority: .visible)
                group.addTask {
                    if (try? await pipeline.placeholder(request)) != nil { placeholders.finish(cell) }
                }
                group.addTask {
                    if (try? await pipeline.thumbnail(request)) != nil { thumbnails.finish(cell) }
                }
            }
        }
        let stats = pipeline.statistics
        decodes = ", \(stats.placeholderDecodes) placeholder and \(stats.decodes) thumbnail decodes"
    case "loop":
        for (cell, path) in paths.enumerated() {
            if let source = try? ImageSource(path: path), (try? source.placeholder(.thumbHash, options: cellOptions)) != nil {
                placeholders.finish(cell)
            }
        }
        for (cell, path) in paths.enumerated() {
            if let source = try? ImageSource(path: path), (try? await source.thumbnail(options: cellOptions)) != nil {
                thumbnails.finish(cell)
            }
        }
    default:
        print("--mode takes pipeline or loop")
        exit(2)
    }
    func ms(_ seconds: Double?) -> String { seconds.map { String(Int(($0 * 1000).rounded())) } ?? "-" }
    let placed = placeholders.snapshot.done.values, shown = thumbnails.snapshot.done.values
    print("\(mode), a screen of \(paths.count) cells \(side)×\(side) (cover): placeholders first \(ms(placed.min())) ms, "
        + "all \(placed.count) by \(ms(placed.max())) ms; thumbnails first \(ms(shown.min())) ms, "
        + "all \(shown.count) by \(ms(shown.max())) ms\(decodes); peak resident \(peakResidentKiB()) KiB")
}
