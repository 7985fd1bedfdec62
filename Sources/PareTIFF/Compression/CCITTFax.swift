import PareCore

/// CCITT bilevel fax coding as TIFF uses it: Compression 2 (TIFF 6.0 §10: T.4's modified
/// Huffman runs, each row starting on a byte, no EOL codes), 3 (TIFF 6.0 §11, ITU-T T.4:
/// rows after EOL codes, one-dimensional, or two-dimensional when T4Options bit 0 is set,
/// a tag bit after each EOL choosing) and 4 (§11, ITU-T T.6: two-dimensional rows against
/// the previous row, the first against an all-white one, no EOLs). Rows are written as
/// packed bits, 1 for black, as libtiff does whatever the PhotometricInterpretation.
///
/// A row is kept as its changing elements (the columns where the colour changes, T.4
/// §4.2.1.3.1), which is also how the next row's 2-D codes refer to it.
struct CCITTFax {
    let compression: Int
    let twoDimensionalT4: Bool
    let width: Int

    /// A position in the data counted in bits, most significant bit of each byte first.
    struct BitReader {
        let data: UnsafeRawBufferPointer
        var position = 0

        var exhausted: Bool { position > data.count * 8 }

        /// The next `n` (at most 16) bits, zeros past the end.
        // SAFETY: each byte read is checked against data.count.
        func peek(_ n: Int) -> Int {
            let byte = position >> 3
            var word = 0
            for i in 0 ..< 3 {
                word = word << 8 | (byte + i < data.count ? Int(data[byte + i]) : 0)
            }
            return (word >> (24 - (position & 7) - n)) & ((1 << n) - 1)
        }

        mutating func skip(_ n: Int) { position += n }

        mutating func alignToByte() { position = (position + 7) & ~7 }
    }

    enum Failure: Error { case ended, invalid(MessageText) }

    static func decode(_ input: UnsafeRawBufferPointer, compression: Int, t4Options: Int, width: Int, rowBytes: Int,
                       into output: UnsafeMutableRawBufferPointer) -> Decompressed {
        let fax = CCITTFax(compression: compression, twoDimensionalT4: t4Options & 1 != 0, width: width)
        return fax.decode(input, rowBytes: rowBytes, into: output)
    }

    func decode(_ input: UnsafeRawBufferPointer, rowBytes: Int, into output: UnsafeMutableRawBufferPointer) -> Decompressed {
        var reader = BitReader(data: input)
        let rows = rowBytes > 0 ? output.count / rowBytes : 0
        // Changing elements of the reference row and of the row being decoded, each ended
        // by sentinels at `width` (so a search past the last change finds the row's end).
        var reference = [Int](repeating: width, count: 4)
        var current: [Int] = []
        current.reserveCapacity(width + 4)
        for row in 0 ..< rows {
            current.removeAll(keepingCapacity: true)
            var twoDimensional = compression == TIFFCompression.ccittT6
            if compression == TIFFCompression.ccittT4 {
                skipEOL(&reader)
                if twoDimensionalT4 {
                    twoDimensional = reader.peek(1) == 0
                    reader.skip(1)
                }
            }
            do throws(Failure) {
                if twoDimensional {
                    try decode2D(&reader, reference: reference, into: &current)
                } else {
                    try decode1D(&reader, into: &current)
                }
            } catch {
                switch error {
                case .ended: return Decompressed(produced: row * rowBytes, damage: .ended)
                case let .invalid(reason): return Decompressed(produced: row * rowBytes, damage: .refused(reason))
                }
            }
            if reader.exhausted { return Decompressed(produced: row * rowBytes, damage: .ended) }
            render(current, into: UnsafeMutableRawBufferPointer(rebasing: output[row * rowBytes ..< (row + 1) * rowBytes]))
            if compression == TIFFCompression.ccittRLE { reader.alignToByte() }
            swap(&reference, &current)
            reference.append(contentsOf: [width, width, width])
        }
        return Decompressed(produced: rows * rowBytes, damage: nil)
    }

    /// T.4 §4.1.2: an EOL is eleven or more zeros (fill bits before it, T4Options bit 2)
    /// and a one. Skipped when present; a row without one is read as it is.
    func skipEOL(_ reader: inout BitReader) {
        var zeros = 0
        while !reader.exhausted && reader.peek(1) == 0 && zeros < 4096 {
            zeros += 1
            reader.skip(1)
        }
        if zeros >= 11 {
            reader.skip(1)
        } else {
            reader.position -= zeros
        }
    }

    /// T.4 §4.1.1: alternating white and black runs from a white one, each make-up codes
    /// then a terminating code, until the row is full.
    func decode1D(_ reader: inout BitReader, into changes: inout [Int]) throws(Failure) {
        var a0 = 0, white = true
        while a0 < width {
            a0 = min(width, a0 + (try run(&reader, white: white)))
            try append(a0, to: &changes)
            white.toggle()
        }
    }

