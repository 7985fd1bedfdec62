import CZlib
import PareCore
import ParePNG
import PareTIFF
import TestSupport

/// Decoder options for the tests: ParePNG's zlib lent for Deflate, as the pipeline does.
func testOptions(strict: Bool = true) -> TIFFOptions {
    var options = TIFFOptions()
    options.inflater = .zlib
    options.strict = strict
    return options
}

/// What `tiff2rgba` makes of a decoded image: 8-bit RGBA, gray repeated, CMYK turned into
/// RGB as libtiff's RGBA interface does ((255 − K) × (255 − C) / 255, truncated),
/// unassociated RGB alpha premultiplied ((c × a + 127) / 255; libtiff leaves gray+alpha as
/// it is).
func oracleRGBA(_ image: Image, alpha: TIFFAlpha) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(image.width * image.height * 4)
    let bpp = image.format.bytesPerPixel
    let pixels = image.pixels
    for y in 0 ..< image.height {
        for x in 0 ..< image.width {
            let at = (y * image.width + x) * bpp
            let p = Array(pixels[at ..< at + bpp])
            switch image.format {
            case .gray8: out += [p[0], p[0], p[0], 255]
            case .grayAlpha8:
                let g = alpha == .associated ? premultiply(p[0], p[1]) : p[0]
                out += [g, g, g, p[1]]
            case .rgb8: out += [p[0], p[1], p[2], 255]
            case .rgba8: out += [premultiply(p[0], p[3]), premultiply(p[1], p[3]), premultiply(p[2], p[3]), p[3]]
            case .cmyk8:
                let k = 255 - Int(p[3])
                out += [UInt8(k * (255 - Int(p[0])) / 255), UInt8(k * (255 - Int(p[1])) / 255),
                        UInt8(k * (255 - Int(p[2])) / 255), 255]
            default: out += [0, 0, 0, 0]
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
    var m = 0
    for i in 0 ..< a.count { m = max(m, abs(Int(a[i]) - Int(b[i]))) }
    return m
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
