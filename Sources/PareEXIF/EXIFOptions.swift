/// The limits that keep hostile metadata from costing time or memory. Each has a default
/// far above what cameras write.
public struct EXIFOptions: Sendable {
    /// IFDs read in all (IFD0, IFD1, further chained IFDs, Exif, GPS, Interop, MPF).
    public var maxIFDs: Int = 64
    /// Entries in one IFD (the count field allows 65,535).
    public var maxEntriesPerIFD: Int = 1024
    /// The largest single value copied into an entry; larger ones keep only their offset.
    public var maxValueBytes: Int = 65536
    /// All value bytes copied for one TIFF block together.
    public var maxTotalValueBytes: Int = 1 << 20
    /// MP entries read from an MPF index.
    public var maxMPFEntries: Int = 64
    /// Non-marker bytes and 0xFF fill bytes skipped between JPEG segments, in all, before
    /// giving up on a marker walk (the file's own, and each MPF image's search for its SOF).
    public var maxStrayBytes: Int = 65536
    /// Marker segments (standalone markers included) walked before SOS in one marker walk.
    public var maxSegments: Int = 4096

    public init() {}
}
