import PareCore

/// A sink that keeps nothing but a few facts about the rows, for memory tests (it must not
/// allocate per image) and for checking that rows come once each, top to bottom.
struct RowCounter: RowSink {
    var header: RowStreamHeader?
    var rows = 0
    var inOrder = true
    var sum = 0
    /// The first sample of the last row.
    var lastRowFirstSample: UInt8 = 0

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        self.header = header
    }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        if placement.y != rows { inOrder = false }
        rows += 1
        sum &+= Int(row[0]) &+ Int(row[row.count - 1])
        lastRowFirstSample = row[0]
    }
}
