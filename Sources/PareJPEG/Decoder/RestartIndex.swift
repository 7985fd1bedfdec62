@_spi(Codec) import PareCore

/// Where the restart intervals of a sequential scan begin, found without entropy decoding, so
/// that horizontal bands of the image can be decoded independently (and, by a caller that
/// has threads, at the same time).
///
/// T.81 E.1.4 and F.2.2.5: with a restart interval Ri (DRI, B.2.4.4) the encoder ends every
/// Ri MCUs with RSTm, m counting 0…7 modulo 8, byte-aligns the data and resets the DC
/// predictors; B.1.1.5 makes every 0xFF inside entropy-coded data either a stuffed 0xFF00,
/// a fill byte or a marker, so the markers are found byte by byte. Interval i therefore
/// starts at MCU i·Ri, right after the i-th RST marker, in a known state.
///
/// The index exists only when the scan is exactly as T.81 prescribes: one scan holding every
/// component, a baseline or extended-sequential frame, a non-zero Ri, exactly
/// ⌈MCUs / Ri⌉ − 1 RST markers in the order RST0, RST1, …, and the scan ending at a marker
/// that is not RSTn. Anything else (a marker missing or extra, out of order, data that ends
/// without a marker) gives no index, and the caller decodes serially, so that a damaged file
/// is repaired exactly as `decode(scale:into:)` repairs it.
///
/// The band API (`restartLayout`, `restartIndex`, `outputRows(ofBand:scale:)`, `decodeBand`)
/// serves a caller that runs bands on threads of its own (Pare's `ParallelJPEGDecoder`):
/// it is `@_spi(Bands)`, imported as `@_spi(Bands) import PareJPEG`.
@_spi(Bands) public struct RestartIndex {
    /// Ri: MCUs per restart interval.
    public let restartInterval: Int
    public let mcusPerLine: Int
    public let mcuRows: Int
    /// For each MCU row: the offset of the first entropy-coded byte of the restart interval
    /// that holds the row's first MCU.
    let rowStarts: LedgerBuffer<Int>

    /// The restart interval that holds the first MCU of `mcuRow`, and where its data starts.
    func start(ofRow mcuRow: Int) -> (interval: Int, offset: Int) {
        (mcuRow * mcusPerLine / restartInterval, rowStarts[mcuRow])
    }
}

extension JPEGDecoder {
    /// The MCU grid a restart index of this image would cover, from the headers alone: nil
    /// when the image cannot have one (it is not one interleaved sequential scan with a
    /// restart interval), so that a caller can prepare its bands before `restartIndex()`
    /// reads the scan.
    @_spi(Bands) public func restartLayout() throws(JPEGError) -> (mcusPerLine: Int, mcuRows: Int)? {
        guard info.restartInterval > 0, frame.process == .baseline || frame.process == .extendedSequential,
              firstScan.components.count == frame.components.count else { return nil }
        let plan = try ScalePlan(frame: frame, scale: .eighth, offset: firstScan.offset)
        let (total, overflow) = plan.mcusPerLine.multipliedReportingOverflow(by: plan.mcuRows)
        guard !overflow, total > 0 else { return nil }
        return (plan.mcusPerLine, plan.mcuRows)
    }

    /// Indexes the restart intervals of the first scan (see `RestartIndex`): nil when the
    /// image is not one interleaved sequential scan with restart markers in perfect order.
    /// Reads the whole scan once, byte by byte; allocates one `Int` per MCU row.
    @_spi(Bands) public mutating func restartIndex() throws(JPEGError) -> RestartIndex? {
        guard let (mcusPerLine, mcuRows) = try restartLayout() else { return nil }
        let ri = info.restartInterval, total = mcusPerLine * mcuRows
        let intervals = (total - 1) / ri + 1
        let rowStarts = try core { () throws(CoreError) in try ledger.allocate(Int.self, count: mcuRows, initialValue: 0) }
        // The decoder's own stream does the reading, so that its window stays consistent.
        reader.stream.seek(to: scanStart)
        var interval = 0, row = 0, start = scanStart
        while true {
            while row < mcuRows && row * mcusPerLine / ri == interval {
                rowStarts[row] = start
                row += 1
            }
            guard let marker = try reader.stream.nextEntropyMarker() else { return nil }
            guard Marker.isRestart(marker.code) else { break }
            guard interval + 1 < intervals, marker.code == Marker.rst0 + UInt8(interval & 7) else { return nil }
            interval += 1
            start = reader.stream.position
        }
        guard interval == intervals - 1, row == mcuRows else { return nil }
        return RestartIndex(restartInterval: ri, mcusPerLine: mcusPerLine, mcuRows: mcuRows, rowStarts: rowStarts)
    }

    /// The output rows at `scale` that the band of MCU rows `band` produces: the rows the
    /// streaming decode emits while it decodes those MCU rows. Consecutive bands give
    /// consecutive, disjoint row ranges that together cover the image.
    @_spi(Bands) public func outputRows(ofBand band: Range<Int>, scale: JPEGScale) throws(JPEGError) -> Range<Int> {
        let plan = try ScalePlan(frame: frame, scale: scale, offset: firstScan.offset)
        let first = plan.rowsCompleted(byMCURows: band.lowerBound)
        return first ..< max(first, plan.rowsCompleted(byMCURows: band.upperBound))
    }

