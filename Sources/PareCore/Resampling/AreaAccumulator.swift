/// The interlaced path of `Resampler`: an area filter that takes pixels in any order.
///
/// Adam7 (PNG specification, 2nd edition, §8.2) sends seven passes, each a sub-lattice of the
/// image: rows out of order, pixels `xStep` apart from `xOrigin`. Rather than rebuild the full
/// image, every pixel is added at once, weighted by the fraction of each output cell it
/// covers (its overlap along x times its overlap along y, over the cell's area), into
/// output-sized accumulators, colour premultiplied by alpha. Each cell also sums the weights
/// it received, so that a stream cut short still yields a fair average of what arrived; a
/// complete stream has delivered every pixel once and each cell's weights sum to one, which is
/// exactly the `area` filter over the whole image.
///
/// Memory: 4·outputWidth·outputHeight·(c + 1) bytes for the cells, plus per input column its
/// first cell and at most M weights (M = 2 when shrinking), one input row of Floats and one
/// output row; nothing scales with the input's height.
struct AreaAccumulator {
    private let geometry: ResamplingGeometry
    private var inputWidth: Int { geometry.inputWidth }
    private var inputHeight: Int { geometry.inputHeight }
    private var outputWidth: Int { geometry.outputWidth }
    private var channels: Int { geometry.channels }

    // Column x feeds cells columnFirst[x] ..< columnFirst[x] + columnCount[x] with the
    // weights at columnWeights[x·columnStride ...]; built so that those cells are < outputWidth.
    private let columnFirst: LedgerBuffer<Int>
    private let columnCount: LedgerBuffer<Int>
    private let columnWeights: LedgerBuffer<Float>
    private let columnStride: Int

    /// outputWidth × outputHeight cells of `channels` sums and one weight sum.
    private let cells: LedgerBuffer<Float>
    private let inputRow: LedgerBuffer<Float>
    private let outputBytes: LedgerBuffer<UInt8>

    init(input header: RowStreamHeader, outputWidth: Int, outputHeight: Int, shift: ResamplingShift = .none,
         ledger: MemoryLedger) throws(CoreError) {
        geometry = ResamplingGeometry(input: header, outputWidth: outputWidth, outputHeight: outputHeight, filter: .area,
                                      shift: shift)
        let horizontal = geometry.horizontal, inputWidth = header.width, channels = geometry.channels

        columnStride = horizontal.maxOutputsPerInput
        columnFirst = try ledger.allocate(Int.self, count: inputWidth, initialValue: 0)
        columnCount = try ledger.allocate(Int.self, count: inputWidth, initialValue: 0)
        columnWeights = try ledger.allocate(Float.self, count: try checkedProduct(inputWidth, columnStride),
                                            initialValue: 0)
        for x in 0 ..< inputWidth {
            let range = horizontal.outputsCovering(x)
            let count = min(range.last - range.first + 1, columnStride)
            for k in 0 ..< count {
                columnWeights[x * columnStride + k] = Float(horizontal.weight(range.first + k, x) / horizontal.scale)
            }
            columnFirst[x] = range.first
            columnCount[x] = count
        }

        let cellCount = try checkedProduct(outputWidth, outputHeight)
        cells = try ledger.allocate(Float.self, count: try checkedProduct(cellCount, channels + 1), initialValue: 0)
        inputRow = try ledger.allocate(Float.self, count: try checkedProduct(inputWidth, channels), initialValue: 0)
        outputBytes = try ledger.allocate(UInt8.self, count: try checkedProduct(outputWidth, channels), initialValue: 0)
    }

    /// Adds one pass row. Pixels that fall outside the image, and rows with an impossible
    /// placement, are ignored.
    mutating func add(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) {
        let y = placement.y
        guard y >= 0, y < inputHeight, placement.xOrigin >= 0, placement.xOrigin < inputWidth,
              placement.xStep >= 1, let base = row.baseAddress else { return }
        let xStep = placement.xStep
        let inImage = (inputWidth - 1 - placement.xOrigin) / xStep + 1
        let pixels = min(placement.width, row.count / geometry.inputFormat.bytesPerPixel, inImage)
        guard pixels > 0 else { return }
        PremultipliedPixels.load(base, pixels: pixels, format: geometry.inputFormat, into: inputRow.baseAddress)

        let stride = channels + 1
        let vertical = geometry.vertical
        let rows = vertical.outputsCovering(y)
        for outputY in rows.first ... rows.last {
            let rowWeight = Float(vertical.weight(outputY, y) / vertical.scale)
            if rowWeight == 0 { continue }
            let cellRow = cells.baseAddress + outputY * outputWidth * stride
            var x = placement.xOrigin
            var pixel = inputRow.baseAddress
            for _ in 0 ..< pixels {
                let first = columnFirst[x]
                let weightsOfColumn = columnWeights.baseAddress + x * columnStride
                for k in 0 ..< columnCount[x] {
                    let w = rowWeight * weightsOfColumn[k]
                    let cell = cellRow + (first + k) * stride
                    for c in 0 ..< channels { cell[c] += w * pixel[c] }
                    cell[channels] += w
                }
                pixel += channels
                x += xStep
            }
        }
    }

    /// Output row `y`, normalised by the weight each cell received. Valid until the next call.
    func outputRow(_ y: Int) -> UnsafeBufferPointer<UInt8> {
        let stride = channels + 1
        let cellRow = cells.baseAddress + y * outputWidth * stride
        for x in 0 ..< outputWidth {
            let cell = cellRow + x * stride
            let weight = cell[channels]
            PremultipliedPixels.store(cell, scale: weight > 0 ? 1 / weight : 0, pixels: 1, channels: channels,
                                      into: outputBytes.baseAddress + x * channels)
        }
        return UnsafeBufferPointer(start: outputBytes.baseAddress, count: outputBytes.count)
    }
}
