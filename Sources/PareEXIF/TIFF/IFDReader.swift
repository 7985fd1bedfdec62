import PareCore

/// A TIFF block inside a byte source: where its header is, how far it reaches, and which
/// absolute file offset its header has, so that every offset reported is absolute.
/// PareTIFF reads a TIFF file's own directories through it (`@_spi(TIFF)`).
@_spi(TIFF)
public struct TIFFBlock<Source: ByteSource> {
    public let source: Source
    /// The header's position in `source`.
    let start: Int
    /// Bytes from the header to the end of the block.
    let count: Int
    /// The header's absolute offset in the file.
    let absoluteBase: Int

    /// A block of `count` bytes whose header is at `start` in `source` and at `absoluteBase` in the file.
    public init(source: Source, start: Int, count: Int, absoluteBase: Int) {
        self.source = source
        self.start = start
        self.count = count
        self.absoluteBase = absoluteBase
    }

    /// True when `length` bytes at header-relative `offset` lie inside the block; computed
    /// in 64 bits because a 32-bit offset plus a count overflows a 32-bit Int.
    func contains(_ offset: UInt64, length: UInt64) -> Bool {
        offset <= UInt64(count) && length <= UInt64(count) - offset
    }

    func absolute(_ offset: Int) -> Int { absoluteBase + offset }

    /// The absolute offset of a raw pointer that may lie anywhere, saturating instead of
    /// overflowing (it is only reported, never read).
    func absolute(pointer: UInt64) -> Int {
        let (sum, overflow) = absoluteBase.addingReportingOverflow(Int(clamping: pointer))
        return overflow ? Int.max : sum
    }

    func bytes(at offset: Int, count length: Int) throws(EXIFError) -> [UInt8] {
        guard contains(UInt64(max(offset, 0)), length: UInt64(max(length, 0))), offset >= 0, length >= 0 else {
            throw .core(.outOfBounds(offset: absolute(offset), needed: length, available: max(0, count - max(offset, 0))))
        }
        do {
            return try source.bytes(at: start + offset, count: length)
        } catch {
            throw .core(error)
        }
    }
}

/// The two layouts of a TIFF file's structures (TIFF 6.0 §2; BigTIFF, version 43): how wide
/// an offset, an IFD's entry count and an entry's value count are. An entry is the tag and
/// the type (two bytes each), the value count, then a value field as wide as an offset that
/// holds the value itself when it fits, else a pointer to it.
struct TIFFLayout: Equatable {
    /// Bytes of an offset: the header's pointer to IFD0, the next-IFD field, a value field.
    let offsetSize: Int
    /// Bytes of the entry count that opens an IFD.
    let entryCountSize: Int
    /// Bytes of an entry's value count.
    let valueCountSize: Int

    /// Where an entry's value count starts: after its tag and type.
    let valueCountField = 4
    /// Where an entry's value field starts.
    var valueField: Int { valueCountField + valueCountSize }
    /// Bytes of one entry.
    var entrySize: Int { valueField + offsetSize }

    /// Version 42: 32-bit offsets and counts, 12-byte entries, the header's IFD0 pointer at 4.
    static let classic = TIFFLayout(offsetSize: 4, entryCountSize: 2, valueCountSize: 4)
    /// Version 43: 64-bit offsets and counts, 20-byte entries, the header's IFD0 pointer at 8
    /// (after the offset size, 8, and two reserved zero bytes).
    static let big = TIFFLayout(offsetSize: 8, entryCountSize: 8, valueCountSize: 8)
}

/// The fields of a TIFF header (TIFF 6.0 §2, "Image File Header"; BigTIFF).
enum TIFFHeader {
    /// "II" or "MM".
    static let byteOrder = 0
    /// 42, or 43 for BigTIFF.
    static let version = 2
    /// Classic TIFF: the offset of IFD0.
    static let classicFirstIFD = 4
    /// BigTIFF: the size of an offset (8), then two bytes that must be 0, then IFD0's offset.
    static let bigOffsetSize = 4
    static let bigReserved = 6
    static let bigFirstIFD = 8
}

/// Reads a TIFF header and walks IFDs (TIFF 6.0 §2, "Image File Directory"), classic or
/// BigTIFF: every pointer is checked against the block, each IFD is read once (loops are
/// reported), and the IFD count, entries per IFD and copied value bytes are limited by
/// `EXIFOptions`, whatever the width of the counts. The one IFD reader: EXIF's and
/// PareTIFF's (`@_spi(TIFF)`).
@_spi(TIFF)
public struct IFDReader<Source: ByteSource> {
    let block: TIFFBlock<Source>
    let options: EXIFOptions
    /// Set by the header; RawPreviews sets it for a maker note's IFD, which has no header.
    public internal(set) var byteOrder: ByteOrder = .bigEndian
    /// Also accept the magic numbers of TIFF-based RAW files (RawPreviews.swift).
    var acceptsRawMagic = false
    private(set) var layout = TIFFLayout.classic
    public private(set) var warnings: [EXIFError] = []
    /// The offsets of the IFDs read (each inside the block, so an `Int`).
    private var visited: [Int] = []
    private var valueBytes = 0

