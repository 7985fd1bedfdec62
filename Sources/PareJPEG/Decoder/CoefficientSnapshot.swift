@_spi(Codec) import PareCore

/// The quantised DCT coefficients of a frame, for `pare explain`: the DC coefficient of every
/// block, all 64 coefficients of the blocks asked for, and the quantisers each component was
/// decoded with. What a reader learning T.81 wants to see between the entropy decoder and the
/// inverse DCT, which the streaming decoders never keep.
@_spi(Explain)
public struct JPEGCoefficientSnapshot: Sendable {
    public struct Component: Sendable {
        /// Ci, the frame's component identifier.
        public let id: Int
        /// Hi and Vi.
        public let horizontal: Int
        public let vertical: Int
        /// The component's own samples (T.81 A.1.1: ceil(X·Hi/Hmax) × ceil(Y·Vi/Vmax)).
        public let width: Int
        public let height: Int
        /// Its blocks, ceil(width/8) × ceil(height/8), in raster order (T.81 A.2.2).
        public let blocksWide: Int
        public let blocksHigh: Int
        /// Q[natural index], as latched at the component's first scan.
        public let quantizers: [Int32]
        /// The quantised DC coefficient of every block, raster order.
        public let dc: [Int16]
        /// Which blocks kept all 64 coefficients: every one, or those listed (raster indices,
        /// ascending, in `full`'s order).
        let selection: BlockSelection
        /// 64 quantised coefficients, natural order, per kept block.
        let full: [Int16]

        /// The 64 quantised coefficients of block (`row`, `column`) in natural order, nil when
        /// only its DC coefficient was kept.
        public func coefficients(row: Int, column: Int) -> [Int16]? {
            guard row >= 0, column >= 0, row < blocksHigh, column < blocksWide else { return nil }
            guard let slot = selection.slot(of: row * blocksWide + column) else { return nil }
            return Array(full[slot * 64 ..< slot * 64 + 64])
        }

        /// The 8×8 samples the decoder's inverse DCT (T.81 A.3.3, with F.2.1.5's dequantisation)
        /// makes of those coefficients, row by row.
        public func samples(row: Int, column: Int) -> [UInt8]? {
            guard let block = coefficients(row: row, column: column) else { return nil }
            return Self.transform(block, quantizers)
        }

        static func transform(_ block: [Int16], _ quantizers: [Int32]) -> [UInt8] {
            var output = [UInt8](repeating: 0, count: 64)
            block.withUnsafeBufferPointer { c in
                quantizers.withUnsafeBufferPointer { q in
                    output.withUnsafeMutableBufferPointer { out in
                        // SAFETY: 64 coefficients, 64 quantisers and 64 outputs at stride 8,
                        // all allocated just above.
                        InverseDCT.transform8(c.baseAddress!, q.baseAddress!, output: out.baseAddress!, stride: 8,
                                              firstRowOnly: false)
                    }
                }
            }
            return output
        }

        /// The component's plane as the decoder stores it before upsampling: at full
        /// resolution (`width` × `height`) when every block was kept, else one sample per
        /// block (its DC term: the plane at 1/8).
        public func plane() -> (width: Int, height: Int, samples: [UInt8]) {
            guard case .all = selection else {
                var samples = [UInt8](repeating: 0, count: dc.count)
                for i in 0 ..< dc.count { samples[i] = InverseDCT.dcSample(dc[i], quantizers[0], size: 1) }
                return (blocksWide, blocksHigh, samples)
            }
            var samples = [UInt8](repeating: 0, count: width * height)
            for row in 0 ..< blocksHigh {
                for column in 0 ..< blocksWide {
                    let slot = row * blocksWide + column
                    let block = Self.transform(Array(full[slot * 64 ..< slot * 64 + 64]), quantizers)
                    for y in 0 ..< 8 where row * 8 + y < height {
                        for x in 0 ..< 8 where column * 8 + x < width {
                            samples[(row * 8 + y) * width + column * 8 + x] = block[y * 8 + x]
                        }
                    }
                }
            }
            return (width, height, samples)
        }
    }

    public let components: [Component]
}

/// The blocks whose every coefficient a snapshot keeps: all, or a few listed, so that a
/// large frame costs two bytes a block (its DC term) and no more.
enum BlockSelection: Sendable {
    case all
    /// Raster block indices, ascending and distinct.
    case listed([Int])

    /// Where block `index`'s coefficients are, nil when it is not kept whole.
    func slot(of index: Int) -> Int? {
        switch self {
        case .all: return index
        case .listed(let indices):
            var low = 0, high = indices.count
            while low < high {
                let middle = (low + high) / 2
                if indices[middle] < index { low = middle + 1 } else { high = middle }
            }
            return low < indices.count && indices[low] == index ? low : nil
        }
    }
}

