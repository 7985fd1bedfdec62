import CZlib
import PareCore
import ParePNG
import TestSupport

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


/// A sink that keeps nothing: for memory tests.
struct CountingSink: RowSink {
    var rows = 0
    var header: RowStreamHeader?
    var checksum: UInt64 = 0
    mutating func begin(_ header: RowStreamHeader) throws(CoreError) { self.header = header }
    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
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