    public init(block: TIFFBlock<Source>, options: EXIFOptions) {
        self.block = block
        self.options = options
    }

    /// Keeps `warning` unless `options.maxWarnings` are already kept: a block of damaged
    /// entries would otherwise hold one per entry of every IFD.
    mutating func warn(_ warning: EXIFError) {
        guard warnings.count < options.maxWarnings else { return }
        warnings.warn(warning)
    }

    /// The header, then the IFD it points to (IFD0, or an MPF segment's index IFD): one
    /// call, so that a caller has one `try` to tear down after.
    mutating func readFirstIFD(name: MessageText, names: TagNames.Table = .main) throws(EXIFError) -> IFD {
        try readIFD(at: try readHeader(), name: name, names: names)
    }

    /// The header (byte order, 42 or 43, offset of IFD0); returns IFD0's offset.
    public mutating func readHeader() throws(EXIFError) -> UInt64 {
        try parseHeader(try block.bytes(at: 0, count: min(TIFFHeader.bigFirstIFD + 8, block.count)))
    }

    /// The header's fields from its first 16 bytes (fewer in a shorter block). Out of line,
    /// with the bytes borrowed: inlined, each of its throws released them.
    @inline(never)
    private mutating func parseHeader(_ header: [UInt8]) throws(EXIFError) -> UInt64 {
        // A classic header is 8 bytes, a BigTIFF one 16: a shorter block names the whole header.
        func need(_ count: Int) throws(EXIFError) {
            guard header.count >= count else {
                throw .core(.outOfBounds(offset: block.absoluteBase, needed: max(count, TIFFHeader.classicFirstIFD + 4),
                                         available: header.count))
            }
        }
        try need(2)
        switch (header[TIFFHeader.byteOrder], header[TIFFHeader.byteOrder + 1]) {
        case (0x49, 0x49): byteOrder = .littleEndian
        case (0x4D, 0x4D): byteOrder = .bigEndian
        default: throw .notTIFF(offset: block.absoluteBase)
        }
        try need(4)
        switch unsigned(header, TIFFHeader.version, 2) {
        case 42:
            layout = .classic
            try need(TIFFHeader.classicFirstIFD + 4)
            return unsigned(header, TIFFHeader.classicFirstIFD, 4)
        case 43:
            layout = .big
            try need(TIFFHeader.bigFirstIFD + 8)
            let offsetSize = unsigned(header, TIFFHeader.bigOffsetSize, 2)
            guard offsetSize == 8 else {
                throw .badBigTIFFHeader(offset: block.absolute(TIFFHeader.bigOffsetSize),
                                        reason: "offset size \(offsetSize), expected 8")
            }
            let reserved = unsigned(header, TIFFHeader.bigReserved, 2)
            guard reserved == 0 else {
                throw .badBigTIFFHeader(offset: block.absolute(TIFFHeader.bigReserved),
                                        reason: "reserved field \(reserved), expected 0")
            }
            return unsigned(header, TIFFHeader.bigFirstIFD, 8)
        case let magic where acceptsRawMagic && RawFormat.classicMagics.contains(magic):
            layout = .classic
            try need(TIFFHeader.classicFirstIFD + 4)
            return unsigned(header, TIFFHeader.classicFirstIFD, 4)
        case let magic:
            throw .badMagic(offset: block.absolute(TIFFHeader.version), value: Int(magic))
        }
    }

    /// Reads the IFD at header-relative `offset`, whose tags `names` names. A table that does not fit in the block is
    /// an error; entries after one whose value points outside the block are dropped with a
    /// warning; values over the size limits are kept as entries without a value.
    public mutating func readIFD(at offset: UInt64, name: MessageText) throws(EXIFError) -> IFD {
        try readIFD(at: offset, name: name, names: .main)
    }

    mutating func readIFD(at offset: UInt64, name: MessageText,
                          names: TagNames.Table) throws(EXIFError) -> IFD {
        let absolute = try visit(offset, name: name)
        let start = Int(offset)
        let count = unsigned(try block.bytes(at: start, count: layout.entryCountSize), 0, layout.entryCountSize)
        guard count <= UInt64(options.maxEntriesPerIFD) else {
            throw .tooManyEntries(ifd: name, offset: absolute, count: Int(clamping: count), limit: options.maxEntriesPerIFD)
        }
        let declared = Int(count)
        let tableStart = start + layout.entryCountSize
        // A table that runs past the block means the count is garbage: trust none of it.
        let fitting = min(declared, (block.count - tableStart) / layout.entrySize)
        guard fitting == declared else {
            throw .truncatedIFD(ifd: name, offset: absolute, declared: declared, read: fitting)
        }
        let table = try block.bytes(at: tableStart, count: declared * layout.entrySize)
        var entries: [IFDEntry] = []
        entries.reserveCapacity(declared)
        for index in 0 ..< declared {
            let at = index * layout.entrySize
            // A value pointing outside the block marks the table as corrupt from there on
            // (ExifTool stops at the same place), so later entries are dropped.
            guard let entry = readEntry(table, at, entryOffset: tableStart + at, ifd: name, names: names) else {
                warn(.truncatedIFD(ifd: name, offset: absolute, declared: declared, read: index))
                break
            }
            entries.append(entry)
        }
        var next: UInt64 = 0
        let nextAt = tableStart + declared * layout.entrySize
        if block.contains(UInt64(nextAt), length: UInt64(layout.offsetSize)) {
            next = unsigned(try block.bytes(at: nextAt, count: layout.offsetSize), 0, layout.offsetSize)
        }
        return IFD(name: name, offset: absolute, entries: entries, nextIFD: next)
    }

