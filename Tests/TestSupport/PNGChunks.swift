import CZlib

/// A PNG chunk with its length and CRC, for building test files.
public func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typeBytes = Array(type.utf8)
    var out = be32(data.count) + typeBytes + data
    var crc = crc32(0, nil, 0)
    let body = typeBytes + data
    crc = crc32(crc, body, uInt(body.count))
    out += be32(Int(crc))
    return out
}

public func be32(_ value: Int) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
     UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
}

public let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

/// The chunks of a PNG file as (type, data) pairs.
public func chunks(of file: [UInt8]) -> [(String, [UInt8])] {
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
