#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Pare
import Synchronization

/// `pare`: the command line described in the README ("The command line"). Exit status 0 on
/// success, 1 when an input is bad (one line on stderr naming the file, offset and reason),
/// 2 on a usage error.

let usage = """
    pare \(pareVersion): fast, portable image thumbnails

    usage:
      pare thumbnail IN... --size N [-o OUT | --out-dir DIR] [--recursive] [--format jpeg|png|ppm]
                     [--quality N] [--colour keep|srgb] [--embedded auto|never|always]
                     [--filter lanczos3|triangle|area] [--no-rotate] [--jobs N] [--json] [--stats]
                     [--cache DIR]
            IN may be files or directories; with --out-dir, outputs keep their relative paths.
            The format is --format's, else OUT's extension; with --out-dir, JPEG for opaque
            thumbnails and PNG for those with alpha. JPEGs are written at --quality (default 85).
            --cache DIR keeps the thumbnails in DIR for later runs over unchanged inputs.
            --cmyk-profile FILE: the CMYK profile for untagged CMYK JPEGs (thumbnail, convert).
      pare convert IN -o OUT [--quality N] [--sampling 4:2:0|4:2:2|4:4:4] [--optimize]
                   [--progressive] [--restart N|NB] [--baseline] [--colour keep|srgb]
            decodes IN (JPEG, PNG, PGM/PPM/PAM) at full size and writes the format OUT's
            extension names (.jpg/.jpeg, .png, .ppm/.pgm/.pam); JPEG output defaults to
            cjpeg's settings (quality 75, 4:2:0, standard tables); --restart N puts a
            restart marker every N MCU rows, NB every N MCUs; the output carries IN's
            ICC profile, or with --colour srgb is converted to sRGB.
      pare decode IN [--scale 1/8|1/4|1/2|1] -o OUT
      pare exif IN --json
      pare inspect IN [--json]
            the file's structure, for learning the formats: JPEG markers, tables, scans and
            APPn segments; PNG chunks with CRC status, zlib header and filter types; the
            TIFF/EXIF IFD tree.
      pare explain IN -o REPORT.html
            one self-contained page that shows the file stage by stage: a byte map, the
            JPEG tables, scans, decoding stages and blocks, the PNG chunks, filters and
            passes, the metadata, and where a broken file stops.
      pare --help | --version
    """

/// Runs `body` as a task on the global executor and blocks this thread until it returns.
///
/// `pare` is deliberately not an async program. An async `main` hands the main thread to
/// `dispatch_main`, which ends it with `pthread_exit`; that unwinds the thread, and in a
/// static executable the unwinder's first lookup sorts the frame-description table of the
/// whole binary, a cost paid on every run for nothing (see Benchmarks/README.md). Blocking
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
    exit(2)
}
let rest = Array(commandLine.dropFirst())
let status: Int32
switch command {
case "--help", "-h", "help":
    print(usage)
    status = 0
case "--version":
    print("pare \(pareVersion)")
    status = 0
case "thumbnail":
    status = runToCompletion { await runThumbnail(rest) }
case "decode":
    status = runDecode(rest)
case "convert":
    status = runConvert(rest)
case "exif":
    status = runExif(rest)
case "inspect":
    status = runInspect(rest)
case "explain":
    status = runExplain(rest)
default:
    printError("pare: unknown command '\(command)' (see pare --help)")
    status = 2
}
exit(status)