    /// Marks the IFD at header-relative `offset` as read, after checking that it is new (a
    /// loop otherwise), within `maxIFDs` and inside the block; returns its absolute offset.
    private mutating func visit(_ offset: UInt64, name: MessageText) throws(EXIFError) -> Int {
        let absolute = block.absolute(pointer: offset)
        // Clamping keeps the comparison exact: every visited offset is below `Int.max`.
        if visited.contains(Int(clamping: offset)) { throw .ifdLoop(ifd: name, offset: absolute) }
        guard visited.count < options.maxIFDs else { throw .tooManyIFDs(offset: absolute, limit: options.maxIFDs) }
        guard block.contains(offset, length: UInt64(layout.entryCountSize)) else {
            throw .ifdOutOfBounds(ifd: name, offset: absolute)
        }
        visited.append(Int(offset))
        return absolute
    }

    /// The next-IFD pointer of the IFD at header-relative `offset`, reading only its entry
    /// count and that pointer (a multi-page file's pages are counted without reading their
    /// entries). The IFD counts as visited, so that a chain that loops is reported.
    public mutating func nextIFDPointer(of offset: UInt64, name: MessageText) throws(EXIFError) -> UInt64 {
        let absolute = try visit(offset, name: name)
        let count = unsigned(try block.bytes(at: Int(offset), count: layout.entryCountSize), 0, layout.entryCountSize)
        // A BigTIFF count is 64 bits: the table's size and its end may both overflow.
        let (table, overflow) = count.multipliedReportingOverflow(by: UInt64(layout.entrySize))
        let (nextAt, past) = (offset + UInt64(layout.entryCountSize)).addingReportingOverflow(table)
        guard !overflow, !past, block.contains(nextAt, length: UInt64(layout.offsetSize)) else {
            throw .truncatedIFD(ifd: name, offset: absolute, declared: Int(clamping: count), read: 0)
        }
        return unsigned(try block.bytes(at: Int(nextAt), count: layout.offsetSize), 0, layout.offsetSize)
    }

    /// The entry; nil when its value lies outside the block. One entry is made at the end:
    /// made at each of the outcomes, each was a copy of its construction.
    private mutating func readEntry(_ table: [UInt8], _ at: Int, entryOffset: Int, ifd: MessageText,
                                    names: TagNames.Table) -> IFDEntry? {
        let tag = UInt16(unsigned(table, at, 2)), type = UInt16(unsigned(table, at + 2, 2))
        let count = unsigned(table, at + layout.valueCountField, layout.valueCountSize)
        let valueField = at + layout.valueField
        let absoluteEntry = block.absolute(entryOffset)
        var valueOffset = block.absolute(entryOffset + layout.valueField)
        var value: [UInt8]?
        if let fieldType = TIFFFieldType(rawValue: type) {
            // A size no TIFF can hold is a damaged count, not a damaged table: skip just it.
            let (byteCount, overflow) = count.multipliedReportingOverflow(by: UInt64(fieldType.size))
            if !overflow && byteCount <= UInt64(layout.offsetSize) {
                value = Array(table[valueField ..< valueField + Int(byteCount)])
            } else {
                let pointer = unsigned(table, valueField, layout.offsetSize)
                valueOffset = block.absolute(pointer: pointer)
                // A size past 32 bits is too large whatever the limits, and is reported with
                // the limit on one value; else the smaller of the two limits applies.
                let huge = overflow || byteCount > UInt64(Int32.max)
                if !huge && !block.contains(pointer, length: byteCount) {
                    warn(.valueOutOfBounds(ifd: ifd, tag: tag, offset: absoluteEntry))
                    return nil
                }
                let limit = min(options.maxValueBytes, options.maxTotalValueBytes - valueBytes)
                if huge || Int(byteCount) > limit {
                    warn(.valueTooLarge(ifd: ifd, tag: tag, offset: absoluteEntry, limit: huge ? options.maxValueBytes : limit))
                } else {
                    do {
                        value = try block.bytes(at: Int(pointer), count: Int(byteCount))
                        valueBytes += Int(byteCount)
                    } catch {
                        warn(error)
                    }
                }
            }
        } else {
            warn(.unknownFieldType(ifd: ifd, tag: tag, offset: absoluteEntry, type: type))
        }
        return IFDEntry(tag: tag, type: type, count: count, valueOffset: valueOffset, value: value,
                        byteOrder: byteOrder, names: names)
    }

    private func unsigned(_ bytes: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
        byteOrder.unsigned(bytes, at: at, size: size)
    }
}
