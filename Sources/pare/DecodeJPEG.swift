import Pare
import PareCore
import PareJPEG

/// `pare decode` for JPEG input: PPM (P6) or PGM (P5), as `djpeg -pnm -scale` writes, streamed
/// to the file row by row as the decoder produces them.
func decodeJPEGCommand(input: String, source: InputBytes, scale: String, output: String) -> Int32 {
    guard let jpegScale = JPEGScale(name: scale) else {
        return usageError("--scale must be 1/8, 1/4, 1/2 or 1")
    }
    let ledger = MemoryLedger()
    let file = OutputFile(path: output)
    var sink = PNMWriter(file: file)
    do {
        let outcome = try ParallelJPEGDecoder.decode(source: source, scale: jpegScale, ledger: ledger, into: &sink)
        for warning in outcome.warnings {
            printError("pare: \(input): warning: \(warning)")
        }
    } catch {
        file.abandon()
        return reportInputError(input, error)
    }
    guard file.commit() else {
        printError("pare: \(output): cannot write the file")
        return 1
    }
    return 0
}

/// Writes rows into a binary PNM file: P5 for gray8, P6 for rgb8, maxval 255.
struct PNMWriter: RowSink {
    let file: OutputFile
    private var rowBytes = 0

    init(file: OutputFile) {
        self.file = file
    }

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        guard file.open() else { throw .readFailed(offset: 0) }
        let magic = header.format == .gray8 ? "P5" : "P6"
        file.write(Array("\(magic)\n\(header.width) \(header.height)\n255\n".utf8))
        rowBytes = header.width * header.format.bytesPerPixel
    }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
        file.write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(row).prefix(rowBytes)))
    }
}
