/// Where a decoded row belongs in the image. A sequential decoder sends rows with
/// `xOrigin` 0 and `xStep` 1, top to bottom. An interlaced PNG (Adam7) sends each pass's
/// rows with the pass's origin and step: pixel `i` of the row lands at
/// column `xOrigin + i * xStep` of row `y`.
public struct RowPlacement: Sendable, Equatable {
    public var y: Int
    public var xOrigin: Int
    public var xStep: Int
    /// The number of pixels in the row.
    public var width: Int

    public init(y: Int, xOrigin: Int = 0, xStep: Int = 1, width: Int) {
        self.y = y
        self.xOrigin = xOrigin
        self.xStep = xStep
        self.width = width
    }
}

/// What a sink learns before the first row.
public struct RowStreamHeader: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var format: PixelFormat
    /// True when rows arrive in several passes (Adam7) rather than once each, top to bottom.
    public var interlaced: Bool

    public init(width: Int, height: Int, format: PixelFormat, interlaced: Bool = false) {
        self.width = width
        self.height = height
        self.format = format
        self.interlaced = interlaced
    }
}

/// A consumer of decoded rows: the resampler, an image builder, a file writer. Decoders
/// push rows into it through a generic parameter (`some RowSink`), never an existential, so
/// the call is specialised and costs nothing in the row loop.
///
/// A row's bytes are valid only during the call. Sinks allocate in `begin`, where they may
/// fail, and refuse there what they cannot take (an encoder, a size its format cannot
/// hold). `consume` may fail too (a file that cannot be written, rows out of the order an
/// encoder needs): it throws `CoreError.sinkStopped` and keeps its own error, and the
/// decoder stops at once, giving back what it holds, rather than decoding the rest.
public protocol RowSink {
    mutating func begin(_ header: RowStreamHeader) throws(CoreError)
    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError)
}

/// Collects rows into a whole `Image`: the convenience full decode, the thumbnail's output,
/// and tests. The image is counted by `ledger` while the builder holds it (`ImageBuffer`).
public struct ImageBuilder: RowSink {
    public let ledger: MemoryLedger
    /// The picture being filled, once `begin` has sized it.
    public private(set) var buffer: ImageBuffer?

    public init(ledger: MemoryLedger) {
        self.ledger = ledger
    }

    /// The rows received so far, as a value (sharing the pixels); nil before `begin`.
    public var image: Image? { buffer?.image }

    public mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        buffer = nil
        buffer = try ImageBuffer(width: header.width, height: header.height, format: header.format, ledger: ledger)
    }

    public mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        guard let buffer, placement.y >= 0, placement.y < buffer.image.height else { return }
        let width = buffer.image.width
        let pixelBytes = buffer.image.format.bytesPerPixel
        buffer.withMutableRow(placement.y) { target in
            if placement.xOrigin == 0 && placement.xStep == 1 {
                let n = min(row.count, target.count, placement.width * pixelBytes)
                if n > 0 { target.baseAddress!.update(from: row.baseAddress!, count: n) }
                return
            }
            for i in 0 ..< placement.width {
                let x = placement.xOrigin + i * placement.xStep
                guard x < width, (i + 1) * pixelBytes <= row.count else { break }
                for b in 0 ..< pixelBytes {
                    target[x * pixelBytes + b] = row[i * pixelBytes + b]
                }
            }
        }
    }
}
