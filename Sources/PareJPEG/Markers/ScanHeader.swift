@_spi(Codec) import PareCore

/// The scan header (T.81 B.2.3, Figure B.4): which frame components the scan codes, in what
/// order, with which DC and AC Huffman tables, and, in a progressive frame, which band of
/// coefficients (Ss…Se) at which bit positions (Ah, Al).
struct ScanHeader {
    struct Component {
        /// Index into the frame's component list.
        var index: Int
        var dcTable: Int
        var acTable: Int
    }

    var components: [Component]
    /// The offset of the SOS marker, for messages.
    var offset: Int
    /// Ss, Se, Ah and Al as the segment gives them.
    var band: JPEGScanBand

    /// Checks a scan header, as `JPEGScanRecord(parsing:marker:number:)` read it, against the
    /// frame. Ss, Se, Ah and Al are fixed for sequential scans (0, 63, 0, 0) and, like
    /// libjpeg, not enforced there; in a progressive frame they must follow T.81 G.1.1.1.1 (a
    /// DC band alone, AC bands of one component, Ah = 0 or Al + 1, Al ≤ 13), as libjpeg
    /// insists.
    init(_ bytes: [UInt8], marker: FoundMarker, frame: JPEGFrameRecord) throws(JPEGError) {
        offset = marker.offset
        func invalid(_ reason: MessageText) -> JPEGError {
            .invalidSegment(marker: Marker.sos, offset: marker.offset, reason: reason)
        }
        let record = try JPEGScanRecord(parsing: bytes, marker: marker, number: 0)
        var components: [Component] = []
        var blocksInMCU = 0
        for component in record.components {
            let id = component.id
            guard let index = frame.components.firstIndex(where: { $0.id == id }) else {
                throw invalid("component \(id) is not in the frame")
            }
            guard !components.contains(where: { $0.index == index }) else {
                throw invalid("component \(id) appears twice")
            }
            let dc = component.dcTable, ac = component.acTable
            guard dc <= 3, ac <= 3 else { throw invalid("Huffman table selector out of range") }
            components.append(Component(index: index, dcTable: dc, acTable: ac))
            // Sampling factors are 1…4 (JPEGFrameRecord(parsing:marker:)) and Ns ≤ 4: no overflow.
            blocksInMCU &+= frame.components[index].horizontal &* frame.components[index].vertical
        }
        let count = components.count
        // T.81 B.2.3: an interleaved MCU holds at most 10 blocks.
        guard count == 1 || blocksInMCU <= 10 else { throw invalid("\(blocksInMCU) blocks per MCU (at most 10)") }
        self.components = components
        band = record.band
        guard frame.process == .progressive else { return }
        let ss = band.spectralStart, se = band.spectralEnd, ah = band.approximationHigh, al = band.approximationLow
        let valid = ss == 0 ? se == 0 : (se >= ss && se <= 63 && count == 1)
        guard valid, al <= 13, ah == 0 || ah == al + 1 else {
            throw invalid("progression parameters Ss=\(ss) Se=\(se) Ah=\(ah) Al=\(al) for \(count) components")
        }
    }
}

extension JPEGScanRecord {
    /// An SOS segment as written (T.81 B.2.3, Figure B.4): Ns 1…4, the length matching it;
    /// selectors and the band are kept as written. `ScanHeader` checks them against the
    /// frame for decoding. `number` is the scan's place in the file.
    init(parsing bytes: [UInt8], marker: FoundMarker, number: Int) throws(JPEGError) {
        func invalid(_ reason: MessageText) -> JPEGError {
            .invalidSegment(marker: Marker.sos, offset: marker.offset, reason: reason)
        }
        guard let first = bytes.first else { throw invalid("empty") }
        let count = Int(first)
        guard (1 ... 4).contains(count) else { throw invalid("\(count) components") }
        guard bytes.count == 4 + 2 * count else { throw invalid("length does not match \(count) components") }
        var components: [Component] = []
        for i in 0 ..< count {
            let tables = bytes[2 + 2 * i]
            components.append(.init(id: Int(bytes[1 + 2 * i]), dcTable: Int(tables >> 4), acTable: Int(tables & 15)))
        }
        let tail = 1 + 2 * count
        let band = JPEGScanBand(spectralStart: Int(bytes[tail]), spectralEnd: Int(bytes[tail + 1]),
                                approximationHigh: Int(bytes[tail + 2] >> 4), approximationLow: Int(bytes[tail + 2] & 15))
        self.init(number: number, components: components, band: band, restartInterval: 0, dataOffset: 0,
                  dataLength: 0, restartMarkers: 0)
    }
}
