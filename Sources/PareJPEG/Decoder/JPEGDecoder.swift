@_spi(Codec) import PareCore

/// A baseline and extended-sequential (8-bit Huffman) JPEG decoder, ITU-T T.81 Annexes B, C,
/// E and F, that streams rows into a `RowSink` at full size or at 1/2, 1/4 or 1/8 in the DCT
/// domain.
///
/// `init` reads the markers up to the first scan (T.81 B.2.1) and fails early on processes it
/// does not decode. `decode(scale:into:)` then runs the scans. A file with one interleaved
/// scan (almost every JPEG) is decoded one MCU row at a time: memory holds one MCU row of
/// samples per component plus one context row, whatever the height. A file whose components
/// come in separate scans (T.81 A.2.2) needs every component before the first row can be
/// made, so its planes are held whole (counted by the ledger like everything else).
///
/// Damage is repaired as libjpeg repairs it (see `JPEGWarning`) unless `options.strict`.
public struct JPEGDecoder<Source: ByteSource> {
    let ledger: MemoryLedger
    let options: JPEGOptions
    var reader: BitReader
    let frame: JPEGFrameRecord
    /// The tables in force when the first scan starts.
    let tables: TableSet
    let firstScan: ScanHeader
    /// The offset of the first byte of entropy-coded data.
    let scanStart: Int
    /// Markers up to the first SOS, counted against `options.maxSegments` (`MarkerReader`).
    let headerMarkers: Int
    public let info: JPEGInfo
    /// Repairs made so far: while reading the headers, then by each `decode`.
    public internal(set) var warnings: [JPEGWarning]
    /// Warnings past `options.maxWarnings`, counted but not kept.
    public internal(set) var droppedWarnings = 0
    let headerWarnings: [JPEGWarning]
    /// Header warnings past `options.maxWarnings`, which every `decode` counts again.
    let headerDroppedWarnings: Int
    /// Kept by `decodeBand` for the next band at the same scale.
    var bandSetup: BandSetup?
    /// Asked once per MCU row (and per block row of a one-component scan) by `decode` and
    /// `decodeBand`; when it says stop they throw `.core(.cancelled)`. Never, by default.
    public var cancellation = CancellationCheck()

    public init(source: Source, ledger: MemoryLedger, options: JPEGOptions = JPEGOptions()) throws(JPEGError) {
        // Made whole by one function and moved in: an initialiser that stores the fields one
        // by one ends with a copy of the whole decoder (its code as large as the struct).
        self = try Self.readHeaders(source: source, ledger: ledger, options: options)
    }

    /// Reads the markers up to the first SOS (T.81 B.2.1) into a decoder ready to decode.
    static func readHeaders(source: Source, ledger: MemoryLedger, options: JPEGOptions) throws(JPEGError) -> Self {
        let stream = try core { () throws(CoreError) in
            try ByteStream(source: source, ledger: ledger, windowSize: options.inputWindowBytes)
        }
        var headers = HeaderSegments(stream: stream, options: options)
        try headers.readStart()
        while headers.scan == nil { try headers.readSegment(options: options) }
        guard let frame = headers.frame, let scan = headers.scan else { throw .missingScan(offset: headers.stream.position) }
        let colorSpace = try headers.colorSpace(of: frame)
        let info = JPEGInfo(width: frame.width, height: frame.height, precision: frame.precision,
                            components: frame.components, process: frame.process, colorSpace: colorSpace,
                            restartInterval: headers.restartInterval, adobeTransform: headers.adobeTransform,
                            segments: headers.segments)
        return Self(ledger: ledger, options: options, stream: headers.stream, frame: frame, tables: headers.tables,
                    firstScan: scan, headerMarkers: headers.markers.markers, info: info, log: headers.log)
    }

