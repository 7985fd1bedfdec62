import PareCore
import PareWebP
import TestSupport

/// The decoded pixels as RGBA (opaque alpha added to RGB), as `dwebp -pam` writes them.
func rgbaBytes(_ image: Image) -> [UInt8] {
    let pixels = image.pixels
    if image.format == .rgba8 && image.rowStride == image.width * 4 { return pixels }
    var out = [UInt8](repeating: 255, count: image.width * image.height * 4)
    let channels = image.format.channels
    for y in 0 ..< image.height {
        for x in 0 ..< image.width {
            let s = y * image.rowStride + x * channels, d = (y * image.width + x) * 4
            for c in 0 ..< min(channels, 4) { out[d + c] = pixels[s + c] }
        }
    }
    return out
}

/// One line of the corpus's digest lists: SHA-256 of the RGBA pixels, size, file name.
struct ExpectedDigest {
    var digest: String
    var width: Int
    var height: Int
    var name: String
}

func readDigests(_ path: String) -> [ExpectedDigest] {
    guard let bytes = FileSystem.read(path) else { return [] }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
        let f = line.split(separator: " ")
        guard f.count == 4, let w = Int(f[1]), let h = Int(f[2]) else { return nil }
        return ExpectedDigest(digest: String(f[0]), width: w, height: h, name: String(f[3]))
    }
}

func decodeWebP(_ bytes: [UInt8], options: WebPOptions = WebPOptions(),
                ledger: MemoryLedger = MemoryLedger()) throws(WebPError) -> Image {
    try WebPDecoder.decodeImage(bytes, ledger: ledger, options: options)
}
