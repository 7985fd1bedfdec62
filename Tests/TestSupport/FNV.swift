/// 64-bit FNV-1a of `bytes`: the digest the fixture scripts (make-gif-fixtures.py,
/// make-raw-fixtures.py) write for oracle outputs, so that tests compare without the oracle.
public func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01B3
    }
    return hash
}
