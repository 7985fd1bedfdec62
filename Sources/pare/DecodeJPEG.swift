import Pare
import PareCore
import PareJPEG

/// `pare decode` for JPEG input: PPM (P6) or PGM (P5), as `djpeg -pnm -scale` writes.
func decodeJPEGCommand(input: String, bytes: [UInt8], scale: String, output: String) -> Int32 {
    guard let jpegScale = JPEGScale(name: scale) else {
        return usageError("--scale must be 1/8, 1/4, 1/2 or 1")
    }
    let ledger = MemoryLedger()
    var sink = PNMWriter()
    do {
        let outcome = try ParallelJPEGDecoder.decode(source: MemoryByteSource(bytes), scale: jpegScale, ledger: ledger,
                                                     into: &sink)
        for warning in outcome.warnings {
            printError("pare: \(input): warning: \(warning)")
        }
    } catch {
        return reportInputError(input, error)
    }
    guard writeOutput(sink.bytes, to: output) else {
        printError("pare: \(output): cannot write the file")
        return 1
    }
    return 0
}

/// Collects rows into a binary PNM file: P5 for gray8, P6 for rgb8, maxval 255.
struct PNMWriter: RowSink {
    private(set) var bytes: [UInt8] = []
    private var headerCount = 0
    private var rowBytes = 0

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        let magic = header.format == .gray8 ? "P5" : "P6"
        bytes = Array("\(magic)\n\(header.width) \(header.height)\n255\n".utf8)
        headerCount = bytes.count
        rowBytes = header.width * header.format.bytesPerPixel
        let (total, overflow) = rowBytes.multipliedReportingOverflow(by: header.height)
        guard !overflow else { throw .sizeOverflow }
        bytes.append(contentsOf: repeatElement(0, count: total))
    }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
        let start = headerCount + placement.y * rowBytes
        let n = min(row.count, rowBytes)
        guard placement.y >= 0, start + n <= bytes.count, n > 0 else { return }
        bytes.withUnsafeMutableBufferPointer { target in
            (target.baseAddress! + start).update(from: row.baseAddress!, count: n)
        }
    }
}
