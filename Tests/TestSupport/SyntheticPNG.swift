import CZlib

/// Writes PNGs (8-bit gray, RGB or RGBA; plain or Adam7-interlaced) for tests that need large
/// inputs, independently of ParePNG's own encoder so that the decoder is not checked
/// against itself. Rows use filter type 0; the pixel values follow a smooth pattern.
public enum SyntheticPNG {
    public static func make(width: Int, height: Int, channels: Int, interlaced: Bool) -> [UInt8] {
        func pixel(_ x: Int, _ y: Int, _ c: Int) -> UInt8 {
            UInt8(truncatingIfNeeded: (x * 3 + y * 2 + c * 85) ^ (x / 7))
        }
        var raw: [UInt8] = []
        if interlaced {
            // PNG spec 8.2, Adam7: (x origin, y origin, x step, y step) for each pass.
            let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            for (x0, y0, dx, dy) in passes where x0 < width && y0 < height {
                var y = y0
                while y < height {
                    raw.append(0)
                    var x = x0
                    while x < width {
                        for c in 0 ..< channels { raw.append(pixel(x, y, c)) }
                        x += dx
                    }
                    y += dy
                }
            }
        } else {
            raw.reserveCapacity(height * (width * channels + 1))
            for y in 0 ..< height {
                raw.append(0)
                for x in 0 ..< width {
                    for c in 0 ..< channels { raw.append(pixel(x, y, c)) }
                }
            }
        }
        var compressedLength = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedLength))
        _ = compress2(&compressed, &compressedLength, raw, uLong(raw.count), 1)
        compressed.removeLast(compressed.count - Int(compressedLength))

        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ data: [UInt8]) {
            let typeBytes = Array(type.utf8)
            out += be32(data.count) + typeBytes + data
            let crc = crc32(crc32(0, typeBytes, uInt(typeBytes.count)), data, uInt(data.count))
            out += be32(Int(crc))
        }
        let colorType: UInt8 = channels == 1 ? 0 : channels == 3 ? 2 : channels == 4 ? 6 : 4
        chunk("IHDR", be32(width) + be32(height) + [8, colorType, 0, 0, interlaced ? 1 : 0])
        // Split IDAT at an odd size to exercise decoders' chunk joining.
        var start = 0
        while start < compressed.count {
            let end = min(compressed.count, start + 65_521)
            chunk("IDAT", Array(compressed[start ..< end]))
            start = end
        }
        chunk("IEND", [])
        return out
    }
}
