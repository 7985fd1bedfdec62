import Glibc
import Pare
import ParePNG

func fail(_ message: String, status: Int32 = 1) -> Never {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let size = Int(arguments[2]), size > 0 else {
    fail("usage: thumbnail-driver IN SIZE OUT.png", status: 2)
}
let encoded: [UInt8]
do {
    let thumbnail = try ImageSource(path: arguments[1]).thumbnail(options: ThumbnailOptions(maxPixelSize: size))
    encoded = try PNGEncoder().encode(thumbnail.image)
    print("source=\(thumbnail.source.name) ledgerPeakBytes=\(thumbnail.ledgerPeakBytes)")
} catch {
    fail("thumbnail-driver: \(arguments[1]): \(error)")
}
guard let file = fopen(arguments[3], "wb") else { fail("thumbnail-driver: cannot write \(arguments[3])") }
let written = encoded.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
guard fclose(file) == 0, written == encoded.count else { fail("thumbnail-driver: cannot write \(arguments[3])") }