    /// A decoder whose headers are read: its entropy-coded data starts at `stream.position`.
    init(ledger: MemoryLedger, options: JPEGOptions, stream: ByteStream, frame: JPEGFrameRecord,
         tables: TableSet, firstScan: ScanHeader, headerMarkers: Int, info: JPEGInfo, log: WarningLog) {
        self.ledger = ledger
        self.options = options
        self.frame = frame
        self.tables = tables
        self.firstScan = firstScan
        self.scanStart = stream.position
        self.reader = BitReader(stream: stream)
        self.info = info
        self.headerMarkers = headerMarkers
        self.headerWarnings = log.warnings
        self.warnings = log.warnings
        self.droppedWarnings = log.dropped
        self.headerDroppedWarnings = log.dropped
    }

    /// gray8 for one component, rgb8 for three or four; cmyk8 for four with
    /// `options.cmykSamples`.
    public var outputFormat: PixelFormat {
        switch frame.components.count {
        case 1: return .gray8
        #if !hasFeature(Embedded)
        // No colour profiles under Embedded Swift: ink amounts would have no one to read them.
        case 4 where options.cmykSamples: return .cmyk8
        #endif
        default: return .rgb8
        }
    }

    /// ceil(W·k/8) × ceil(H·k/8), as `djpeg -scale k/8`.
    public func outputSize(at scale: JPEGScale) -> (width: Int, height: Int) {
        ((info.width * scale.rawValue + 7) / 8, (info.height * scale.rawValue + 7) / 8)
    }

    /// How far into the input the last `decode` read: the offset just past the last byte it
    /// consumed. A progressive decode at a reduced scale stops once the coefficients it keeps
    /// are final, so this can be well short of the file's size. (The source itself is fetched
    /// in windows of `options.inputWindowBytes`, so up to that much more may have been copied
    /// from it.)
    public internal(set) var bytesRead = 0
    /// Progressive scans of the last `decode` passed over without entropy decoding, because
    /// they carry no coefficient the chosen scale keeps.
    public internal(set) var skippedScans = 0
    /// Markers met so far by the last `decode`, the headers' included, against
    /// `options.maxSegments` (`MarkerReader.markers`).
    var segmentCount = 0
    /// MCUs of the last sequential `decode` that were entropy decoded; the ones after the data
    /// ran out are not, they come out flat.
    var decodedMCUs = 0
    /// Output rows of the last `decode` sent as copies of a flat row once the data ran out.
    var repeatedRows = 0
    /// The block decoder of sequential scans: `automatic` in use; tests force the plain or
    /// the fast path (see `ScanDecoder.decodeRow`) and compare `coefficientDigest`.
    var entropyPath = EntropyPath.automatic
    /// With a forced `entropyPath`: a digest of every block the last `decode` entropy decoded.
    var coefficientDigest: UInt64 = 0
    /// How far into the scan's data the second thread of a split decode starts, in percent
    /// (`SplitScan`); tests move it.
    var splitPercent = 50
    /// MCUs between the second thread's snapshots (`SplitScan.snapshotInterval`); tests that
    /// measure where the decodes meet set 1.
    var splitSnapshotInterval = SplitScan.snapshotInterval
    /// Where the image's data ends, when the caller knows it (a Multi-Picture file's index
    /// gives its primary image's length): a split decode places its second thread between the
    /// scan's start and here instead of the input's end, which lies past a gain map or a
    /// preview. A hint only: a wrong one moves the split, never the rows.
    @_spi(Pipeline) public var dataEnd: Int?
    /// What the last split decode did, or nil when none ran (`SplitScan`).
    @_spi(Pipeline) public internal(set) var lastSplit: SplitScanReport?
    /// Progressive scans through the one loop the Embedded build runs for both kinds of scan
    /// (`ProgressiveScanDecoder.run`): tests set it on the host and compare the pixels.
    var sharedProgressiveLoop = false

