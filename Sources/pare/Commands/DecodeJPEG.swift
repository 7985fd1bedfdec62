import Pare
import PareCore
import PareJPEG

/// `pare decode` for JPEG input: PPM (P6) or PGM (P5), as `djpeg -pnm -scale` writes, streamed
/// to the open output file row by row as the decoder produces them.
func decodeJPEG(input: String, source: InputBytes, scale: JPEGScale, into file: OutputFile) -> Int32 {
    var sink = PNMWriter(file: file)
    do {
        let outcome = try ParallelJPEGDecoder.decode(source: source, scale: scale, ledger: MemoryLedger(), into: &sink)
        for warning in outcome.warnings {
            printError("pare: \(input): warning: \(warning)")
        }
    } catch {
        return reportInputError(input, error)
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
        let magic = header.format == .gray8 ? "P5" : "P6"
        file.write(Array("\(magic)\n\(header.width) \(header.height)\n255\n".utf8))
        rowBytes = header.width * header.format.bytesPerPixel
    }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        file.write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(row).prefix(rowBytes)))
    }
}
