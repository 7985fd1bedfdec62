import CZlib

/// `bytes` with the CRC of every whole chunk after the signature set to match its type and
/// data (PNG 3rd ed. §5.3), walking the length fields until one runs past the end: the PNG
/// targets decode fuzzed files this way, or mutations would stop at the first CRC check.
func withFixedCRCs(_ bytes: [UInt8]) -> [UInt8] {
    var fixed = bytes
    var position = 8
    while position + 12 <= fixed.count {
        let length = Int(fixed[position]) << 24 | Int(fixed[position + 1]) << 16
            | Int(fixed[position + 2]) << 8 | Int(fixed[position + 3])
        guard length <= fixed.count - position - 12 else { break }
        let crc = fixed.withUnsafeBufferPointer {
            crc32(0, $0.baseAddress! + position + 4, uInt(length + 4))
        }
        let at = position + 8 + length
        fixed[at] = UInt8(truncatingIfNeeded: crc >> 24)
        fixed[at + 1] = UInt8(truncatingIfNeeded: crc >> 16)
        fixed[at + 2] = UInt8(truncatingIfNeeded: crc >> 8)
        fixed[at + 3] = UInt8(truncatingIfNeeded: crc)
        position = at + 4
    }
    return fixed
}
