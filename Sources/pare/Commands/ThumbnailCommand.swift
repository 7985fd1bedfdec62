import Dispatch
import Synchronization
@_spi(CommandLine) import Pare
import ParePNG
import PareJPEG
import PareCore

/// `pare thumbnail IN... --size N|WxH [--fit inside|cover|contain|fill] [--crop centre|entropy|attention]
/// [--enlarge] [-o OUT | --out-dir DIR] [--recursive] [--format jpeg|png|ppm]
/// [--quality N] [--png-compression fast|default|small] [--background RRGGBB] [--colour keep|srgb] [--cmyk-profile FILE] [--gain-map drop|keep]
/// [--embedded auto|never|always] [--filter lanczos3|triangle|area]
/// [--no-rotate] [--strict] [--placeholder thumbhash|blurhash[:XxY]] [--jobs N] [--json] [--stats]
/// [--cache DIR]`.
///
/// `--size N` bounds the long side; `--size WxH` (or `Wx`, `xH`) is a box the picture goes
/// into as `--fit` says (`ThumbnailFit`): `inside` (the default) keeps it whole within the
/// box, `cover` fills the box and crops where `--crop` says (`CropPosition`), `contain`
/// centres it on a box-sized canvas of `--background`, `fill` stretches it. Nothing is made
/// larger than its source without `--enlarge`.
///
/// The output format is `--format`'s, else OUT's extension (.jpg/.jpeg, .png, .ppm/.pgm/.pam;
/// any other is a usage error); with `--out-dir` and no `--format`, JPEG for an opaque
/// thumbnail and PNG for one with alpha. JPEGs are written at `--quality` (default 85, see
/// `JPEGEncoderOptions.thumbnail`) with cjpeg's other defaults, PNGs with the effort
/// `--png-compression` names (`PNGCompression`, default `default`); a thumbnail with alpha
/// written as JPEG is composited over `--background` (default FFFFFF, white).
///
/// Colour (`--colour keep|srgb`): by default a JPEG or PNG output carries the source's ICC
/// profile byte for byte (APP2 chunks, iCCP) and a PNG from a source tagged sRGB gets an
/// sRGB chunk; Netpbm cannot carry a profile, so dropping one is reported on stderr
/// ("pare: warning: IN: ..."). `--colour srgb` converts to sRGB and tags the PNG sRGB.
///
/// Damaged input (a JPEG or PNG cut off or corrupt in its image data) still gives a
/// thumbnail, of the pixels decoded before the damage, and a "pare: warning: IN: ..." line
/// naming it; `--strict` makes it a failure instead (`ThumbnailOptions.strict`).
///
/// Inputs may be files or directories (their image files; `--recursive` descends). Each
/// input is handled on its own (its own `ImageSource` and ledger), `--jobs` at once (at
/// most the usable cores). A
/// failure is reported on stderr and the rest go on; the exit status is 1 if any failed.
/// Outputs are written under a temporary name and renamed, and Ctrl-C (or SIGTERM) removes
/// the temporary files of the jobs in flight, so no half-written thumbnail is ever left.
///
/// `--cache DIR` keeps each thumbnail's output bytes in a `DiskCache` keyed by the input
/// file's identity (path, size, modification time, inode), the options and the output
/// encoding: a later run over unchanged inputs writes them from there without decoding, and
/// its `--json` lines say `"cached": true`.
func runThumbnail(_ raw: [String]) async -> Int32 {
    let arguments: Arguments
    do {
        arguments = try Arguments(
            raw, valued: ["--size", "--output", "--out-dir", "--format", "--embedded", "--jobs", "--filter",
                          "--quality", "--sampling", "--restart", "--colour", "--cache", "--background",
                          "--gain-map", "--placeholder", "--cmyk-profile", "--fit", "--crop",
                          "--png-compression"],
            boolean: ["--no-rotate", "--json", "--stats", "--recursive", "--optimize", "--progressive", "--baseline",
                      "--strict", "--enlarge"],
            aliases: ["-o": "--output", "-s": "--size", "-j": "--jobs", "-r": "--recursive"])
    } catch {
        return usageError(error.message)
    }
    guard !arguments.positionals.isEmpty else { return usageError("thumbnail needs at least one input") }
    guard let sizeText = arguments.value("--size"), let box = ThumbnailBox(parsing: sizeText) else {
        return usageError("thumbnail needs --size N, WxH, Wx or xH with sides ≥ 1")
    }
    // A lone N is the long side (the box N×N); WxH is a box of its own.
    var options = ThumbnailOptions(maxPixelSize: max(box.width ?? 0, box.height ?? 0))
    if Int(sizeText) == nil { options.box = box }
    if let fit = arguments.value("--fit") {
        guard let parsed = ThumbnailFit(rawValue: fit) else { return usageError("--fit takes inside, cover, contain or fill") }
        options.fit = parsed
    }
    if let crop = arguments.value("--crop") {
        guard let parsed = CropPosition(rawValue: crop == "center" ? "centre" : crop) else {
            return usageError("--crop takes centre, entropy or attention")
        }
        options.crop = parsed
    }
    options.enlarge = arguments.flag("--enlarge")
    options.applyOrientation = !arguments.flag("--no-rotate")
    options.strict = arguments.flag("--strict")
    if let policy = arguments.value("--embedded") {
        guard let parsed = EmbeddedPolicy(rawValue: policy) else {
            return usageError("--embedded takes auto, never or always")
        }
        options.embedded = parsed
    }
    if let filter = arguments.value("--filter") {
        switch filter {
        case "lanczos3": options.filter = .lanczos3
        case "triangle": options.filter = .triangle
        case "area": options.filter = .area
        default: return usageError("--filter takes lanczos3, triangle or area")
        }
    }
    if let colour = arguments.value("--colour") {
        guard let parsed = ColourHandling(rawValue: colour) else { return usageError("--colour takes keep or srgb") }
        options.colour = parsed
    }
    switch cmykProfileOption(arguments) {
    case let .success(profile): options.cmykProfile = profile
    case let .failure(error): return usageError(error.message)
    }
    if let handling = arguments.value("--gain-map") {
        guard let parsed = GainMapHandling(rawValue: handling) else { return usageError("--gain-map takes drop or keep") }
        options.gainMap = parsed
    }
    var placeholder: PlaceholderKind?
    if let name = arguments.value("--placeholder") {
        guard let parsed = placeholderKind(name) else {
            return usageError("--placeholder takes thumbhash, blurhash or blurhash:XxY (components 1…9)")
        }
        placeholder = parsed
    }
    let output = arguments.value("--output"), outDir = arguments.value("--out-dir")
    guard (output == nil) != (outDir == nil) else { return usageError("thumbnail needs exactly one of -o OUT and --out-dir DIR") }
    let format: OutputFormat
    if output == nil && arguments.value("--format") == nil {
        format = .byAlpha
    } else {
        switch outputFormat(named: arguments.value("--format"), path: output ?? "") {
        case let .success(chosen): format = .fixed(chosen)
        case let .failure(error): return usageError(error.message)
        }
    }
    var jpeg = JPEGEncoderOptions.thumbnail
    switch jpegOptions(arguments, defaultQuality: JPEGEncoderOptions.thumbnail.quality, into: &jpeg) {
    case .success: break
    case let .failure(error): return usageError(error.message)
    }
    let jpegOptions = jpeg
    let background: BackgroundColour
    switch backgroundOption(arguments) {
    case let .success(colour): background = colour
    case let .failure(error): return usageError(error.message)
    }
    options.background = background
    let png: PNGCompression
    switch pngCompressionOption(arguments) {
    case let .success(compression): png = compression
    case let .failure(error): return usageError(error.message)
    }
    var jobs = POSIX.processorCount
    if let jobsText = arguments.value("--jobs") {
        guard let parsed = Int(jobsText), parsed >= 1 else { return usageError("--jobs takes a whole number ≥ 1") }
        jobs = parsed
    }

    // `-` reads more inputs from standard input, one a line (what xargs, GNU parallel or a
    // queue worker hands over), to its end.
    var inputs: [String] = []
    for input in arguments.positionals {
        guard input == "-" else {
            inputs.append(input)
            continue
        }
        let lines = String(decoding: POSIX.readStandardInput(), as: UTF8.self).split(separator: "\n")
        inputs += lines.map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }.filter { !$0.isEmpty }
    }
    var work = BatchPlan.make(inputs: inputs, recursive: arguments.flag("--recursive"),
                              outDir: outDir, format: format)
    if let output {
        guard work.count == 1 else { return usageError("-o takes one input file; use --out-dir for several") }
        work[0].destination = output
    }
    guard !work.isEmpty else { return usageError("no image files among the inputs") }

    // The library's pipeline does the work: --jobs is its decode concurrency, --cache its
    // disk cache, and the files are one batch of requests at normal priority, each decoded
    // and encoded in a ledger limited as a single thumbnail's is (the budget is --jobs times
    // that limit).
    // At most the usable cores: a decode reads its file as it goes and keeps a core busy
    // from its first byte to its last row, so decodes beyond the cores only take turns on
    // them, with more threads, memory and cache misses, and a batch takes longer
    // (Benchmarks/README.md, "Batch").
    let concurrent = min(jobs, work.count, POSIX.processorCount)
    var configuration = ThumbnailPipeline.Configuration()
    configuration.maxConcurrentDecodes = concurrent
    let perImage = options.memoryLimit ?? Int.max / 4
    configuration.memoryBudget = perImage > Int.max / 4 / concurrent ? Int.max / 4 : perImage * concurrent
    configuration.diskCacheDirectory = arguments.value("--cache")
    let pipeline: ThumbnailPipeline
    do {
        pipeline = try ThumbnailPipeline(configuration: configuration)
    } catch {
        printError("pare: \(error)")
        return 1
    }
    let report = BatchReport(total: work.count, json: arguments.flag("--json"), stats: arguments.flag("--stats"),
                             cache: configuration.diskCacheDirectory != nil)
    let inFlight = InFlightFiles()
    inFlight.removeOnInterrupt()
    // Files in parallel already keep the cores busy; one file's restart intervals are
    // spread over them only when it is decoded alone.
    if concurrent > 1 { options.decodeWorkers = 1 }
    let requests = work.map { ThumbnailRequest(path: $0.input, options: options) }
    let planned = work, requestOptions = options, immutablePlaceholder = placeholder
    let written = ThumbnailOutput(format: format.policy, jpeg: jpegOptions, png: png, background: background)
    await pipeline.files(requests, as: written) { index, result in
        var item = planned[index]
        var outcome = writeThumbnail(&item, result, format: format, inFlight: inFlight)
        if let placeholder = immutablePlaceholder, case let .made(file, _, milliseconds) = outcome {
            do {
                let hash = try ImageSource(path: item.input).placeholder(placeholder, options: requestOptions)
                outcome = .made(file, placeholder: hash, milliseconds: milliseconds)
            } catch {
                outcome = .failed("placeholder: \(error)")
            }
        }
        report.record(item, outcome)
    }
    report.finish()
    return report.failures == 0 ? 0 : 1
}