    /// Decodes the image at `scale` into `sink`: `begin` with the output size and format, then
    /// every row once, top to bottom. May be called again (for another scale).
    public mutating func decode<Sink: RowSink>(scale: JPEGScale, into sink: inout Sink) throws(JPEGError) {
        var log = startFrameDecode()
        defer { finishDecode(log) }
        let plan = try ScalePlan(frame: frame, scale: scale, offset: firstScan.offset)
        let progressive = frame.process == .progressive
        // A progressive frame is reconstructed from its coefficient store one MCU row at a time.
        let streaming = progressive || firstScan.components.count == frame.components.count
        let stage = try makeRowStage(plan: plan, streaming: streaming)
        var buffers = stage.buffers, output = stage.output
        let store = progressive ? try CoefficientStore(frame: frame, plan: plan, options: options, ledger: ledger) : nil
        try beginRows(plan, into: &sink)
        try decodeFrame(store: store, streaming: streaming, plan: plan, buffers: &buffers, scratch: stage.scratch,
                        output: &output, into: &sink, log: &log)
    }

    /// Hands `sink` the output's size and puts the reader at the scan's first byte: what
    /// every decode of the whole frame does once its buffers are allocated.
    mutating func beginRows<Sink: RowSink>(_ plan: ScalePlan, into sink: inout Sink) throws(JPEGError) {
        let header = RowStreamHeader(width: plan.outputWidth, height: plan.outputHeight, format: outputFormat)
        try core { () throws(CoreError) in try sink.begin(header) }
        rewind(to: scanStart)
    }

    /// The scans of the frame, by its kind (see `decode`), into the output stage.
    @inline(never) // once per decode: one error path in `decode` instead of one per kind
    mutating func decodeFrame<Sink: RowSink>(store: CoefficientStore?, streaming: Bool, plan: ScalePlan,
                                             buffers: inout [ComponentBuffer], scratch: ScanScratch,
                                             output: inout OutputStage, into sink: inout Sink,
                                             log: inout WarningLog) throws(JPEGError) {
        if let store {
            try decodeScans(into: store, log: &log)
            repeatedRows = try reconstruct(store, plan: plan, buffers: &buffers, scratch: scratch, output: &output,
                                           into: &sink)
        } else if streaming {
            try decodeInterleaved(plan: plan, buffers: &buffers, scratch: scratch, output: &output, into: &sink,
                                  log: &log)
        } else {
            try decodeSeparateScans(plan: plan, buffers: &buffers, scratch: scratch, output: &output, into: &sink,
                                    log: &log)
        }
    }

    /// The scans of a frame whose one scan holds every component, decoded one MCU row at a
    /// time into the output stage.
    @inline(never) // once per decode: its locals' clean-up stays out of `decode`'s error paths
    mutating func decodeInterleaved<Sink: RowSink>(plan: ScalePlan, buffers: inout [ComponentBuffer],
                                                   scratch: ScanScratch, output: inout OutputStage,
                                                   into sink: inout Sink, log: inout WarningLog) throws(JPEGError) {
        var scan = try makeScan(firstScan, number: 1, tables: tables, restartInterval: info.restartInterval,
                                plan: plan, buffers: buffers, scratch: scratch)
        repeatedRows = try streamRows(&scan, rows: 0 ..< plan.mcuRows, firstColumn: 0, plan: plan,
                                      buffers: &buffers, output: &output, into: &sink, log: &log)
        try finishScan(&scan, log: &log)
    }

    /// The end of a decode of the frame's one scan, however many threads read it: the scan's
    /// end-of-data checks (`ScanDecoder.finish`), its counts kept, its reader handed back.
    mutating func finishScan(_ scan: inout ScanDecoder, log: inout WarningLog) throws(JPEGError) {
        try scan.finish(log: &log)
        decodedMCUs = scan.decodedMCUs
        coefficientDigest = scan.coefficientDigest
        swap(&reader, &scan.reader)
    }

