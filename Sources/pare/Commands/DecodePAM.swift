import Pare
import PareCore
import ParePNG

/// `pare decode` for every input but JPEG: PAM (P7, RGB_ALPHA, MAXVAL 255 or 65535 as the
/// source's depth), into the open output file. A sequential image streams row by row; an
/// interlaced one is collected whole first, since its passes revisit every row.
func decodeToPAM(input: String, source: InputBytes, into file: OutputFile) -> Int32 {
    let ledger = MemoryLedger()
    var writer = PAMWriter(file: file)
    do {
        let warnings = try ImageSource(input: source).decodeMainImage(ledger: ledger, workers: ParallelJPEGDecoder.activeCores,
                                                                      into: &writer)
        for warning in warnings { printError("pare: \(input): warning: \(warning)") }
    } catch {
        return reportInputError(input, error)
    }
    return 0
}

/// A row sink that writes PAM RGB_ALPHA rows to a file as they arrive, expanding gray and
/// opaque formats to four channels at the source's depth.
private struct PAMWriter: RowSink {
    let file: OutputFile
    var format = PixelFormat.rgba8
    var row: [UInt8] = []

    init(file: OutputFile) {
        self.file = file
    }

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        format = header.format
        let maxval = format.bytesPerSample == 2 ? 65535 : 255
        let text = "P7\nWIDTH \(header.width)\nHEIGHT \(header.height)\nDEPTH 4\nMAXVAL \(maxval)\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
        file.write(Array(text.utf8))
        row = [UInt8](repeating: 0, count: header.width * 4 * format.bytesPerSample)
    }

    mutating func consume(_ pixels: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        let sampleBytes = format.bytesPerSample
        let channels = format.channels
        let width = placement.width
        guard let source = pixels.baseAddress, pixels.count >= width * channels * sampleBytes else {
            file.fail()
            return
        }
        row.withUnsafeMutableBufferPointer { out in
            let target = out.baseAddress!
            if channels == 4 {
                target.update(from: source, count: width * 4 * sampleBytes)
                return
            }
            if channels == 3 && sampleBytes == 1 {
                for x in 0 ..< width {
                    let p = source + 3 * x, o = target + 4 * x
                    o[0] = p[0]
                    o[1] = p[1]
                    o[2] = p[2]
                    o[3] = 255
                }
                return
            }
            for x in 0 ..< width {
                let p = source + x * channels * sampleBytes
                let o = target + x * 4 * sampleBytes
                for b in 0 ..< sampleBytes {
                    let gray = p[b]
                    switch channels {
                    case 1:
                        o[b] = gray; o[sampleBytes + b] = gray; o[2 * sampleBytes + b] = gray; o[3 * sampleBytes + b] = 255
                    case 2:
                        o[b] = gray; o[sampleBytes + b] = gray; o[2 * sampleBytes + b] = gray
                        o[3 * sampleBytes + b] = p[sampleBytes + b]
                    default:
                        o[b] = p[b]; o[sampleBytes + b] = p[sampleBytes + b]; o[2 * sampleBytes + b] = p[2 * sampleBytes + b]
                        o[3 * sampleBytes + b] = 255
                    }
                }
            }
        }
        row.withUnsafeBytes { file.write(UnsafeRawBufferPointer(rebasing: $0.prefix(width * 4 * sampleBytes))) }
    }
}
