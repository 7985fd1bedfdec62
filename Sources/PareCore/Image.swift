/// A decoded picture held whole: the result of a thumbnail, or of a full decode when the
/// caller asks for one. Rows are `rowStride` bytes apart, pixels interleaved per
/// `PixelFormat`, and the storage is counted by the ledger that made it.
public struct Image {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    public let rowStride: Int
    public let storage: LedgerBuffer<UInt8>

    /// A zeroed image. Throws `sizeOverflow` or the ledger's `limitExceeded`.
    public init(width: Int, height: Int, format: PixelFormat, ledger: MemoryLedger) throws(CoreError) {
        guard width >= 0, height >= 0 else { throw .sizeOverflow }
        let (stride, o1) = width.multipliedReportingOverflow(by: format.bytesPerPixel)
        if o1 { throw .sizeOverflow }
        let (total, o2) = stride.multipliedReportingOverflow(by: height)
        if o2 { throw .sizeOverflow }
        self.width = width
        self.height = height
        self.format = format
        self.rowStride = stride
        self.storage = try ledger.allocate(UInt8.self, count: total, initialValue: 0)
    }

    /// Row `y` as a mutable view into the storage.
    public func row(_ y: Int) -> UnsafeMutableBufferPointer<UInt8> {
        precondition(y >= 0 && y < height, "Image row out of range")
        return UnsafeMutableBufferPointer(start: storage.baseAddress + y * rowStride, count: rowStride)
    }

    /// The pixels as one array (a copy), row after row with no padding.
    public var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: storage.baseAddress, count: storage.count))
    }
}