    /// The scans of a frame whose components come in separate scans (T.81 A.2.2): each scan
    /// fills its components' whole planes, and the output is made once every scan is done.
    @inline(never) // once per decode, as `decodeInterleaved`
    mutating func decodeSeparateScans<Sink: RowSink>(plan: ScalePlan, buffers: inout [ComponentBuffer],
                                                     scratch: ScanScratch, output: inout OutputStage,
                                                     into sink: inout Sink, log: inout WarningLog) throws(JPEGError) {
        var walk = startScanWalk()
        repeat {
            try decodeSeparateScan(walk, plan: plan, buffers: buffers, scratch: scratch, log: &log)
            walk.noteCoded()
        } while try advance(&walk, log: &log)
        try walk.reportUncoded(frame: frame, offset: reader.stream.position, log: &log)
        try output.emit(buffers, availableThrough: nil, into: &sink)
    }

    /// One scan of `decodeSeparateScans`, the walk's current one, into its components' planes.
    @inline(never) // once per scan: its scan decoder is never live in the loop over the scans
    mutating func decodeSeparateScan(_ walk: ScanWalk, plan: ScalePlan, buffers: [ComponentBuffer],
                                     scratch: ScanScratch, log: inout WarningLog) throws(JPEGError) {
        let header = walk.header
        // Planes start mid-gray: once the data is spent, a scan over components no earlier
        // scan wrote has nothing left to change, and one over a component an earlier scan
        // wrote would only write zero blocks, mid-gray after the IDCT, over the rest of it.
        let fresh = walk.isFresh
        var scan = try makeScan(header, number: walk.number, tables: walk.tables,
                                restartInterval: walk.restartInterval, plan: plan, buffers: buffers, scratch: scratch)
        // A scan of one component is an MCU a block over the component's own blocks (T.81
        // A.2.2): its rows are block rows, as many as the component's samples need.
        var rows = plan.mcuRows, columns = plan.mcusPerLine
        let single = header.components.count == 1
        if single {
            let component = frame.components[header.components[0].index]
            let width = (frame.width * component.horizontal + frame.maxHorizontal - 1) / frame.maxHorizontal
            let height = (frame.height * component.vertical + frame.maxVertical - 1) / frame.maxVertical
            rows = (height + 7) / 8
            columns = (width + 7) / 8
        }
        for row in 0 ..< rows {
            try checkCancellation()
            for i in 0 ..< header.components.count {
                let p = plan.components[header.components[i].index]
                scan.units[i].rowStart = 1 + row * (single ? p.blockSize : p.rowsPerMCURow)
            }
            try scan.decodeRow(columns: columns, from: 0, log: &log)
            if scan.isSpent {
                if !fresh {
                    // The rows below this one, mid-gray at once rather than block by block:
                    // a 600-byte file can claim 16384×16384 and scan a component twice.
                    for i in 0 ..< header.components.count {
                        let c = header.components[i].index, p = plan.components[c]
                        let rowsPerRow = single ? p.blockSize : p.rowsPerMCURow
                        let first = min(1 + (row + 1) * rowsPerRow, p.totalRows + 1)
                        let end = min(1 + rows * rowsPerRow, p.totalRows + 1)
                        // SAFETY: the plane holds totalRows + 1 rows of `stride` bytes; first ≤ end ≤ that.
                        (buffers[c].storage.baseAddress + first * p.stride).update(repeating: 128,
                                                                                   count: (end - first) * p.stride)
                    }
                }
                break
            }
        }
        try scan.finish(log: &log)
        decodedMCUs += scan.decodedMCUs
        coefficientDigest = coefficientDigest &* 31 &+ scan.coefficientDigest
        swap(&reader, &scan.reader)
    }

    /// What every decode of the scans starts with: a warning log that holds the header's
    /// repairs, and the counts of one decode back at the header's.
    mutating func startDecode() -> WarningLog {
        skippedScans = 0
        segmentCount = headerMarkers
        return WarningLog(warnings: headerWarnings, dropped: headerDroppedWarnings, strict: options.strict,
                          limit: options.maxWarnings)
    }

