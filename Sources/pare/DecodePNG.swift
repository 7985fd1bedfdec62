import Foundation
import PareCore
import ParePNG

/// `pare decode` for PNG input: PAM (P7, RGB_ALPHA, MAXVAL 255 or 65535 as the source's
/// depth). A sequential image streams row by row into the file; an interlaced one is
/// collected whole first, since its passes revisit every row.
func decodePNGCommand(input: String, bytes: [UInt8], output: String) -> Int32 {
    let ledger = MemoryLedger()
    // A regular file is written under a temporary name and renamed, so no half-written
    // file is left behind; anything else (/dev/null, a pipe) is written in place, since a
    // rename would replace the device node itself.
    var info = stat()
    let inPlace = stat(output, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG
    let temporary = inPlace ? output : output + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
    var writer = PAMWriter(path: temporary)
    do {
        var decoder = try PNGDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        if decoder.header.interlaced {
            var builder = ImageBuilder(ledger: ledger)
            try decoder.decode(into: &builder)
            guard let image = builder.image else { return reportInputError(input, PNGError.core(.sizeOverflow)) }
            try writer.begin(RowStreamHeader(width: image.width, height: image.height, format: image.format))
            for y in 0 ..< image.height {
                writer.consume(UnsafeBufferPointer(image.row(y)), at: RowPlacement(y: y, width: image.width))
            }
        } else {
            try decoder.decode(into: &writer)
        }
    } catch {
        writer.close()
        if !inPlace { unlink(temporary) }
        return reportInputError(input, error)
    }
    guard writer.close(), inPlace || rename(temporary, output) == 0 else {
        if !inPlace { unlink(temporary) }
        printError("pare: \(output): cannot write the file")
        return 1
    }
    return 0
}

/// A row sink that writes PAM RGB_ALPHA rows to a file as they arrive, expanding gray and
/// opaque formats to four channels at the source's depth.
private struct PAMWriter: RowSink {
    let path: String
    var file: UnsafeMutablePointer<FILE>?
    var format = PixelFormat.rgba8
    var row: [UInt8] = []
    var failed = false

    init(path: String) {
        self.path = path
    }

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        format = header.format
        file = fopen(path, "wb")
        guard let file else { throw .readFailed(offset: 0) }
        let maxval = format.bytesPerSample == 2 ? 65535 : 255
        let text = "P7\nWIDTH \(header.width)\nHEIGHT \(header.height)\nDEPTH 4\nMAXVAL \(maxval)\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
        let bytes = Array(text.utf8)
        if fwrite(bytes, 1, bytes.count, file) != bytes.count { failed = true }
        row = [UInt8](repeating: 0, count: header.width * 4 * format.bytesPerSample)
    }

    mutating func consume(_ pixels: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
        guard let file else { return }
        let sampleBytes = format.bytesPerSample
        let channels = format.channels
        let width = placement.width
        guard let source = pixels.baseAddress, pixels.count >= width * channels * sampleBytes else {
            failed = true
            return
        }
        row.withUnsafeMutableBufferPointer { out in
            let target = out.baseAddress!
            if channels == 4 {
                target.update(from: source, count: width * 4 * sampleBytes)
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
        let count = width * 4 * sampleBytes
        if fwrite(row, 1, count, file) != count { failed = true }
    }

    /// Closes the file; false if any write failed.
    @discardableResult
    mutating func close() -> Bool {
        guard let file else { return false }
        let closed = fclose(file) == 0
        self.file = nil
        return closed && !failed
    }
}
