import PareCore

/// CCITT fax compression (TIFF 6.0 §10 Modified Huffman, §11 T.4 and T.6).
enum CCITTFax {
    static func decode(_ input: UnsafeRawBufferPointer, compression: Int, t4Options: Int, width: Int, rowBytes: Int,
                       into output: UnsafeMutableRawBufferPointer) -> Decompressed {
        Decompressed(produced: 0, damage: .refused("CCITT fax not implemented"))
    }
}