    /// `startDecode` for a decode of the whole frame (`decode`, `decodePipelined`), which
    /// also sets its counts back to zero and drops a band decode's kept set-up.
    mutating func startFrameDecode() -> WarningLog {
        decodedMCUs = 0
        repeatedRows = 0
        coefficientDigest = 0
        bandSetup = nil
        return startDecode()
    }

    /// What every decode ends with, however it ends: its repairs and how far it read.
    @inline(never) // deferred: one call on each of the decode's exits instead of a copy
    mutating func finishDecode(_ log: WarningLog) {
        warnings = log.warnings
        droppedWarnings = log.dropped
        bytesRead = reader.stream.position
    }

    /// Puts the bit reader at `offset` of the entropy-coded data, with nothing buffered.
    mutating func rewind(to offset: Int) {
        reader.stream.seek(to: offset)
        reader.discardBits()
        reader.marker = nil
    }

    /// Decodes the MCU rows `rows` of a single interleaved scan, starting at `firstColumn` of
    /// the first, and after each row hands the output stage every output row it can now make.
    /// Each buffer keeps the previous MCU row's last sample row above the current one, the
    /// context the vertical upsamplers read.
    func streamRows<Sink: RowSink>(_ scan: inout ScanDecoder, rows: Range<Int>, firstColumn: Int, plan: ScalePlan,
                                   buffers: inout [ComponentBuffer], output: inout OutputStage, into sink: inout Sink,
                                   log: inout WarningLog) throws(JPEGError) -> Int {
        var column = firstColumn
        var flatRows = 0
        for mcuRow in rows {
            try checkCancellation()
            try scan.decodeRow(columns: plan.mcusPerLine, from: column, log: &log)
            column = 0
            let emitted = try output.emitMCURow(mcuRow, &buffers, into: &sink)
            // A header can claim far more MCUs than the data holds. Once the data is spent and
            // two MCU rows came out flat, the window (this MCU row and the context row from the
            // one before) is all mid-gray, so the rows just emitted are what every later row
            // would be: repeat one instead of decoding and converting the rest. (Only when the
            // rows run to the image's end; a band that runs out is redone serially anyway.)
            flatRows = scan.lastRowWasFlat ? flatRows + 1 : 0
            if rows.upperBound == plan.mcuRows && flatRows >= 2 && scan.isSpent && emitted {
                return try output.repeatLastRow(buffers, into: &sink)
            }
            output.keepContextRows(buffers)
        }
        return 0
    }

    /// Throws `.core(.cancelled)` when `cancellation` says the job should stop.
    func checkCancellation() throws(JPEGError) {
        if cancellation.isCancelled { throw .core(.cancelled) }
    }

    /// Reads the markers between scans (T.81 B.2.1: tables and DRI may change) up to the next
    /// SOS; nil at EOI or the end of the data.
    mutating func nextScan(tables: inout TableSet, restartInterval: inout Int,
                           log: inout WarningLog) throws(JPEGError) -> ScanHeader? {
        // The marker that ended the data was found by the bit reader; it counts like the rest.
        var markers = MarkerReader(maxMarkers: options.maxSegments, markersSoFar: segmentCount)
        defer { segmentCount = markers.markers }
        var pending = reader.marker.map { FoundMarker(code: $0, offset: reader.markerOffset, discarded: 0) }
        reader.marker = nil
        reader.discardBits()
        while true {
            let marker: FoundMarker
            if let p = pending {
                try markers.countMarker(p)
                marker = p
                pending = nil
            } else {
                guard let m = try markers.nextMarker(&reader.stream) else { return nil }
                if m.discarded > 0 {
                    try log.add(.extraneousBytes(count: m.discarded, marker: m.code, offset: m.offset))
                }
                marker = m
            }
            if marker.code == Marker.eoi { return nil }
            if Marker.isStandalone(marker.code) { continue }
            if JPEGProcess(marker: marker.code) != nil { return nil }
            let (bytes, _) = try MarkerReader.parameters(&reader.stream, of: marker,
                                                         keep: Marker.isApplication(marker.code) ? 0 : 65533)
            if marker.code == Marker.sos { return try ScanHeader(bytes, marker: marker, frame: frame) }
            if try tables.apply(marker: marker, bytes: bytes) { continue }
            if marker.code == Marker.dri { restartInterval = try MarkerParameters.restartInterval(bytes, marker: marker) }
        }
    }