    /// One run's length: make-up codes add up until a terminating code (below 64) ends it.
    func run(_ reader: inout BitReader, white: Bool) throws(Failure) -> Int {
        let table = white ? CCITTCodeTable.white : CCITTCodeTable.black
        var total = 0
        while true {
            let entry = table.entries[reader.peek(CCITTCodeTable.lookupBits)]
            guard entry != 0 else {
                if reader.exhausted { throw .ended }
                throw .invalid(white ? "no white run code at bit \(reader.position)" : "no black run code at bit \(reader.position)")
            }
            reader.skip(Int(entry & 15))
            if reader.exhausted { throw .ended }
            let length = Int(entry >> 4) - 1
            total += length
            if length < 64 { return total }
            if total > width { throw .invalid("run past the row's end") }
        }
    }

    /// T.4 §4.2.1.3 (T.6 §2.2): each code places the next changing element a1 against b1,
    /// the first change on the reference row to the right of a0 of the colour opposite a0's:
    /// pass (to b2), horizontal (two runs coded as in 1-D), or vertical (a1 = b1 + d, |d| ≤ 3).
    func decode2D(_ reader: inout BitReader, reference: [Int], into changes: inout [Int]) throws(Failure) {
        var a0 = -1, white = true
        var index = 0
        while a0 < width {
            // b1: the first reference change right of a0 whose parity gives the opposite colour
            // (even entries turn white to black).
            let parity = white ? 0 : 1
            // a0 only moves right, but a vertical code may put it left of the last b1.
            while index > 0 && reference[index - 1] > a0 { index -= 1 }
            while index < reference.count && (reference[index] <= a0 || index & 1 != parity) { index += 1 }
            let b1 = index < reference.count ? reference[index] : width
            let b2 = index + 1 < reference.count ? reference[index + 1] : width
            let bits = reader.peek(7)
            if bits >> 6 == 1 {
                // V0
                reader.skip(1)
                a0 = try vertical(b1, a0: a0, changes: &changes)
                white.toggle()
            } else if bits >> 4 == 0b011 || bits >> 4 == 0b010 {
                reader.skip(3)
                a0 = try vertical(b1 + (bits >> 4 == 0b011 ? 1 : -1), a0: a0, changes: &changes)
                white.toggle()
            } else if bits >> 4 == 0b001 {
                reader.skip(3)
                let start = max(a0, 0)
                let a1 = min(width, start + (try run(&reader, white: white)))
                let a2 = min(width, a1 + (try run(&reader, white: !white)))
                try append(a1, to: &changes)
                try append(a2, to: &changes)
                a0 = a2
            } else if bits >> 3 == 0b0001 {
                reader.skip(4)
                // Pass: the colour runs on under b1..b2; no change on this row.
                a0 = b2
            } else if bits >> 1 == 0b000011 || bits >> 1 == 0b000010 {
                reader.skip(6)
                a0 = try vertical(b1 + (bits >> 1 == 0b000011 ? 2 : -2), a0: a0, changes: &changes)
                white.toggle()
            } else if bits == 0b0000011 || bits == 0b0000010 {
                reader.skip(7)
                a0 = try vertical(b1 + (bits == 0b0000011 ? 3 : -3), a0: a0, changes: &changes)
                white.toggle()
            } else {
                if reader.exhausted { throw .ended }
                throw .invalid(bits == 1 ? "2-D extension code (uncompressed mode) at bit \(reader.position)"
                                         : "no 2-D mode code at bit \(reader.position)")
            }
            if reader.exhausted { throw .ended }
        }
    }

    /// A vertical mode's changing element, kept within a0…width.
    private func vertical(_ a1: Int, a0: Int, changes: inout [Int]) throws(Failure) -> Int {
        let clamped = min(width, max(a1, a0, 0))
        try append(clamped, to: &changes)
        return clamped
    }

    /// Adds a changing element. A row has at most one per column (and the end); codes that
    /// keep changing colour without moving (zero runs, vertical codes left of a0) would
    /// otherwise grow the list with the data.
    private func append(_ change: Int, to changes: inout [Int]) throws(Failure) {
        guard changes.count <= width + 2 else { throw .invalid("more colour changes than pixels in a row") }
        changes.append(change)
    }

    /// Packs the row: black (1) from each odd-numbered change to the next.
    func render(_ changes: [Int], into row: UnsafeMutableRawBufferPointer) {
        // SAFETY: x < width and row.count = ⌈width / 8⌉ (the segment's row bytes), so x >> 3 < row.count.
        for i in 0 ..< row.count { row[i] = 0 }
        var i = 0
        var previous = 0
        while i < changes.count {
            let start = min(width, max(changes[i], previous))
            let end = i + 1 < changes.count ? min(width, max(changes[i + 1], start)) : width
            var x = start
            while x < end {
                row[x >> 3] |= UInt8(0x80 >> (x & 7))
                x += 1
            }
            previous = end
            i += 2
        }
    }
}
