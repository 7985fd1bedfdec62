import PareCore
import PareJPEG

/// JPEG compression (TIFF Technical Note 2, Compression 7): each strip or tile is a whole
/// JPEG interchange stream, or an abbreviated one whose quantisation and Huffman tables
/// are in the JPEGTables tag (itself a stream of tables between SOI and EOI). The tables are
/// put in front of the segment's stream and PareJPEG decodes it: YCbCr subsampling and the
/// conversion to RGB are the JPEG decoder's, as libtiff leaves them to libjpeg.
enum JPEGSegment {
    /// Writes the segment's decoded samples into `output` as rows of `rowBytes` bytes;
    /// returns the bytes of the rows written, `damage` when the stream ends short or is refused.
    static func decode(_ input: UnsafeRawBufferPointer, tables: [UInt8]?, cmyk: Bool, width: Int, rowBytes: Int,
                       into output: UnsafeMutableRawBufferPointer, ledger: MemoryLedger) -> Decompressed {
        var stream: [UInt8] = []
        // Tables stream: SOI, tables, EOI; the EOI is dropped and the segment's SOI too.
        if let tables, tables.count >= 4, input.count >= 2, input[0] == 0xFF, input[1] == 0xD8 {
            stream.reserveCapacity(tables.count + input.count)
            stream.append(contentsOf: tables[0 ..< tables.count - 2])
            stream.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[2...]))
        } else {
            stream.append(contentsOf: input)
        }
        var options = JPEGOptions()
        options.cmykSamples = cmyk
        var sink = SegmentSink(output: output, rowBytes: rowBytes)
        do {
            var decoder = try JPEGDecoder(source: MemoryByteSource(stream), ledger: ledger, options: options)
            // A stream larger than its strip or tile would be decoded only to be clipped: a
            // small file could cost a 2^28-pixel decode per segment.
            let rows = output.count / max(1, rowBytes)
            guard decoder.info.width <= width, decoder.info.height <= rows else {
                return Decompressed(produced: 0, damage: .refused(
                    "JPEG stream of \(decoder.info.width)x\(decoder.info.height) in a \(width)x\(rows) strip or tile"))
            }
            try decoder.decode(scale: .full, into: &sink)
        } catch {
            return Decompressed(produced: sink.rowsWritten * rowBytes, damage: .refused(error.description))
        }
        let produced = sink.rowsWritten * rowBytes
        return Decompressed(produced: produced, damage: produced < output.count ? .ended : nil)
    }
}

/// Receives a segment's JPEG rows and copies them into the band, clipped to the segment.
struct SegmentSink: RowSink {
    let output: UnsafeMutableRawBufferPointer
    let rowBytes: Int
    var rowsWritten = 0

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        // SAFETY: the copy is min(row.count, rowBytes) bytes at start, start + rowBytes ≤ output.count.
        let start = placement.y * rowBytes
        guard placement.y >= 0, start + rowBytes <= output.count, let source = row.baseAddress else { return }
        let n = min(row.count, rowBytes)
        (output.baseAddress! + start).copyMemory(from: source, byteCount: n)
        rowsWritten = max(rowsWritten, placement.y + 1)
    }
}