    /// What every decode writes its samples through: a buffer per component (`makeBuffers`),
    /// the transforms' scratch and the output stage.
    struct RowStage {
        let buffers: [ComponentBuffer]
        let scratch: ScanScratch
        let output: OutputStage
    }

    /// The `RowStage` of a decode at `plan`, allocated in one order for every decode (the
    /// serial one, the two-thread ones, the restart bands), so that a ledger limit that one
    /// cannot meet fails the others at the same buffer.
    func makeRowStage(plan: ScalePlan, streaming: Bool = true) throws(JPEGError) -> RowStage {
        RowStage(buffers: try Self.makeBuffers(plan: plan, streaming: streaming, ledger: ledger),
                 scratch: try ScanScratch(ledger: ledger),
                 output: try OutputStage(plan: plan, colorSpace: info.colorSpace, format: outputFormat, ledger: ledger))
    }

    /// What `allocate` returns, or nil where the ledger's limit leaves no room for it: for the
    /// buffers a two-thread decode holds beyond `decode`'s, without which it decodes as
    /// `decode` does, as it would have without a second core.
    static func unlessOverLimit<T>(_ allocate: () throws(JPEGError) -> T) throws(JPEGError) -> T? {
        do {
            return try allocate()
        } catch {
            guard case .core(.limitExceeded) = error else { throw error }
            return nil
        }
    }

    /// One sample buffer per component: one MCU row plus a context row when streaming, else
    /// the whole plane. Static: the mutating decodes would hand a method a copy of the decoder.
    static func makeBuffers(plan: ScalePlan, streaming: Bool, ledger: MemoryLedger) throws(JPEGError) -> [ComponentBuffer] {
        var buffers: [ComponentBuffer] = []
        for p in plan.components {
            let rows = (streaming ? p.rowsPerMCURow : p.totalRows) + 1
            let (count, overflow) = p.stride.multipliedReportingOverflow(by: rows)
            guard !overflow else { throw .core(.sizeOverflow) }
            let storage = try core { () throws(CoreError) in try ledger.allocate(UInt8.self, count: count, initialValue: 128) }
            buffers.append(ComponentBuffer(storage: storage, stride: p.stride, firstRow: -1))
        }
        return buffers
    }

