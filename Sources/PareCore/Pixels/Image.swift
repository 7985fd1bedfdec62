/// A decoded picture held whole: the result of a thumbnail, or of a full decode when the
/// caller asks for one.
///
/// A value: it owns its pixels (a `[UInt8]`, so copies share them until one is changed, and
/// only then is the changed one copied) and depends on nothing else, so it is `Sendable` and
/// may cross tasks and actors. The pixels are rows of `rowStride` bytes (`width` ×
/// `format.bytesPerPixel`, no padding), top to bottom, channels interleaved per `format`.
///
/// Reading: `pixels` gives the bytes without copying them; `withRow(_:_:)` and
/// `withUnsafePixels(_:)` lend a pointer for the length of a closure, for encoders' row loops.
/// Changing: only through the `mutating` `withMutableRow(_:_:)` and
/// `withUnsafeMutablePixels(_:)`, which copy first if another value shares the pixels.
///
/// An image made inside a decoding job is counted by the job's `MemoryLedger` while the job
/// makes and holds it (see `ImageBuffer`); once handed to the caller it is the caller's
/// memory and no ledger counts it.
public struct Image: Sendable, Equatable {
    /// Pixels per row.
    public let width: Int
    /// Rows.
    public let height: Int
    /// How each pixel's bytes are laid out.
    public let format: PixelFormat
    /// Bytes from one row to the next: `width * format.bytesPerPixel`.
    public let rowStride: Int
    /// Every pixel, row after row with no padding (`rowStride * height` bytes). Reading it
    /// shares the bytes; it does not copy them.
    public var pixels: [UInt8] { storage }
    @usableFromInline var storage: [UInt8]

    /// The bytes one image of this size and format takes, or nil if that overflows `Int`.
    public static func byteCount(width: Int, height: Int, format: PixelFormat) -> Int? {
        guard width >= 0, height >= 0 else { return nil }
        let (stride, o1) = width.multipliedReportingOverflow(by: format.bytesPerPixel)
        let (total, o2) = stride.multipliedReportingOverflow(by: height)
        return o1 || o2 ? nil : total
    }

    /// A zeroed image, counted by no ledger. Throws `sizeOverflow` for a size whose byte count
    /// does not fit in `Int`.
    public init(width: Int, height: Int, format: PixelFormat) throws(CoreError) {
        guard let total = Self.byteCount(width: width, height: height, format: format) else { throw .sizeOverflow }
        self.init(width: width, height: height, format: format,
                  pixels: [UInt8](repeating: 0, count: total))
    }

    /// An image over pixels the caller made; `pixels.count` must be `width * height *
    /// format.bytesPerPixel`.
    public init(width: Int, height: Int, format: PixelFormat, pixels: [UInt8]) {
        precondition(Self.byteCount(width: width, height: height, format: format) == pixels.count,
                     "Image pixels do not match its size")
        self.width = width
        self.height = height
        self.format = format
        self.rowStride = width * format.bytesPerPixel
        self.storage = pixels
    }

    /// Row `y`'s bytes as a collection indexed from 0, sharing the pixels (no copy): for
    /// reading a few values (`image.row(y)[x]`) or copying a row (`Array(image.row(y))`).
    /// Loops over every byte read faster through `withRow(_:_:)`.
    public func row(_ y: Int) -> Row {
        precondition(y >= 0 && y < height, "Image row out of range")
        return Row(storage: storage, start: y * rowStride, count: rowStride)
    }

    /// One row's bytes, indexed from 0; it keeps the pixels it was read from alive.
    public struct Row: RandomAccessCollection, Sendable {
        let storage: [UInt8]
        let start: Int
        /// The row's length in bytes.
        public let count: Int
        /// 0.
        public var startIndex: Int { 0 }
        /// `count`.
        public var endIndex: Int { count }
        /// Byte `i` of the row.
        public subscript(i: Int) -> UInt8 {
            precondition(i >= 0 && i < count, "Image row index out of range")
            return storage[start + i]
        }
    }

