import PareCore

/// The zlib stream of a PNG's image data (§10.1): made by zlib's deflate, or by
/// `RunLengthDeflater` (Huffman codes and runs, no string matching).
enum ImageDataStream {
    case zlib(Deflater, output: LedgerBuffer<UInt8>)
    case runLength(RunLengthDeflater)

    /// Which stream an image's rows go into.
    enum Choice {
        case zlib(level: Int)
        case runLength
        /// Decided on a sample of the filtered rows (`decide(sample:ledger:)`).
        case bySample
    }

    /// Bytes of filtered rows `Choice.bySample` looks at before it decides.
    static let sampleBytes = 64 * 1024

    static func make(_ choice: Choice, ledger: MemoryLedger) throws(PNGError) -> ImageDataStream {
        switch choice {
        case let .zlib(level):
            let deflater = try Deflater(level: level, ledger: ledger)
            do {
                return .zlib(deflater, output: try ledger.allocate(UInt8.self, count: 64 * 1024, initialValue: 0))
            } catch {
                throw .core(error)
            }
        case .runLength, .bySample:
            return .runLength(try RunLengthDeflater(ledger: ledger))
        }
    }

    /// Compresses `count` bytes at `input` (with `finish`, then ends the stream), handing
    /// the output to `emit` in pieces.
    func deflate(_ input: UnsafePointer<UInt8>?, count: Int, finish: Bool,
                 emit: (UnsafeBufferPointer<UInt8>) -> Void) throws(PNGError) {
        switch self {
        case let .zlib(deflater, output):
            try deflater.deflate(input, count: count, finish: finish, output: output, emit: emit)
        case let .runLength(deflater):
            deflater.deflate(input, count: count, finish: finish, emit: emit)
        }
    }

    /// The stream for an image whose first filtered rows are `sample`. Filtered
    /// photographs have nothing for string matching to find, and `RunLengthDeflater` writes
    /// them smaller than zlib at any level, several times faster; drawings, text and
    /// screenshots repeat themselves, and zlib's matches halve them. Which of the two an
    /// image is shows on its first rows: both compress the sample (zlib at its fastest
    /// level, whose matches are enough to tell), and where zlib's is under three quarters
    /// of the other the image goes to zlib at its default level 6.
    static func decide(sample: UnsafeBufferPointer<UInt8>, ledger: MemoryLedger) throws(PNGError) -> Choice {
        guard let base = sample.baseAddress, !sample.isEmpty else { return .runLength }
        var runLengthBytes = 0, zlibBytes = 0
        try make(.runLength, ledger: ledger).deflate(base, count: sample.count, finish: true) { runLengthBytes += $0.count }
        try make(.zlib(level: 1), ledger: ledger).deflate(base, count: sample.count, finish: true) { zlibBytes += $0.count }
        return 4 * zlibBytes < 3 * runLengthBytes ? .zlib(level: 6) : .runLength
    }
}
