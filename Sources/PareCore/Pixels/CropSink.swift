/// A rectangle of pixels: the part of a picture a cover crop keeps.
public struct PixelRect: Sendable, Equatable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// Passes on only the pixels inside `window`, renumbered so that the window's corner is
/// (0, 0): a thumbnail that fills its cell by cropping resamples the window, never the
/// rows and columns it throws away. Rows of any placement (Adam7's passes too) are cut to
/// the columns inside the window, keeping their step.
public struct CropSink<Downstream: RowSink>: RowSink {
    public var downstream: Downstream
    public let window: PixelRect

    /// `window` in the decoded picture's pixels; `begin` clips it to the picture.
    public init(window: PixelRect, downstream: Downstream) {
        self.window = window
        self.downstream = downstream
    }

    private var clipped = PixelRect(x: 0, y: 0, width: 0, height: 0)
    private var bytesPerPixel = 0

    public mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        let x = min(max(0, window.x), header.width - 1), y = min(max(0, window.y), header.height - 1)
        clipped = PixelRect(x: x, y: y, width: max(1, min(window.width, header.width - x)),
                            height: max(1, min(window.height, header.height - y)))
        bytesPerPixel = header.format.bytesPerPixel
        var inner = header
        inner.width = clipped.width
        inner.height = clipped.height
        try downstream.begin(inner)
    }

    public mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        let y = placement.y - clipped.y
        guard y >= 0, y < clipped.height, placement.width > 0, placement.xStep > 0 else { return }
        // The first pixel of the row at or right of the window's left edge, and the count
        // of pixels left of its right edge from there.
        let left = clipped.x, right = clipped.x + clipped.width
        let first = max(0, (left - placement.xOrigin + placement.xStep - 1) / placement.xStep)
        let firstX = placement.xOrigin + first * placement.xStep
        guard first < placement.width, firstX < right else { return }
        let count = min(placement.width - first, (right - 1 - firstX) / placement.xStep + 1)
        let start = first * bytesPerPixel, length = count * bytesPerPixel
        guard start + length <= row.count else { return }
        try downstream.consume(UnsafeBufferPointer(rebasing: row[start ..< start + length]),
                           at: RowPlacement(y: y, xOrigin: firstX - left, xStep: placement.xStep, width: count))
    }
}
