import Dispatch
import Pare
import Synchronization

/// `pare`: the command line described in the README ("The command line"). Exit status 0 on
/// success, 1 when an input is bad (one line on stderr naming the file, offset and reason),
/// 2 on a usage error.

/// Each command's usage, as `pare CMD --help` prints it and `pare --help` lists them all.
let commandUsage: [(command: String, text: String)] = [
    ("thumbnail", """
      pare thumbnail IN... --size N|WxH [--fit inside|cover|contain|fill]
                     [--crop centre|entropy|attention] [--enlarge]
                     [-o OUT | --out-dir DIR] [--recursive] [--format jpeg|png|ppm]
                     [--quality N] [--background RRGGBB] [--colour keep|srgb] [--cmyk-profile FILE]
                     [--gain-map drop|keep] [--png-compression fast|default|small]
                     [--embedded auto|never|always] [--filter lanczos3|triangle|area] [--no-rotate]
                     [--strict] [--placeholder thumbhash|blurhash[:XxY]] [--jobs N] [--json] [--stats]
                     [--cache DIR]
            --size N bounds the long side; --size WxH (or Wx, xH) is a box: --fit inside keeps
            the picture whole within it, cover fills it and crops (--crop says where), contain
            centres it on a box-sized canvas of --background, fill stretches it.
            IN may be files or directories, or - for paths read from standard input, one a
            line; with --out-dir, outputs keep their relative paths. --jobs N decodes N
            files at once, at most the usable cores (the default).
            The format is --format's, else OUT's extension; with --out-dir, JPEG for opaque
            thumbnails and PNG for those with alpha. JPEGs are written at --quality (default 85),
            PNGs with --png-compression's effort (default: default; small tries zlib too).
            --gain-map keep carries an HDR photo's gain map into a JPEG thumbnail.
            --cache DIR keeps the thumbnails in DIR for later runs over unchanged inputs.
            --cmyk-profile FILE: the CMYK profile for untagged CMYK JPEGs (thumbnail, convert).
            --placeholder adds a ThumbHash (base64) or BlurHash to each --json line.
            A file cut off or damaged in its image data gives what was decoded, with a
            warning; --strict makes it a failure.
    """),
    ("convert", """
      pare convert IN -o OUT [--quality N] [--sampling 4:2:0|4:2:2|4:4:4] [--optimize]
                   [--progressive] [--restart N|NB] [--baseline] [--colour keep|srgb]
                   [--cmyk-profile FILE] [--png-compression fast|default|small]
            decodes IN (JPEG, PNG, WebP, GIF, TIFF, PGM/PPM/PAM) at full size and writes the format OUT's
            extension names (.jpg/.jpeg, .png, .ppm/.pgm/.pam); JPEG output defaults to
            cjpeg's settings (quality 75, 4:2:0, standard tables); --restart N puts a
            restart marker every N MCU rows, NB every N MCUs; the output carries IN's
            ICC profile, or with --colour srgb is converted to sRGB.
    """),
    ("decode", """
      pare decode IN [--scale 1/8|1/4|1/2|1] -o OUT
            the raw decode, no orientation or resampling: JPEG as djpeg -pnm -scale writes
            it, PNG as PAM.
    """),
    ("exif", """
      pare exif IN --json
            the metadata as one JSON object: orientation, camera, IFD1 thumbnail, MPF
            images, the ICC profile, an HDR photo's gain map, every IFD.
    """),
    ("inspect", """
      pare inspect IN [--json]
            the file's structure, for learning the formats: JPEG markers, tables, scans and
            APPn segments; PNG chunks with CRC status, zlib header and filter types; the
            TIFF/EXIF IFD tree.
    """),
    ("placeholder", """
      pare placeholder encode IN [--kind thumbhash|blurhash[:XxY]]
      pare placeholder decode HASH -o OUT [--size N|WxH] [--kind thumbhash|blurhash]
            a ThumbHash (base64) or BlurHash of IN, from its cheapest source at about 100
            pixels; or a hash drawn back to pixels (ThumbHash at 32 pixels on its long side,
            BlurHash at 32×32, unless --size says otherwise).
    """),
    ("explain", """
      pare explain IN -o REPORT.html
            one self-contained page that shows the file stage by stage: a byte map, the
            JPEG tables, scans, decoding stages and blocks, the PNG chunks, filters and
            passes, the metadata, and where a broken file stops.
    """),
]

let usage = """
    pare \(pareVersion): fast, portable image thumbnails

    usage:
    \(commandUsage.map(\.text).joined(separator: "\n"))
      pare --help | --version | CMD --help
    """

/// Runs `body` as a task on the global executor and blocks this thread until it returns.
///
/// `pare` is deliberately not an async program. An async `main` hands the main thread to
/// `dispatch_main`, which ends it with `pthread_exit`; that unwinds the thread, and in a
/// static executable the unwinder's first lookup sorts the frame-description table of the
/// whole binary, a cost paid on every run for nothing (see Benchmarks/notes/history.md). Blocking
/// here is safe: the main thread is not one of the executor's threads.
func runToCompletion(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
    let done = DispatchSemaphore(value: 0)
    let result = Atomic<Int32>(0)
    Task {
        result.store(await body(), ordering: .relaxed)
        done.signal()
    }
    done.wait()
    return result.load(ordering: .relaxed)
}

func printError(_ message: String) {
    POSIX.writeStandardError(message + "\n")
}

let commandLine = Array(CommandLine.arguments.dropFirst())
guard let command = commandLine.first else {
    print(usage)
    POSIX.exit(2)
}
let rest = Array(commandLine.dropFirst())
let status: Int32
if rest.contains("--help") || rest.contains("-h"), let entry = commandUsage.first(where: { $0.command == command }) {
    print("usage:\n" + entry.text)
    POSIX.exit(0)
}
switch command {
case "--help", "-h", "help":
    print(usage)
    status = 0
case "--version":
    print("pare \(pareVersion)")
    status = 0
case "thumbnail":
    status = runToCompletion { await runThumbnail(rest) }
default:
    // The synchronous commands, by name.
    let runners: [String: ([String]) -> Int32] = [
        "decode": runDecode, "convert": runConvert, "exif": runExif, "inspect": runInspect,
        "explain": runExplain, "placeholder": runPlaceholder,
    ]
    if let run = runners[command] {
        status = run(rest)
    } else {
        printError("pare: unknown command '\(command)' (see pare --help)")
        status = 2
    }
}
POSIX.exit(status)