extension JPEGDecoder {
    /// Decodes every scan into coefficients instead of samples: sequential scans by the plain
    /// reader of T.81 F.2.2 (`PlainBlockReader`), progressive ones into the decoder's own
    /// `CoefficientStore` at full size. Keeps every block's 64 coefficients when `keepAll`
    /// and they fit `options.maxExactCoefficientBytes`, else those of the blocks listed in
    /// `chosen` (per component, raster indices) and DC for the rest. Memory: a progressive
    /// frame holds its whole store from the ledger, as a full-size decode does; the snapshot
    /// itself two bytes a block plus 128 per block kept whole.
    @_spi(Explain)
    public mutating func coefficientSnapshot(keepAll: Bool, chosen: [[Int]]) throws(JPEGError) -> JPEGCoefficientSnapshot {
        var log = startDecode()
        defer { finishDecode(log) }
        rewind(to: scanStart)
        var layouts: [(width: Int, height: Int, wide: Int, high: Int)] = []
        let single = frame.components.count == 1
        for component in frame.components {
            let hMax = single ? component.horizontal : frame.maxHorizontal
            let vMax = single ? component.vertical : frame.maxVertical
            let width = (frame.width * component.horizontal + hMax - 1) / hMax
            let height = (frame.height * component.vertical + vMax - 1) / vMax
            layouts.append((width, height, (width + 7) / 8, (height + 7) / 8))
        }
        // Every block whole only while that fits the budget of a progressive store kept exact.
        let totalBlocks = layouts.reduce(0) { $0 + $1.wide * $1.high }
        let keepAll = keepAll && totalBlocks <= options.maxExactCoefficientBytes / 128
        var keep: [BlockSelection] = []
        var keptCount: [Int] = []
        for (c, layout) in layouts.enumerated() {
            let blocks = layout.wide * layout.high
            if keepAll {
                keep.append(.all)
                keptCount.append(blocks)
            } else {
                var listed: [Int] = []
                for index in (c < chosen.count ? chosen[c] : []).sorted() where index >= 0 && index < blocks
                    && listed.last != index {
                    listed.append(index)
                }
                keep.append(.listed(listed))
                keptCount.append(listed.count)
            }
        }

        // Coefficients per component in raster order over its coded blocks, written by a
        // `visit` that both paths call once per block.
        var dc = layouts.map { [Int16](repeating: 0, count: $0.wide * $0.high) }
        var full = keptCount.map { [Int16](repeating: 0, count: $0 * 64) }
        var quantizers = [[Int32]](repeating: [Int32](repeating: 0, count: 64), count: frame.components.count)

        if frame.process == .progressive {
            let plan = try ScalePlan(frame: frame, scale: .full, offset: firstScan.offset)
            let store = try CoefficientStore(frame: frame, plan: plan, options: options, ledger: ledger)
            try decodeScans(into: store, log: &log)
            for (c, plane) in store.planes.enumerated() {
                for i in 0 ..< 64 { quantizers[c][i] = plane.quantizers[i] }
                let layout = layouts[c]
                for row in 0 ..< layout.high {
                    for column in 0 ..< layout.wide {
                        let block = plane.values.baseAddress + (row * plane.blocksWide + column) * plane.kept
                        let index = row * layout.wide + column
                        dc[c][index] = block[0]
                        guard let slot = keep[c].slot(of: index) else { continue }
                        for k in 0 ..< 64 { full[c][slot * 64 + plane.positions[k]] = block[k] }
                    }
                }
            }
        } else {
            var walk = startScanWalk()
            var latched = [Bool](repeating: false, count: frame.components.count)
            repeat {
                let header = walk.header
                for component in header.components where !latched[component.index] {
                    let tq = frame.components[component.index].quantizationTable
                    guard let q = walk.tables.quantization[tq] else {
                        throw .missingTable(kind: "quantization", id: tq, offset: header.offset)
                    }
                    for i in 0 ..< 64 { quantizers[component.index][i] = Int32(q.values[i]) }
                    latched[component.index] = true
                }
                var scan = try PlainBlockReader(header: header, number: walk.number, tables: walk.tables,
                                                restartInterval: walk.restartInterval, ledger: ledger, reader: reader)
                var block = [Int16](repeating: 0, count: 64)
                let interleaved = header.components.count > 1
                let mcuColumns = interleaved ? (frame.width + 8 * frame.maxHorizontal - 1) / (8 * frame.maxHorizontal)
                    : layouts[header.components[0].index].wide
                let mcuRows = interleaved ? (frame.height + 8 * frame.maxVertical - 1) / (8 * frame.maxVertical)
                    : layouts[header.components[0].index].high
                scanLoop: for mcuRow in 0 ..< mcuRows {
                    for mcu in 0 ..< mcuColumns {
                        guard try scan.startMCU(log: &log) else { break scanLoop }
                        for (u, component) in header.components.enumerated() {
                            let c = component.index
                            let h = interleaved ? frame.components[c].horizontal : 1
                            let v = interleaved ? frame.components[c].vertical : 1
                            for y in 0 ..< v {
                                for x in 0 ..< h {
                                    try scan.readBlock(unit: u, into: &block, log: &log)
                                    let row = mcuRow * v + y, column = mcu * h + x
                                    guard row < layouts[c].high, column < layouts[c].wide else { continue }
                                    let index = row * layouts[c].wide + column
                                    dc[c][index] = block[0]
                                    if let slot = keep[c].slot(of: index) {
                                        for k in 0 ..< 64 { full[c][slot * 64 + k] = block[k] }
                                    }
                                }
                            }
                        }
                    }
                }
                swap(&reader, &scan.reader)
            } while try advance(&walk, log: &log)
        }
        var components: [JPEGCoefficientSnapshot.Component] = []
        for (c, info) in frame.components.enumerated() {
            let layout = layouts[c]
            components.append(.init(id: info.id, horizontal: info.horizontal, vertical: info.vertical,
                                    width: layout.width, height: layout.height, blocksWide: layout.wide,
                                    blocksHigh: layout.high, quantizers: quantizers[c], dc: dc[c], selection: keep[c],
                                    full: full[c]))
        }
        return JPEGCoefficientSnapshot(components: components)
    }
}