    /// Decodes the band of MCU rows `band` at `scale` and hands `sink` exactly its output rows
    /// (`outputRows(ofBand:scale:)`, at their absolute y), byte for byte the rows
    /// `decode(scale:into:)` produces there. It does not call `sink.begin`: the caller owns
    /// the whole image's stream and sends the bands in order.
    ///
    /// A band's output rows are those the serial decode can complete once the band's last MCU
    /// row is in, from that row and the ones above, so nothing below the band is read. Above
    /// it, the vertical fancy upsamplers (T.81 leaves upsampling to the decoder; see
    /// `Upsampler`) make the band's first output row from the last chroma row of the MCU row
    /// above; only then is that row decoded too. The decode starts at the restart interval
    /// holding the first MCU row it needs (DC predictors are zero there, T.81 F.2.1.3.1) and
    /// decodes the MCUs before it without emitting anything. It runs the serial streaming
    /// loop, so memory is one MCU row per component, as for `decode`.
    /// `warnings` afterwards holds the header's and the band's repairs; a band that needed
    /// any repair should be thrown away for a serial decode, whose repairs depend on the
    /// order the whole scan is read in.
    ///
    /// `index` may be nil for a band that starts at the top, which starts where the scan does,
    /// so that its decode need not wait for the index.
    @_spi(Bands) public mutating func decodeBand<Sink: RowSink>(scale: JPEGScale, mcuRows band: Range<Int>, index: RestartIndex?,
                                                   into sink: inout Sink) throws(JPEGError) {
        var log = startDecode()
        defer { finishDecode(log) }
        let setup: BandSetup
        if let kept = bandSetup, kept.scale == scale {
            setup = kept
        } else {
            setup = try makeBandSetup(scale: scale)
            bandSetup = setup
        }
        let plan = setup.plan
        let band = band.clamped(to: 0 ..< plan.mcuRows)
        guard !band.isEmpty else { return }
        let above = plan.bandNeedsRowAbove(band.lowerBound) ? band.lowerBound - 1 : band.lowerBound
        let (interval, offset): (Int, Int)
        if let index {
            precondition(index.mcuRows == plan.mcuRows && index.mcusPerLine == plan.mcusPerLine
                         && index.restartInterval == info.restartInterval, "restart index of another image")
            (interval, offset) = index.start(ofRow: above)
        } else {
            precondition(above == 0, "a band below the top needs the restart index")
            (interval, offset) = (0, scanStart)
        }
        let firstMCU = interval * info.restartInterval

        var buffers = setup.buffers
        var output = setup.output
        output.nextRow = plan.rowsCompleted(byMCURows: band.lowerBound)
        output.endRow = plan.rowsCompleted(byMCURows: band.upperBound)
        rewind(to: offset)
        var scan = setup.scan
        scan.reader = reader
        scan.progress.nextRestart = interval & 7
        _ = try streamRows(&scan, rows: firstMCU / plan.mcusPerLine ..< band.upperBound, firstColumn: firstMCU % plan.mcusPerLine,
                           plan: plan, buffers: &buffers, output: &output, into: &sink, log: &log)
        if band.upperBound == plan.mcuRows { try scan.finish(log: &log) }
        reader = scan.reader
    }

    /// The buffers and the prepared scan (Huffman tables in decoding form, quantisers) that
    /// every band at `scale` starts from, made once per decoder: a worker that decodes many
    /// bands builds its tables once. Each band starts from a copy of `scan` as it was before
    /// its first MCU (predictors zero, T.81 F.2.1.3.1), and overwrites every buffer row it
    /// reads: the context row above its first MCU row is decoded first when the upsampler
    /// needs it.
    mutating func makeBandSetup(scale: JPEGScale) throws(JPEGError) -> BandSetup {
        let plan = try ScalePlan(frame: frame, scale: scale, offset: firstScan.offset)
        let stage = try makeRowStage(plan: plan)
        let scan = try makeScan(firstScan, number: 1, tables: tables, restartInterval: info.restartInterval,
                                plan: plan, buffers: stage.buffers, scratch: stage.scratch)
        return BandSetup(scale: scale, plan: plan, buffers: stage.buffers, output: stage.output, scan: scan)
    }
}

/// What `decodeBand` keeps from one band to the next at the same scale (see `makeBandSetup`).
/// Never changed once made, so it is kept by reference: a copy of the decoder copies one
/// reference instead of every table, buffer and pointer of the prepared scan.
final class BandSetup {
    let scale: JPEGScale
    let plan: ScalePlan
    let buffers: [ComponentBuffer]
    let output: OutputStage
    let scan: ScanDecoder

    init(scale: JPEGScale, plan: ScalePlan, buffers: [ComponentBuffer], output: OutputStage, scan: ScanDecoder) {
        self.scale = scale
        self.plan = plan
        self.buffers = buffers
        self.output = output
        self.scan = scan
    }
}
