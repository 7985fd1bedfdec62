import CZlib
import PareCore
import ParePNG
import PareTIFF
import TestSupport

/// Decoder options for the tests.
func testOptions(strict: Bool = true) -> TIFFOptions {
    var options = TIFFOptions()
    options.strict = strict
    return options
}

/// What `tiff2rgba` makes of a decoded image: 8-bit RGBA, gray repeated, CMYK turned into
/// RGB as libtiff's RGBA interface does ((255 − K) × (255 − C) / 255, truncated),
/// unassociated RGB alpha premultiplied ((c × a + 127) / 255; libtiff leaves gray+alpha as
/// it is).
func oracleRGBA(_ image: Image, alpha: TIFFAlpha) -> [UInt8] {
    let count = image.width * image.height
    var out = [UInt8](repeating: 255, count: count * 4)
    let pixels = image.pixels
    let bpp = image.format.bytesPerPixel
    pixels.withUnsafeBufferPointer { p in
        out.withUnsafeMutableBufferPointer { o in
            for i in 0 ..< count {
                let at = i * bpp, to = 4 * i
                switch image.format {
                case .gray8:
                    o[to] = p[at]; o[to + 1] = p[at]; o[to + 2] = p[at]
                case .grayAlpha8:
                    let g = alpha == .associated ? premultiply(p[at], p[at + 1]) : p[at]
                    o[to] = g; o[to + 1] = g; o[to + 2] = g; o[to + 3] = p[at + 1]
                case .rgb8:
                    o[to] = p[at]; o[to + 1] = p[at + 1]; o[to + 2] = p[at + 2]
                case .rgba8:
                    let a = p[at + 3]
                    o[to] = premultiply(p[at], a); o[to + 1] = premultiply(p[at + 1], a)
                    o[to + 2] = premultiply(p[at + 2], a); o[to + 3] = a
                case .cmyk8:
                    let k = 255 - Int(p[at + 3])
                    for c in 0 ..< 3 { o[to + c] = UInt8(k * (255 - Int(p[at + c])) / 255) }
                default:
                    o[to + 3] = 0
                }
            }
        }
    }
    return out
}

func premultiply(_ c: UInt8, _ a: UInt8) -> UInt8 {
    UInt8((Int(c) * Int(a) + 127) / 255)
}

/// The largest difference between two equally long sample arrays (Int.max when the lengths differ).
func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    guard a.count == b.count else { return Int.max }
    return a.withUnsafeBufferPointer { a in
        b.withUnsafeBufferPointer { b in
            var m = 0
            for i in 0 ..< a.count { m = max(m, abs(Int(a[i]) - Int(b[i]))) }
            return m
        }
    }
}

/// The oracle's RGBA pixels of `stem` (`<stem>.rgba.png` beside the TIFF).
func referenceRGBA(_ pngPath: String) throws -> [UInt8]? {
    guard let bytes = FileSystem.read(pngPath) else { return nil }
    var options = PNGOptions()
    options.output = .rgba8
    let image = try PNGDecoder.decodeImage(bytes, ledger: MemoryLedger(), options: options)
    return image.pixels
}

/// `bytes` as one zlib stream (level 9), or nil if zlib fails.
func zlibCompress(_ bytes: [UInt8]) -> [UInt8]? {
    var length = compressBound(uLong(bytes.count))
    var out = [UInt8](repeating: 0, count: Int(length))
    guard compress2(&out, &length, bytes, uLong(bytes.count), 9) == Z_OK else { return nil }
    out.removeLast(out.count - Int(length))
    return out
}
