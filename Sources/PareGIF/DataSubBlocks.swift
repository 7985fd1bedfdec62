@_spi(Codec) import PareCore

/// GIF89a §15, Data Sub-blocks: every extension and every frame's image data is a chain of
/// sub-blocks, each a size byte (1…255) and that many bytes, ended by a size of 0 (the Block
/// Terminator). Walking a chain by its size bytes finds the next block without looking at
/// the data: how frames are counted without decoding them.
extension ByteStream {
    /// Skips a sub-block chain up to and including its terminator, reading only the size
    /// bytes. Returns the bytes the chain took. Throws `outOfBounds` when the file ends first.
    mutating func skipSubBlocks() throws(CoreError) -> Int {
        let start = position
        while true {
            let size = Int(try readUInt8())
            if size == 0 { return position - start }
            try skip(size)
        }
    }

    /// The data of the sub-blocks of a chain, joined, while they fit in `budget` bytes
    /// (nil when they do not: the rest is skipped), up to and including the terminator.
    mutating func collectSubBlocks(budget: Int) throws(CoreError) -> [UInt8]? {
        var data: [UInt8] = []
        var fits = true
        while true {
            let size = Int(try readUInt8())
            if size == 0 { return fits ? data : nil }
            if fits && data.count + size <= budget {
                data += try readBytes(size)
            } else {
                fits = false
                try skip(size)
            }
        }
    }

    /// The bytes of a chain as they lie in the file, size bytes included, up to but not
    /// including the terminator (which is consumed): how XMP's application extension is
    /// meant to be read (XMP Specification Part 3, §1.1.2: the packet is written raw, and
    /// its "magic trailer" makes any reader's walk of the size bytes end on the terminator).
    /// Nil when they do not fit in `budget` bytes (the rest is skipped).
    mutating func collectRawSubBlocks(budget: Int) throws(CoreError) -> [UInt8]? {
        var data: [UInt8] = []
        var fits = true
        while true {
            let size = Int(try readUInt8())
            if size == 0 { return fits ? data : nil }
            if fits && data.count + 1 + size <= budget {
                data.append(UInt8(size))
                data += try readBytes(size)
            } else {
                fits = false
                try skip(size)
            }
        }
    }
}
