@_spi(Codec) import PareCore

// The C side of the board (Board/board.c): the input file, text output, the heap meter and
// the stack paint.
@_extern(c, "board_open_input") func board_open_input(_ path: UnsafePointer<CChar>) -> Int
@_extern(c, "board_read_input") func board_read_input(_ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: Int) -> Int
@_extern(c, "board_write") func board_write(_ text: UnsafePointer<UInt8>, _ count: Int)
@_extern(c, "board_heap_peak") func board_heap_peak() -> Int
@_extern(c, "board_heap_restart_peak") func board_heap_restart_peak()
@_extern(c, "board_heap_in_use") func board_heap_in_use() -> Int
@_extern(c, "board_heap_allocations") func board_heap_allocations() -> Int
@_extern(c, "board_heap_free") func board_heap_free() -> Int
@_extern(c, "board_stack_peak") func board_stack_peak() -> Int
@_extern(c, "board_mark") func board_mark(_ which: Int32)

/// The input JPEG, read from the host on demand (semihosting on the boards, WASI under Node):
/// the decoders pull it through their own small windows, so the board never holds the file.
struct BoardInput: ByteSource {
    let count: Int

    /// Opens `path`; nil when the host cannot.
    init?(path: UnsafePointer<CChar>) {
        let size = board_open_input(path)
        guard size >= 0 else { return nil }
        count = size
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(CoreError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let n = board_read_input(base, buffer.count, offset)
        guard n >= 0 else { throw .readFailed(offset: offset) }
        return n
    }
}

/// One line of text for the host's console, built from literals, numbers and the library's
/// own texts (its errors' descriptions, `MessageText`), as bytes: the program links no
/// `String` code.
struct Line {
    private var bytes: [UInt8] = []

    init(_ text: StaticString) { add(text) }

    mutating func add(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `value` in decimal.
    mutating func add(_ value: Int) {
        add(text: "\(value)")
    }

    /// `value` as eight upper-case hex digits.
    mutating func addHex8(_ value: UInt32) {
        add(text: MessageText.hex(value, digits: 8))
    }

    /// A text of the library's (an error's or a warning's description, a scale's name).
    mutating func add(text: MessageText) {
        text.append(to: &bytes)
    }

    /// Writes the line and its newline.
    func say() {
        var line = bytes
        line.append(UInt8(ascii: "\n"))
        line.withUnsafeBufferPointer { board_write($0.baseAddress!, $0.count) }
    }
}

/// Writes `text` as one line.
func say(_ text: StaticString) { Line(text).say() }

/// The decimal number at `text`, or nil when it is not one (the ledger limit's argument).
func decimal(_ text: UnsafePointer<CChar>) -> Int? {
    var value = 0, index = 0
    while text[index] != 0 {
        let digit = Int(text[index]) - Int(UInt8(ascii: "0"))
        guard digit >= 0, digit <= 9 else { return nil }
        let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(digit)
        guard !overflow1, !overflow2 else { return nil }
        value = sum
        index += 1
    }
    return index > 0 ? value : nil
}
