import PareCore

// The C side of the board (Board/board.c): the input file, text output, the heap meter and
// the stack paint.
@_extern(c, "board_open_input") func board_open_input(_ path: UnsafePointer<CChar>) -> Int
@_extern(c, "board_read_input") func board_read_input(_ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: Int) -> Int
@_extern(c, "board_write") func board_write(_ text: UnsafePointer<UInt8>, _ count: Int)
@_extern(c, "board_heap_peak") func board_heap_peak() -> Int
@_extern(c, "board_heap_restart_peak") func board_heap_restart_peak()
@_extern(c, "board_heap_in_use") func board_heap_in_use() -> Int
@_extern(c, "board_heap_allocations") func board_heap_allocations() -> Int
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

/// One line of text to the host's console.
func say(_ line: String) {
    var text = line
    text.append("\n")
    text.utf8.withContiguousStorageIfAvailable { board_write($0.baseAddress!, $0.count) }
}

/// `value` as eight upper-case hex digits.
func hex8(_ value: UInt32) -> String {
    let digits: StaticString = "0123456789ABCDEF"
    var text = ""
    for shift in stride(from: 28, through: 0, by: -4) {
        let digit = Int((value >> UInt32(shift)) & 0xF)
        text.unicodeScalars.append(Unicode.Scalar(digits.utf8Start[digit]))
    }
    return text
}
