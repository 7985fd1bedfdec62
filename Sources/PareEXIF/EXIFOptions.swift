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
    /// Non-marker bytes skipped between JPEG segments before giving up on the marker walk.
    public var maxStrayBytes: Int = 65536

    public init() {}
}
