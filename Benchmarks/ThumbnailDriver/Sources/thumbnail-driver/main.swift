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
    fail("usage: thumbnail-driver IN SIZE OUT.png|OUT.ppm", status: 2)
}
/// Binary Netpbm (P5 gray, P6 RGB) of an 8-bit image without alpha: what `pare thumbnail
/// -o OUT.ppm` writes, with no encoding cost to count.
func netpbm(_ image: Image) -> [UInt8]? {
    guard image.format == .gray8 || image.format == .rgb8 else { return nil }
    let rowBytes = image.width * image.format.bytesPerPixel
    var bytes = Array("\(image.format == .gray8 ? "P5" : "P6")\n\(image.width) \(image.height)\n255\n".utf8)
    let pixels = image.pixels
    for y in 0 ..< image.height { bytes += pixels[y * image.rowStride ..< y * image.rowStride + rowBytes] }
    return bytes
}
let encoded: [UInt8]
do {
    let thumbnail = try ImageSource(path: arguments[1]).thumbnail(options: ThumbnailOptions(maxPixelSize: size))
    if arguments[3].hasSuffix(".ppm"), let bytes = netpbm(thumbnail.image) {
        encoded = bytes
    } else {
        encoded = try PNGEncoder().encode(thumbnail.image)
    }
    print("source=\(thumbnail.source.name) ledgerPeakBytes=\(thumbnail.ledgerPeakBytes)")
} catch {
    fail("thumbnail-driver: \(arguments[1]): \(error)")
}
guard let file = fopen(arguments[3], "wb") else { fail("thumbnail-driver: cannot write \(arguments[3])") }
let written = encoded.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
guard fclose(file) == 0, written == encoded.count else { fail("thumbnail-driver: cannot write \(arguments[3])") }
