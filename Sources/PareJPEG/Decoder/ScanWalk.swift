@_spi(Codec) import PareCore

/// Where a walk over the scans of a frame stands (T.81 B.2.1, E.2.3): the tables and restart
/// interval in force (markers between scans may change them), the current scan's header and
/// number, and which frame components some scan has coded so far.
///
/// Every decode that reads more than one scan walks them with this value: the separate-scans
/// sequential decode, the progressive decode and the coefficient snapshot. The decoder starts
/// one with `startScanWalk()` and moves it on with `advance(_:log:)`.
struct ScanWalk {
    var tables: TableSet
    var restartInterval: Int
    /// The scan being decoded.
    var header: ScanHeader
    /// 1 for the frame's first scan; counted against `JPEGOptions.maxScans`.
    var number = 1
    /// Bit c: some scan coded frame component c (at most four: JPEGFrameRecord).
    var coded = 0

    /// True when no scan before this one coded any of its components.
    var isFresh: Bool { header.components.allSatisfy { coded & 1 << $0.index == 0 } }

    /// Marks the current scan's components as coded.
    mutating func noteCoded() {
        for component in header.components { coded |= 1 << component.index }
    }

    /// Once the walk is done: a warning for each frame component no scan coded (it decodes as
    /// mid-level, as in libjpeg), at `offset`, where reading stopped.
    func reportUncoded(frame: JPEGFrameRecord, offset: Int, log: inout WarningLog) throws(JPEGError) {
        for c in 0 ..< frame.components.count where coded & 1 << c == 0 {
            try log.add(.componentNotCoded(id: frame.components[c].id, offset: offset))
        }
    }
}

extension JPEGDecoder {
    /// A walk at the frame's first scan, with the header's tables and restart interval.
    func startScanWalk() -> ScanWalk {
        ScanWalk(tables: tables, restartInterval: info.restartInterval, header: firstScan)
    }

    /// Reads the markers after the current scan up to the next SOS (see `nextScan`) and moves
    /// `walk` to it, counted against `options.maxScans`; false when no scan follows.
    @inline(never) // once per scan, from each walk's loop
    mutating func advance(_ walk: inout ScanWalk, log: inout WarningLog) throws(JPEGError) -> Bool {
        guard let next = try nextScan(tables: &walk.tables, restartInterval: &walk.restartInterval, log: &log)
        else { return false }
        walk.number += 1
        guard walk.number <= options.maxScans else {
            throw .limitExceeded(what: "scan count", value: walk.number, limit: options.maxScans, offset: next.offset)
        }
        walk.header = next
        return true
    }
}