    /// Calls `body` with row `y`'s bytes (`rowStride` of them), valid only during the call.
    @inlinable
    public func withRow<Result, Failure: Error>(
        _ y: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        precondition(y >= 0 && y < height, "Image row out of range")
        return try withUnsafePixels { (all) throws(Failure) -> Result in
            try body(UnsafeBufferPointer(rebasing: all[y * rowStride ..< (y + 1) * rowStride]))
        }
    }

    /// Streams the image into `sink`: its header, then every row top to bottom, as a
    /// sequential decoder would.
    @inlinable
    public func send<Sink: RowSink>(to sink: inout Sink) throws(CoreError) {
        try sink.begin(RowStreamHeader(width: width, height: height, format: format))
        for y in 0 ..< height {
            try withRow(y) { (row) throws(CoreError) in try sink.consume(row, at: RowPlacement(y: y, width: width)) }
        }
    }

    /// Calls `body` with all the pixels, valid only during the call.
    @inlinable
    public func withUnsafePixels<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        // withUnsafeBufferPointer rethrows untyped errors: the typed one travels in a Swift.Result.
        try storage.withUnsafeBufferPointer { buffer in
            Swift.Result { () throws(Failure) -> Result in try body(buffer) }
        }.get()
    }

    /// Calls `body` with row `y`'s bytes to change, valid only during the call. Copies the
    /// pixels first if another value shares them.
    @inlinable
    public mutating func withMutableRow<Result, Failure: Error>(
        _ y: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        precondition(y >= 0 && y < height, "Image row out of range")
        let stride = rowStride
        return try withUnsafeMutablePixels { (all) throws(Failure) -> Result in
            try body(UnsafeMutableBufferPointer(rebasing: all[y * stride ..< (y + 1) * stride]))
        }
    }

    /// Calls `body` with all the pixels to change, valid only during the call. Copies them
    /// first if another value shares them.
    @inlinable
    public mutating func withUnsafeMutablePixels<Result, Failure: Error>(
        _ body: (UnsafeMutableBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withUnsafeMutableBufferPointer { buffer in
            Swift.Result { () throws(Failure) -> Result in try body(buffer) }
        }.get()
    }
}

/// An image being made inside one job, counted by the job's `MemoryLedger` from its
/// creation until this object goes away, whether the job finishes or fails.
///
/// The ledger is a per-job counter, not an owner: `image` is the finished value (it shares
/// the pixels, without a copy), and once the job drops its `ImageBuffer` the ledger's count
/// falls back while the pixels live on in the `Image` the job handed over. So a job's ledger
/// is back at zero when the job returns, its `peakBytes` still shows what the job held, and
/// the result depends on no ledger. Not `Sendable`: it belongs to the job's thread, as the
/// ledger does.
public final class ImageBuffer {
    /// The picture as it stands; copying it out shares the pixels.
    public private(set) var image: Image
    private let ledger: MemoryLedger
    private let byteCount: Int

    /// A zeroed image counted by `ledger`. Throws `sizeOverflow`, or the ledger's
    /// `limitExceeded` before anything is allocated.
    public init(width: Int, height: Int, format: PixelFormat, ledger: MemoryLedger) throws(CoreError) {
        guard let total = Image.byteCount(width: width, height: height, format: format) else { throw .sizeOverflow }
        try ledger.reserve(bytes: total)
        self.ledger = ledger
        self.byteCount = total
        self.image = Image(width: width, height: height, format: format, pixels: [UInt8](repeating: 0, count: total))
        ledger.noteAllocated()
    }

    deinit {
        ledger.release(bytes: byteCount)
    }

    /// Calls `body` with row `y`'s bytes to change, valid only during the call.
    @inlinable
    public func withMutableRow<Result, Failure: Error>(
        _ y: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try mutateImage { (image: inout Image) throws(Failure) -> Result in try image.withMutableRow(y, body) }
    }

    /// Gives `body` the image to change in place (no copy while nothing else shares it).
    @usableFromInline
    func mutateImage<Result, Failure: Error>(_ body: (inout Image) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(&image)
    }
}