/// What `pare thumbnail` writes: one format, or (for --out-dir without --format) JPEG
/// for opaque thumbnails and PNG for those with alpha.
enum OutputFormat: Sendable {
    case fixed(ImageFileFormat)
    case byAlpha

    /// The extension planned before decoding; `byAlpha` outputs switch to .png if they turn
    /// out to have alpha.
    var fileExtension: String {
        switch self {
        case .fixed(.jpeg), .byAlpha: return "jpg"
        case .fixed(.png): return "png"
        case .fixed(.netpbm): return "ppm"
        }
    }

    /// The library's name for this choice.
    var policy: ThumbnailOutput.Format {
        switch self {
        case let .fixed(format): return .fixed(format)
        case .byAlpha: return .jpegOrPNGByAlpha
        }
    }
}

/// One input and where its thumbnail goes.
struct WorkItem: Sendable {
    let input: String
    var destination: String
}

/// Expands inputs (files, directories) into work items with output paths that keep each
/// file's path relative to the directory it was found under.
enum BatchPlan {
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "jpe", "jfif", "png", "tif", "tiff", "webp", "gif",
                                                "ppm", "pgm", "pam", "dng", "nef", "nrw", "arw", "sr2", "cr2", "pef",
                                                "srw", "orf", "rw2", "rwl"]

    static func make(inputs: [String], recursive: Bool, outDir: String?, format: OutputFormat) -> [WorkItem] {
        var items: [WorkItem] = []
        var taken: Set<String> = []
        let directory = outDir ?? "."
        func add(_ path: String, relative: String) {
            let stem = Path.deletingExtension(relative)
            var destination = Path.join(directory, stem + "." + format.fileExtension)
            if taken.contains(destination) {
                // a.jpg and a.png in one folder: keep both by naming the second after its full name.
                destination = Path.join(directory, relative + "." + format.fileExtension)
            }
            taken.insert(destination)
            items.append(WorkItem(input: path, destination: destination))
        }
        for input in inputs {
            if POSIX.isDirectory(input) {
                let found = recursive ? POSIX.walk(input) : (POSIX.list(input) ?? [])
                for relative in found.sorted() {
                    let path = Path.join(input, relative)
                    guard !POSIX.isDirectory(path),
                          imageExtensions.contains(Path.fileExtension(relative).lowercased()) else { continue }
                    add(path, relative: relative)
                }
            } else {
                add(input, relative: Path.lastComponent(input))
            }
        }
        return items
    }
}

