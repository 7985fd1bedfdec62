import PareCore
import PareGIF
import TestSupport

/// One line of a folder's `expected.txt` (written by Fixtures/make-gif-fixtures.py from
/// Pillow's `Image.open(f).convert("RGBA")` on frame 0).
struct ExpectedGIF {
    var name: String
    var width: Int
    var height: Int
    var frames: Int
    var loop: Int?
    var transparent: Bool
    var digest: UInt64

    static func read(_ folder: String) -> [ExpectedGIF] {
        guard let bytes = FileSystem.read(folder + "/expected.txt") else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ").map(String.init)
            guard f.count == 7, let w = Int(f[1]), let h = Int(f[2]), let n = Int(f[3]), let loop = Int(f[4]),
                  let digest = UInt64(f[6], radix: 16) else { return nil }
            return ExpectedGIF(name: f[0], width: w, height: h, frames: n, loop: loop < 0 ? nil : loop,
                               transparent: f[5] == "1", digest: digest)
        }
    }
}

/// The image's pixels as RGBA (alpha 255 added to RGB).
func rgbaPixels(_ image: Image) -> [UInt8] {
    if image.format == .rgba8 { return image.pixels }
    var out: [UInt8] = []
    out.reserveCapacity(image.width * image.height * 4)
    for y in 0 ..< image.height {
        let row = image.row(y)
        for x in 0 ..< image.width {
            out.append(row[3 * x])
            out.append(row[3 * x + 1])
            out.append(row[3 * x + 2])
            out.append(255)
        }
    }
    return out
}

var gifFixtures: String { Corpus.fixtures + "/gif" }
var gifCorpus: String { Corpus.made("gif") ?? "" }

/// A sink that records each row's y and keeps nothing.
struct RowOrderSink: RowSink {
    var header: RowStreamHeader?
    var rows: [Int] = []

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        self.header = header
    }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        rows.append(placement.y)
    }
}

/// A byte source that counts the bytes it copies out.
final class CountingSource: ByteSource {
    let bytes: [UInt8]
    var copied = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var count: Int { bytes.count }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(CoreError) -> Int {
        let n = try MemoryByteSource(bytes).read(into: buffer, at: offset)
        copied += n
        return n
    }
}

/// Hand-made GIFs for the malformed-input tests: a header, a 4-entry global table, then `blocks`.
func handmadeGIF(width: Int = 4, height: Int = 2, blocks: [UInt8], trailer: Bool = true) -> [UInt8] {
    var out: [UInt8] = Array("GIF89a".utf8)
    out += [UInt8(width & 255), UInt8(width >> 8), UInt8(height & 255), UInt8(height >> 8), 0x81, 0, 0]
    out += [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]
    out += blocks
    if trailer { out.append(0x3B) }
    return out
}

/// An image descriptor at (0, 0) of `width` × `height`, code size `codeSize`, then `data`
/// in one sub-block and the terminator.
func imageBlock(width: Int = 4, height: Int = 2, codeSize: UInt8 = 2, data: [UInt8], interlaced: Bool = false) -> [UInt8] {
    var out: [UInt8] = [0x2C, 0, 0, 0, 0, UInt8(width & 255), UInt8(width >> 8), UInt8(height & 255),
                        UInt8(height >> 8), interlaced ? 0x40 : 0, codeSize]
    var rest = data[...]
    while !rest.isEmpty {
        let chunk = rest.prefix(255)
        out.append(UInt8(chunk.count))
        out += chunk
        rest = rest.dropFirst(chunk.count)
    }
    out.append(0)
    return out
}

/// Packs codes LSB first, each `width` bits (GIF89a Appendix F), the widths given per code.
func packCodes(_ codes: [(code: Int, width: Int)]) -> [UInt8] {
    var out: [UInt8] = []
    var acc = 0, bits = 0
    for (code, width) in codes {
        acc |= code << bits
        bits += width
        while bits >= 8 {
            out.append(UInt8(acc & 255))
            acc >>= 8
            bits -= 8
        }
    }
    if bits > 0 { out.append(UInt8(acc & 255)) }
    return out
}
