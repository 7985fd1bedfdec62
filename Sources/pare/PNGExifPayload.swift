@_spi(CommandLine) import Pare
import PareCore
import PareWebP
/// The eXIf chunk of a PNG (PNG 3rd edition §11.3.6.1): its data, which is a TIFF block,
/// and the absolute offset of that data. Walks the chunk headers only; nil without eXIf.
func exifPayloadFromPNG(_ bytes: [UInt8]) -> (payload: [UInt8], offset: Int)? {
    guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
    var at = 8
    while bytes.count - at >= 12 {
        let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        guard length <= bytes.count - at - 12 else { return nil }
        let type = bytes[at + 4 ..< at + 8]
        if type.elementsEqual([0x65, 0x58, 0x49, 0x66]) {
            return (Array(bytes[at + 8 ..< at + 8 + length]), at + 8)
        }
        if type.elementsEqual([0x49, 0x45, 0x4E, 0x44]) { return nil }
        at += 12 + length
    }
    return nil
}

/// The payload of a WebP's EXIF chunk and where its TIFF header is, as the decoder's chunk
/// walk finds it; nil when there is none or the container cannot be read.
func webpExifChunk(_ bytes: [UInt8]) -> (payload: [UInt8], offset: Int)? {
    guard let decoder = try? WebPDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger()) else { return nil }
    return ImageFormat.webpEXIFBlock(of: decoder.info)
}
