@_spi(Codec) import PareCore

/// The first frame placed on its canvas (GIF89a §20: the image descriptor's left and top
/// position the frame on the logical screen), one output row at a time: indices through
/// `ColorLookup` into RGB or RGBA, the canvas around the frame in the fill colour.
///
/// The output row is filled with the fill colour once; each frame row then overwrites only
/// its own span, so the columns left and right of the frame are never written again. A
/// second row, all fill, serves the canvas rows above and below the frame.
struct CanvasComposition {
    let lookup: ColorLookup
    let bytesPerPixel: Int
    let frameLeft: Int, frameWidth: Int
    let row: LedgerBuffer<UInt8>
    let fillRow: LedgerBuffer<UInt8>

    init(lookup: ColorLookup, format: PixelFormat, canvasWidth: Int, frameLeft: Int, frameWidth: Int,
         ledger: MemoryLedger) throws(CoreError) {
        self.lookup = lookup
        bytesPerPixel = format.bytesPerPixel
        self.frameLeft = frameLeft
        self.frameWidth = frameWidth
        let rowBytes = canvasWidth * bytesPerPixel
        row = try ledger.allocate(UInt8.self, count: rowBytes, initialValue: 0)
        fillRow = try ledger.allocate(UInt8.self, count: rowBytes, initialValue: 0)
        let fill = 4 * lookup.fillIndex
        for x in 0 ..< canvasWidth {
            for c in 0 ..< bytesPerPixel {
                fillRow[x * bytesPerPixel + c] = lookup.rgba[fill + c]
            }
        }
        // SAFETY: both buffers were allocated with rowBytes elements just above.
        row.baseAddress.update(from: fillRow.baseAddress, count: rowBytes)
    }

    /// The fill row, for canvas rows outside the frame.
    var fill: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(fillRow.buffer) }

    /// The canvas row holding frame row `indices` (`frameWidth` indices).
    func compose(_ indices: UnsafePointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        lookup.rgba.withUnsafeBufferPointer { table in
            let target = row.baseAddress + frameLeft * bytesPerPixel
            // SAFETY: the canvas is at least frameLeft + frameWidth wide (GIFDecoder.init
            // grows it to hold the frame), an index is below 256 and the table has 256 × 4 bytes.
            if bytesPerPixel == 4 {
                for i in 0 ..< frameWidth {
                    let entry = Int(indices[i]) << 2
                    target[4 * i] = table[entry]
                    target[4 * i + 1] = table[entry + 1]
                    target[4 * i + 2] = table[entry + 2]
                    target[4 * i + 3] = table[entry + 3]
                }
            } else {
                for i in 0 ..< frameWidth {
                    let entry = Int(indices[i]) << 2
                    target[3 * i] = table[entry]
                    target[3 * i + 1] = table[entry + 1]
                    target[3 * i + 2] = table[entry + 2]
                }
            }
        }
        return UnsafeBufferPointer(row.buffer)
    }
}