/// The temporary files being written right now, removed if the process is interrupted.
final class InFlightFiles: Sendable {
    private struct State {
        var paths: Set<String> = []
        /// Kept so that the handlers stay installed.
        var signalSources: [any DispatchSourceSignal] = []
    }

    private let state = Mutex(State())
    /// Taken around each output's creation and rename, before `state`. Creating a file
    /// locks its directory in the kernel, which spins while another thread holds it: with
    /// more workers than cores writing into one directory, a third of the batch's time went
    /// to that spinning. One writer at a time waits in user space instead.
    private let writer = Mutex(())

    /// Runs `body` (an output's write) while no other thread writes one.
    func oneAtATime<T>(_ body: () -> T) -> T {
        writer.withOrderedLock { _ in body() }
    }

    func insert(_ path: String) { state.withOrderedLock { _ = $0.paths.insert(path) } }
    func remove(_ path: String) { state.withOrderedLock { _ = $0.paths.remove(path) } }

    /// On SIGINT or SIGTERM: delete every temporary file in flight, then exit 130 / 143.
    func removeOnInterrupt() {
        // The sources are made inside the lock, which then keeps them.
        state.withOrderedLock { installed in
            for (number, status) in POSIX.interruptions {
                POSIX.ignore(signal: number)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [self] in
                    // Exits holding the lock, so that no new temporary file can begin meanwhile.
                    state.withOrderedLock { state in
                        for path in state.paths { FileIO.remove(path) }
                        printError("pare: interrupted; no partial output left")
                        POSIX.exit(status)
                    }
                }
                source.resume()
                installed.signalSources.append(source)
            }
        }
    }
}

