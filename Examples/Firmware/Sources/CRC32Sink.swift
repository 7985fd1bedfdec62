import PareCore

/// CRC-32 with zlib's polynomial (reflected 0xEDB88320, initial and final XOR 0xFFFFFFFF,
/// ISO 3309 / ITU-T V.42), four bits at a time from a 16-entry table: 64 bytes of table
/// instead of the usual 1 KiB, which matters more here than speed.
struct CRC32 {
    private static let nibbles: [UInt32] = [
        0x0000_0000, 0x1DB7_1064, 0x3B6E_20C8, 0x26D9_30AC, 0x76DC_4190, 0x6B6B_51F4, 0x4DB2_6158, 0x5005_713C,
        0xEDB8_8320, 0xF00F_9344, 0xD6D6_A3E8, 0xCB61_B38C, 0x9B64_C2B0, 0x86D3_D2D4, 0xA00A_E278, 0xBDBD_F21C,
    ]
    private(set) var state: UInt32 = 0xFFFF_FFFF

    mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        var crc = state
        Self.nibbles.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc ^= UInt32(byte)
                crc = (crc >> 4) ^ table[Int(crc & 0xF)]
                crc = (crc >> 4) ^ table[Int(crc & 0xF)]
            }
        }
        state = crc
    }

    var value: UInt32 { state ^ 0xFFFF_FFFF }
}

/// Takes the decoder's rows and keeps only their CRC: the same bytes `pare decode -o x.ppm`
/// writes after the PPM header (width × 3 bytes a row for RGB, width for gray), so the board
/// and the host can be compared without moving the image.
struct CRC32Sink: RowSink {
    var crc = CRC32()
    var header: RowStreamHeader?
    var rows = 0
    private var rowBytes = 0

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        self.header = header
        rowBytes = header.width * header.format.bytesPerPixel
    }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        crc.update(UnsafeBufferPointer(rebasing: row.prefix(rowBytes)))
        rows += 1
    }
}
