import CZlib
import PareCore
import ParePNG
import TestSupport

/// A PNG chunk with its length and CRC, for building test files.
func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typeBytes = Array(type.utf8)
    var out = be32(data.count) + typeBytes + data
    var crc = crc32(0, nil, 0)
    let body = typeBytes + data
    crc = crc32(crc, body, uInt(body.count))
    out += be32(Int(crc))
    return out
}

func be32(_ value: Int) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
     UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
}

let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

func ihdr(width: Int, height: Int, depth: Int, colorType: Int, interlace: Int = 0) -> [UInt8] {
    chunk("IHDR", be32(width) + be32(height) + [UInt8(depth), UInt8(colorType), 0, 0, UInt8(interlace)])
}

/// zlib's compress2 of `data`.
func zlibCompress(_ data: [UInt8], level: Int32 = 9) -> [UInt8] {
    var length = compressBound(uLong(data.count))
    var out = [UInt8](repeating: 0, count: Int(length))
    let status = compress2(&out, &length, data, uLong(data.count), level)
    precondition(status == Z_OK)
    return Array(out[0 ..< Int(length)])
}

/// The chunks of a PNG file as (type, data) pairs.
func chunks(of file: [UInt8]) -> [(String, [UInt8])] {
    var result: [(String, [UInt8])] = []
    var offset = 8
    while offset + 12 <= file.count {
        let length = Int(file[offset]) << 24 | Int(file[offset + 1]) << 16 | Int(file[offset + 2]) << 8 | Int(file[offset + 3])
        let type = String(decoding: file[offset + 4 ..< offset + 8], as: UTF8.self)
        result.append((type, Array(file[offset + 8 ..< offset + 8 + length])))
        offset += 12 + length
    }
    return result
}

/// The same file with its image data re-split into IDAT chunks of `pieces` sizes (cycled).
func resplitIDAT(_ file: [UInt8], pieces: [Int]) -> [UInt8] {
    let all = chunks(of: file)
    let data = all.filter { $0.0 == "IDAT" }.flatMap { $0.1 }
    var out = pngSignature
    var wroteData = false
    for (type, body) in all {
        if type == "IDAT" {
            if wroteData { continue }
            wroteData = true
            var start = 0, k = 0
            while start < data.count {
                let n = min(pieces[k % pieces.count], data.count - start)
                out += chunk("IDAT", Array(data[start ..< start + n]))
                start += n
                k += 1
            }
            out += chunk("IDAT", [])
        } else {
            out += chunk(type, body)
        }
    }
    return out
}

/// A deterministic generator, so failures reproduce.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A sink that keeps nothing: for memory tests.
struct CountingSink: RowSink {
    var rows = 0
    var header: RowStreamHeader?
    var checksum: UInt64 = 0
    mutating func begin(_ header: RowStreamHeader) throws(CoreError) { self.header = header }
    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
        rows += 1
        checksum = checksum &* 31 &+ UInt64(row[row.count / 2])
    }
}

/// zlib's uncompress into exactly `expected` bytes, or nil.
func zlibInflate(_ data: [UInt8], expected: Int) -> [UInt8]? {
    var out = [UInt8](repeating: 0, count: expected)
    var length = uLongf(expected)
    guard uncompress(&out, &length, data, uLong(data.count)) == Z_OK, Int(length) == expected else { return nil }
    return out
}