/// What became of one file: the thumbnail the pipeline made or took from the cache (with
/// `--placeholder`, its hash for the JSON line) and the time it took, or why it failed.
enum Outcome {
    case made(ThumbnailFile, placeholder: Placeholder?, milliseconds: Double)
    case failed(String)
}

/// Writes one thumbnail the pipeline made (printing its warnings) to the item's destination.
private func writeThumbnail(_ item: inout WorkItem, _ result: Result<ThumbnailFile, PareError>, format: OutputFormat,
                            inFlight: InFlightFiles) -> Outcome {
    let start = POSIX.now()
    let file: ThumbnailFile
    switch result {
    case let .success(made): file = made
    case let .failure(error): return .failed("\(error)")
    }
    for warning in file.warnings {
        switch warning {
        case .colour, .gainMap: break
        default: if !warning.isDamage { continue }
        }
        printError("pare: warning: \(item.input): \(warning)")
    }
    let encoded = file.bytes
    if case .byAlpha = format, file.format == .png {
        item.destination = Path.deletingExtension(item.destination) + ".png"
    }
    let destination = item.destination
    let written = inFlight.oneAtATime {
        let directory = Path.directory(destination)
        if !directory.isEmpty { POSIX.createDirectories(directory) }
        var temporary: String?
        return writeOutput(encoded, to: destination) { name in
            if let name { inFlight.insert(name) } else if let temporary { inFlight.remove(temporary) }
            temporary = name
        }
    }
    guard written else { return .failed("cannot write \(item.destination)") }
    let making = file.duration.components
    let madeIn = Double(making.seconds) * 1000 + Double(making.attoseconds) / 1e15
    return .made(file, placeholder: nil, milliseconds: madeIn + Double(POSIX.now() - start) / 1_000_000)
}

/// `thumbhash`, `blurhash` (4×3 components) or `blurhash:XxY`.
func placeholderKind(_ name: String) -> PlaceholderKind? {
    if name == "thumbhash" { return .thumbHash }
    if name == "blurhash" { return .blurHash(x: 4, y: 3) }
    guard name.hasPrefix("blurhash:") else { return nil }
    let parts = name.dropFirst("blurhash:".count).split(separator: "x")
    guard parts.count == 2, let x = Int(parts[0]), let y = Int(parts[1]), (1 ... 9).contains(x), (1 ... 9).contains(y)
    else { return nil }
    return .blurHash(x: x, y: y)
}