/// The plain reading of a sequential scan's blocks (T.81 F.2.2.1 for the DC difference,
/// F.2.2.2 for the AC run/size pairs, Figures F.12–F.14), one coefficient at a time into a
/// natural-order block, with restart intervals as `ScanDecoder` handles them. The teaching
/// text beside `ScanDecoder.decodeBlock`, which fuses the same steps with the IDCT.
struct PlainBlockReader {
    var reader: BitReader
    /// The restart countdown and the state of data that ran out, as `ScanDecoder` keeps them.
    var progress: ScanProgress
    /// Owns the tables `dc` and `ac` point into.
    let huffman: HuffmanTableCache
    let dc: [HuffmanPointers]
    let ac: [HuffmanPointers]
    var predictors: [Int32]

    init(header: ScanHeader, number: Int, tables: TableSet, restartInterval: Int, ledger: MemoryLedger,
         reader: BitReader) throws(JPEGError) {
        var huffman = HuffmanTableCache(fastPath: true)
        var dc: [HuffmanPointers] = [], ac: [HuffmanPointers] = []
        for component in header.components {
            dc.append(try huffman.pointers(0, component.dcTable, skips: false, tables: tables, ledger: ledger, offset: header.offset))
            ac.append(try huffman.pointers(1, component.acTable, skips: false, tables: tables, ledger: ledger, offset: header.offset))
        }
        self.huffman = huffman
        self.dc = dc
        self.ac = ac
        self.reader = reader
        predictors = [Int32](repeating: 0, count: header.components.count)
        progress = ScanProgress(scanNumber: number, restartInterval: restartInterval)
    }

    /// Restart handling before an MCU (T.81 E.2.4; the DC predictors start again at 0,
    /// F.2.1.3.1). False once the data has ended for good.
    mutating func startMCU(log: inout WarningLog) throws(JPEGError) -> Bool {
        if try progress.startMCU(&reader, log: &log) {
            for i in predictors.indices { predictors[i] = 0 }
        }
        return !progress.insufficient || (progress.restartInterval > 0 && reader.marker.map(Marker.isRestart) == true)
    }

    /// One block's quantised coefficients in natural order; all zero once the data is spent.
    mutating func readBlock(unit: Int, into block: inout [Int16], log: inout WarningLog) throws(JPEGError) {
        for i in 0 ..< 64 { block[i] = 0 }
        guard !progress.insufficient else { return }
        let order = ZigZag.naturalOrder
        try reader.ensure(32)
        let category = reader.decode(dc[unit]) ?? 0
        let difference = category == 0 ? 0 : reader.receiveExtend(category)
        predictors[unit] = predictors[unit] &+ Int32(truncatingIfNeeded: difference)
        block[0] = Int16(truncatingIfNeeded: predictors[unit])
        var k = 1
        while k < 64 {
            try reader.ensure(32)
            let rs = reader.decode(ac[unit]) ?? 0
            let run = rs >> 4, size = rs & 15
            if size == 0 {
                if run != 15 { break }
                k += 16
                continue
            }
            k += run
            let value = reader.receiveExtend(size)
            // A run past the end lands on coefficient 63, as in libjpeg.
            block[order[min(k, 63)]] = Int16(truncatingIfNeeded: value)
            k += 1
        }
    }
}

extension JPEGHuffmanRecord {
    /// The canonical codes of the table (T.81 Annex C, Figures C.1 and C.2): codes of each
    /// length count up from the last code of the length before, shifted left by one. One
    /// (length, code) per symbol, in HUFFVAL order.
    @_spi(Explain)
    public var canonicalCodes: [(length: Int, code: Int)] {
        var codes: [(length: Int, code: Int)] = []
        var code = 0
        for length in 1 ... 16 {
            for _ in 0 ..< (length - 1 < counts.count ? counts[length - 1] : 0) {
                codes.append((length, code))
                code += 1
            }
            code <<= 1
        }
        return codes
    }
}