    /// Prepares a scan: each component's quantisers (latched now, T.81 B.2.4.1), its
    /// Huffman tables in decoding form, its IDCT size and buffer. Mutating only so that the
    /// decodes, which are, pass the decoder by reference instead of a copy of it.
    @inline(never) // set-up, called from three places: one copy
    mutating func makeScan(_ header: ScanHeader, number: Int, tables: TableSet, restartInterval: Int, plan: ScalePlan,
                           buffers: [ComponentBuffer], scratch: ScanScratch) throws(JPEGError) -> ScanDecoder {
        var units: [ScanUnit] = []
        var quantizerBuffers: [LedgerBuffer<Int32>] = []
        // A scan of one component has one block per MCU (T.81 A.2.2), whatever its sampling.
        let single = header.components.count == 1
        let blocksPerMCU = single ? 1 : header.components.reduce(0) {
            $0 + plan.components[$1.index].horizontal * plan.components[$1.index].vertical
        }
        var huffman = HuffmanTableCache(
            fastPath: ScanDecoder.canTakeFastPath(blocksPerMCU: blocksPerMCU, capacity: reader.stream.capacity))
        func table(_ tableClass: Int, _ id: Int, skips: Bool = false) throws(JPEGError) -> HuffmanPointers {
            try huffman.pointers(tableClass, id, skips: skips, tables: tables, ledger: ledger, offset: header.offset)
        }
        for component in header.components {
            let c = component.index
            let tq = frame.components[c].quantizationTable
            guard let q = tables.quantization[tq] else {
                throw .missingTable(kind: "quantization", id: tq, offset: header.offset)
            }
            let quantizers = try core { () throws(CoreError) in try ledger.allocate(Int32.self, count: 64, initialValue: 0) }
            for i in 0 ..< 64 { quantizers[i] = Int32(q.values[i]) }
            quantizerBuffers.append(quantizers)
            let p = plan.components[c]
            units.append(ScanUnit(dc: try table(0, component.dcTable),
                                  ac: try table(1, component.acTable, skips: p.blockSize == 1),
                                  quantizers: UnsafePointer(quantizers.baseAddress),
                                  keep: scratch.keepMap(blockSize: p.blockSize), blockSize: p.blockSize,
                                  horizontal: single ? 1 : p.horizontal, vertical: single ? 1 : p.vertical,
                                  plane: buffers[c].storage.baseAddress, stride: p.stride, rowStart: 1))
        }
        var scan = ScanDecoder(reader: reader, units: units, scanNumber: number, restartInterval: restartInterval,
                               scratch: scratch, quantizerBuffers: quantizerBuffers, huffmanTables: huffman.built)
        scan.path = entropyPath
        return scan
    }
}

/// What `JPEGDecoder.readHeaders` gathers from the markers before the first scan. Its steps
/// are methods on it, so that their error paths leave it to the one caller that owns it.
struct HeaderSegments {
    var stream: ByteStream
    var log: WarningLog
    var markers: MarkerReader
    var tables = TableSet()
    var segments: [JPEGSegment] = []
    var frame: JPEGFrameRecord?
    var restartInterval = 0
    var sawJFIF = false
    var adobeTransform: Int?
    var adobeOffset = 0
    /// The first scan's header, once its SOS is read.
    var scan: ScanHeader?

    init(stream: ByteStream, options: JPEGOptions) {
        self.stream = stream
        log = WarningLog(strict: options.strict, limit: options.maxWarnings)
        markers = MarkerReader(maxMarkers: options.maxSegments)
    }

    /// Reads SOI, which must open the file (T.81 B.2.1).
    mutating func readStart() throws(JPEGError) {
        guard try MarkerReader.startOfImage(&stream) else { throw .notJPEG(offset: 0) }
    }

    /// Reads the next marker and its segment.
    mutating func readSegment(options: JPEGOptions) throws(JPEGError) {
        guard let marker = try markers.nextMarker(&stream) else { throw .missingScan(offset: stream.position) }
        if marker.discarded > 0 {
            try log.add(.extraneousBytes(count: marker.discarded, marker: marker.code, offset: marker.offset))
        }
        switch marker.code {
        case Marker.eoi:
            throw .missingScan(offset: marker.offset)
        case Marker.soi:
            throw .unexpectedMarker(marker: marker.code, offset: marker.offset)
        case _ where Marker.isStandalone(marker.code):
            return
        default:
            break
        }
        let isApp = marker.code >= 0xE0 && marker.code <= 0xEF
        let (bytes, length) = try MarkerReader.parameters(&stream, of: marker,
                                                          keep: isApp || marker.code == Marker.com ? 32 : 65533)
        let kind = isApp ? MarkerParameters.kind(marker: marker.code, prefix: bytes) : .other
        segments.append(JPEGSegment(marker: marker.code, offset: marker.offset, length: length, kind: kind))
        switch marker.code {
        case _ where JPEGProcess(marker: marker.code) != nil:
            guard frame == nil else { throw .unexpectedMarker(marker: marker.code, offset: marker.offset) }
            frame = try JPEGFrameRecord(bytes, marker: marker, options: options)
        case 0xDE, 0xDF:
            throw .unsupportedFeature(feature: "hierarchical mode (\(markerName(marker.code)))", offset: marker.offset)
        case Marker.sos:
            guard let frame else { throw .unexpectedMarker(marker: marker.code, offset: marker.offset) }
            scan = try ScanHeader(bytes, marker: marker, frame: frame)
        default:
            if try tables.apply(marker: marker, bytes: bytes) { return }
            if marker.code == Marker.dri {
                restartInterval = try MarkerParameters.restartInterval(bytes, marker: marker)
            } else if kind == .jfif {
                sawJFIF = true
            } else if kind == .adobe, bytes.count >= 12 {
                adobeTransform = Int(bytes[11])
                adobeOffset = marker.offset
            }
        }
    }

