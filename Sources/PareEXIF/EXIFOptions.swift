/// The limits that keep hostile metadata from costing time or memory. Each has a default
/// far above what cameras write; the README's "Limits" table lists them with the rest of
/// Pare's. Metadata never stops a thumbnail: only `maxIFDs` and `maxEntriesPerIFD` on IFD0
/// throw (`EXIFError.tooManyIFDs`, `.tooManyEntries`); everywhere else a crossed limit drops
/// what lies beyond it and leaves a warning naming the limit.
public struct EXIFOptions: Sendable, Equatable {
    /// IFDs read in all (IFD0, IFD1, further chained IFDs, Exif, GPS, Interop, MPF).
    /// Default: 64. `EXIFError.tooManyIFDs`.
    public var maxIFDs: Int = 64
    /// Entries in one IFD (the count field allows 65,535). Default: 1,024.
    /// `EXIFError.tooManyEntries`.
    public var maxEntriesPerIFD: Int = 1024
    /// The largest single value copied into an entry; larger ones keep only their offset.
    /// Default: 65,536 bytes. `EXIFError.valueTooLarge` (a warning).
    public var maxValueBytes: Int = 65536
    /// All value bytes copied for one TIFF block together. Default: 1 MiB.
    /// `EXIFError.valueTooLarge` (a warning).
    public var maxTotalValueBytes: Int = 1 << 20
    /// MP entries read from an MPF index. Default: 64. `EXIFError.tooManyMPFEntries` (a
    /// warning; the first entries are kept).
    public var maxMPFEntries: Int = 64
    /// Non-marker bytes and 0xFF fill bytes skipped between JPEG segments, in all, before
    /// giving up on a marker walk (the file's own, and each MPF image's search for its SOF).
    /// Default: 65,536. `EXIFError.strayBytes` (a warning; the walk ends).
    public var maxStrayBytes: Int = 65536
    /// Marker segments (standalone markers included) walked before SOS in one marker walk.
    /// Default: 4,096. `EXIFError.tooManySegments` (a warning; the walk ends).
    public var maxSegments: Int = 4096
    /// Warnings kept from the IFDs of one TIFF block (one per damaged entry at most); later
    /// ones are dropped. Default: 256.
    public var maxWarnings: Int = 256

    public init() {}
}
