import PareCore
import PareEXIF
import PareJPEG

/// The firmware's work, called by the board's C `main` (Board/board.c) with the host's
/// command line: `firmware IN.jpg [1/8|1/4|1/2|1] [ledger limit in bytes]`.
///
/// 1. EXIF: orientation and the embedded thumbnail's place and size (Exif 2.32 §4.6.4, §4.5.8).
/// 2. The main image decoded at the chosen scale, rows streamed into a CRC-32 sink.
/// 3. One result line for run.sh: `crc32=… width=… height=… heapPeak=… stackPeak=…`.
///
/// Every failure is a typed error printed on the board, and the exit status is 1.
@_cdecl("firmware_main")
func firmwareMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    guard argc >= 2, let path = argv[1] else {
        say("usage: firmware IN.jpg [1/8|1/4|1/2|1] [ledger limit]")
        return 2
    }
    var scale = JPEGScale.eighth
    if argc >= 3, let name = argv[2] {
        guard let chosen = scaleNamed(name) else {
            say("firmware: the scale must be 1/8, 1/4, 1/2 or 1")
            return 2
        }
        scale = chosen
    }
    var limit: Int?
    if argc >= 4, let text = argv[3] { limit = decimal(text) }
    guard let input = BoardInput(path: path) else {
        say("firmware: cannot open the input through the host")
        return 1
    }
    var line = Line("input bytes=")
    line.add(input.count)
    line.add(" scale=")
    line.add(text: scale.name)
    line.add(" ledgerLimit=")
    line.add(limit ?? -1)
    line.say()
    readMetadata(input)
    let metadataHeapPeak = board_heap_peak()
    line = Line("exif heapPeak=")
    line.add(metadataHeapPeak)
    line.say()
    board_heap_restart_peak()
    return decodeMain(input, scale: scale, limit: limit, heapPeakBefore: metadataHeapPeak)
}

/// The scale whose name ("1/8", "1/4", "1/2", "1") is the C string `text`.
func scaleNamed(_ text: UnsafePointer<CChar>) -> JPEGScale? {
    var bytes: [UInt8] = []
    while text[bytes.count] != 0 { bytes.append(UInt8(bitPattern: text[bytes.count])) }
    return JPEGScale.allCases.first { $0.name.bytes == bytes }
}

/// Reads the EXIF orientation and thumbnail. Broken metadata never stops the decode: its
/// error is printed and the image decoded as stored.
@inline(never) // not live while the main image decodes
func readMetadata(_ input: BoardInput) {
    var options = EXIFOptions()
    // The board needs no large values (maker notes, ICC in EXIF): orientation and the
    // thumbnail's place are small fields.
    options.maxValueBytes = 4096
    options.maxTotalValueBytes = 16384
    do {
        let metadata = try EXIFReader.readJPEG(input, options: options)
        guard let exif = metadata.exif else {
            say("exif none")
            return
        }
        var line = Line("exif orientation=")
        line.add(Int(exif.orientation.rawValue))
        if let thumbnail = exif.thumbnail {
            line.add(" thumbnail=")
            line.add(thumbnail.length)
            line.add("B@")
            line.add(thumbnail.offset)
            if let width = thumbnail.width, let height = thumbnail.height {
                line.add(" ")
                line.add(width)
                line.add("x")
                line.add(height)
            }
        } else {
            line.add(" thumbnail=none")
        }
        line.say()
    } catch {
        var line = Line("exif error: ")
        line.add(text: error.description)
        line.say()
    }
}

/// Decodes the main image at `scale` into the CRC sink and prints the result line.
/// `heapPeakBefore` is the EXIF stage's, so that the result line has the program's peak.
@inline(never) // its frame is not live while the metadata is read
func decodeMain(_ input: BoardInput, scale: JPEGScale, limit: Int?, heapPeakBefore: Int) -> Int32 {
    let ledger = MemoryLedger(limit: limit ?? FirmwareBudget.ledgerLimit())
    var options = JPEGOptions()
    options.inputWindowBytes = FirmwareBudget.inputWindowBytes
    var sink = CRC32Sink()
    do {
        board_mark(1)
        var decoder = try JPEGDecoder(source: input, ledger: ledger, options: options)
        try decoder.decode(scale: scale, into: &sink)
        board_mark(2)
        for warning in decoder.warnings {
            var line = Line("warning: ")
            line.add(text: warning.description)
            line.say()
        }
    } catch {
        var line = Line("error: ")
        line.add(text: error.description)
        line.say()
        line = Line("decode ledgerPeak=")
        line.add(ledger.peakBytes)
        line.add(" heapPeak=")
        line.add(board_heap_peak())
        line.add(" stackPeak=")
        line.add(board_stack_peak())
        line.say()
        return 1
    }
    guard let header = sink.header else {
        say("error: the decoder sent no rows")
        return 1
    }
    var line = Line("decode ledgerPeak=")
    line.add(ledger.peakBytes)
    line.add(" heapPeak=")
    line.add(board_heap_peak())
    line.add(" ledgerAllocations=")
    line.add(ledger.allocationCount)
    line.add(" heapAllocations=")
    line.add(board_heap_allocations())
    line.add(" rows=")
    line.add(sink.rows)
    line.say()
    let heapPeak = max(heapPeakBefore, board_heap_peak())
    line = Line("crc32=")
    line.addHex8(sink.crc.value)
    line.add(" width=")
    line.add(header.width)
    line.add(" height=")
    line.add(header.height)
    line.add(" heapPeak=")
    line.add(heapPeak)
    line.add(" stackPeak=")
    line.add(board_stack_peak())
    line.say()
    return 0
}

/// The sizes this board picks where a server keeps larger defaults.
enum FirmwareBudget {
    /// The decoder's window onto the input: each refill is one semihosting read.
    static let inputWindowBytes = 1024

    /// The ledger's limit when none is given: the free arena less an eighth for what the
    /// program allocates outside the ledger (warnings, the decoder's small arrays), so that a
    /// file too large for the board ends with `JPEGError` naming the memory limit instead of
    /// exhausting the heap. Nil where the arena's size is not known.
    static func ledgerLimit() -> Int? {
        let free = board_heap_free()
        return free > 0 ? free - free / 8 : nil
    }
}