    /// The frame's colour space from its component count, JFIF, Adobe's transform flag or
    /// the component ids (as libjpeg decides it).
    mutating func colorSpace(of frame: JPEGFrameRecord) throws(JPEGError) -> JPEGColorSpace {
        switch frame.components.count {
        case 1:
            return .gray
        case 3:
            if sawJFIF { return .yCbCr }
            if let adobeTransform {
                if adobeTransform > 1 { try log.add(.unknownAdobeTransform(value: adobeTransform, offset: adobeOffset)) }
                return adobeTransform == 0 ? .rgb : .yCbCr
            }
            let ids = frame.components
            return ids[0].id == 0x52 && ids[1].id == 0x47 && ids[2].id == 0x42 ? .rgb : .yCbCr
        default:
            guard let adobeTransform else { return .cmyk }
            if adobeTransform > 2 { try log.add(.unknownAdobeTransform(value: adobeTransform, offset: adobeOffset)) }
            return adobeTransform == 0 ? .cmyk : .ycck
        }
    }
}

/// The quantisation and Huffman tables in force (T.81 B.2.4: a later DQT or DHT replaces the
/// table with the same destination).
struct TableSet {
    var quantization: [QuantizationTable?] = [nil, nil, nil, nil]
    var dc: [HuffmanTable?] = [nil, nil, nil, nil]
    var ac: [HuffmanTable?] = [nil, nil, nil, nil]

    /// Installs the tables of a DQT or DHT segment; false for other markers.
    mutating func apply(marker: FoundMarker, bytes: [UInt8]) throws(JPEGError) -> Bool {
        switch marker.code {
        case Marker.dqt:
            try QuantizationTable.parse(bytes, offset: marker.offset) { id, table in quantization[id] = table }
            return true
        case Marker.dht:
            try HuffmanTable.parse(bytes, offset: marker.offset) { tableClass, id, table in
                if tableClass == 0 { dc[id] = table } else { ac[id] = table }
            }
            return true
        default:
            return false
        }
    }
}

extension JPEGDecoder where Source == MemoryByteSource {
    /// Decodes a whole JPEG held in memory into an `Image` at `scale` (the raw decode: no
    /// orientation, no resampling), gray8 or rgb8 as `outputFormat` says. Warnings are
    /// dropped; use `JPEGDecoder` itself to see them.
    public static func decodeImage(_ bytes: [UInt8], scale: JPEGScale = .full, ledger: MemoryLedger,
                                   options: JPEGOptions = JPEGOptions()) throws(JPEGError) -> Image {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
        var builder = ImageBuilder(ledger: ledger)
        try decoder.decode(scale: scale, into: &builder)
        // `decode` begins the sink before it returns; without a beginning there is no image.
        guard let image = builder.image else { throw .missingScan(offset: decoder.bytesRead) }
        return image
    }
}