/// What the user sees: one JSON line per file (`--json`), a progress bar on a terminal, a
/// failure line per bad file, and a summary.
final class BatchReport: Sendable {
    /// What the lock guards: the counts so far.
    private struct State {
        var done = 0
        var failures = 0
        var sources: [String: Int] = [:]
        var cached = 0
    }

    private let state = Mutex(State())
    let total: Int
    let json: Bool
    let stats: Bool
    /// `--cache` is on: each JSON line says whether the thumbnail came from the cache.
    let cache: Bool
    private let progress: Bool
    private let started = POSIX.now()

    var failures: Int { state.withOrderedLock { $0.failures } }

    init(total: Int, json: Bool, stats: Bool, cache: Bool) {
        self.total = total
        self.json = json
        self.stats = stats
        self.cache = cache
        progress = total > 1 && POSIX.standardErrorIsTerminal
    }

    private var elapsed: Double { Double(POSIX.now() - started) / 1e9 }

    func record(_ item: WorkItem, _ outcome: Outcome) {
        state.withOrderedLock { record(item, outcome, in: &$0) }
    }

    private func record(_ item: WorkItem, _ outcome: Outcome, in state: inout State) {
        state.done += 1
        if progress { POSIX.writeStandardError("\r\u{1B}[K") }
        switch outcome {
        case let .made(thumbnail, placeholder, milliseconds):
            state.sources[thumbnail.source.name, default: 0] += 1
            if thumbnail.fromDiskCache { state.cached += 1 }
            if json {
                // Values are rendered here, not as JSONValues, to keep the documented line
                // format: ", " and ": " separators and ms with two decimals.
                var fields: [(String, String)] = [
                    ("input", JSONValue.quoted(item.input)), ("output", JSONValue.quoted(item.destination)),
                    ("source", JSONValue.quoted(thumbnail.source.name)),
                    ("width", "\(thumbnail.width)"), ("height", "\(thumbnail.height)"),
                    ("format", JSONValue.quoted(thumbnail.format.rawValue)), ("bytes", "\(thumbnail.bytes.count)"),
                    ("ms", fixed(milliseconds, 2)),
                ]
                if cache { fields.append(("cached", thumbnail.fromDiskCache ? "true" : "false")) }
                if let placeholder {
                    let name = placeholder.kind == .thumbHash ? "thumbhash" : "blurhash"
                    fields.append((name, JSONValue.quoted(placeholder.text)))
                }
                if stats {
                    fields.append(("ledgerPeakBytes", "\(thumbnail.ledgerPeakBytes)"))
                    fields.append(("allocations", "\(thumbnail.allocations)"))
                }
                let line = "{" + fields.map { "\(JSONValue.quoted($0.0)): \($0.1)" }.joined(separator: ", ") + "}\n"
                POSIX.writeStandardOutput(line)
            } else if total > 1 && !progress {
                let line = "\(item.input) -> \(item.destination) (\(thumbnail.source.name), \(thumbnail.width)×\(thumbnail.height)"
                    + (thumbnail.fromDiskCache ? ", cached" : "") + ")\n"
                POSIX.writeStandardOutput(line)
            }
        case let .failed(message):
            state.failures += 1
            printError("pare: \(item.input): \(message)")
        }
        if progress {
            let rate = Double(state.done) / max(elapsed, 0.001)
            let eta = Double(total - state.done) / max(rate, 0.001)
            let width = 30, filled = width * state.done / total
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            POSIX.writeStandardError("[\(bar)] \(state.done)/\(total)  \(fixed(rate, 1)) files/s  ETA \(fixed(eta, 0))s")
        }
    }

    func finish() {
        state.withOrderedLock { finish(in: $0) }
    }

    private func finish(in state: State) {
        if progress { POSIX.writeStandardError("\r\u{1B}[K") }
        guard total > 1 else { return }
        let order = ["exif-thumbnail", "mpf-preview", "scaled-1/8", "scaled-1/4", "scaled-1/2", "full"]
        let used = order.compactMap { name in state.sources[name].map { "\(name) \($0)" } }.joined(separator: ", ")
        printError("pare: \(state.done - state.failures) done, \(state.failures) failed, \(fixed(elapsed, 2)) s; sources: "
            + (used.isEmpty ? "none" : used) + (cache ? "; \(state.cached) from the cache" : ""))
    }
}
