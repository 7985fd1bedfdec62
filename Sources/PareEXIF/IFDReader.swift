import PareCore

/// A TIFF block inside a byte source: where its header is, how far it reaches, and which
/// absolute file offset its header has, so that every offset reported is absolute.
struct TIFFBlock<Source: ByteSource> {
    let source: Source
    /// The header's position in `source`.
    let start: Int
    /// Bytes from the header to the end of the block.
    let count: Int
    /// The header's absolute offset in the file.
    let absoluteBase: Int

    /// True when `length` bytes at header-relative `offset` lie inside the block; computed
    /// in 64 bits because a 32-bit offset plus a count overflows a 32-bit Int.
    func contains(_ offset: UInt64, length: UInt64) -> Bool {
        offset <= UInt64(count) && length <= UInt64(count) - offset
    }

    func absolute(_ offset: Int) -> Int { absoluteBase + offset }

    /// The absolute offset of a raw pointer that may lie anywhere, saturating instead of
    /// overflowing (it is only reported, never read).
    func absolute(pointer: UInt32) -> Int {
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

/// Reads a TIFF header and walks IFDs (TIFF 6.0 §2, "Image File Directory"): every
/// pointer is checked against the block, each IFD is read once (loops are reported), and
/// the IFD count, entries per IFD and copied value bytes are limited by `EXIFOptions`.
struct IFDReader<Source: ByteSource> {
    let block: TIFFBlock<Source>
    let options: EXIFOptions
    private(set) var byteOrder: ByteOrder = .bigEndian
    private(set) var warnings: [EXIFError] = []
    private var visited: [UInt32] = []
    private var valueBytes = 0

    init(block: TIFFBlock<Source>, options: EXIFOptions) {
        self.block = block
        self.options = options
    }

    /// Keeps `warning` unless `options.maxWarnings` are already kept: a block of damaged
    /// entries would otherwise hold one per entry of every IFD.
    mutating func warn(_ warning: EXIFError) {
        guard warnings.count < options.maxWarnings else { return }
        warnings.append(warning)
    }

    /// The header (byte order, 42, offset of IFD0); returns IFD0's offset.
    mutating func readHeader() throws(EXIFError) -> UInt32 {
        let header = try block.bytes(at: 0, count: min(8, block.count))
        guard header.count >= 2 else { throw .core(.outOfBounds(offset: block.absoluteBase, needed: 8, available: header.count)) }
        switch (header[0], header[1]) {
        case (0x49, 0x49): byteOrder = .littleEndian
        case (0x4D, 0x4D): byteOrder = .bigEndian
        default: throw .notTIFF(offset: block.absoluteBase)
        }
        guard header.count >= 4 else { throw .core(.outOfBounds(offset: block.absoluteBase, needed: 8, available: header.count)) }
        let magic = word(header, 2)
        if magic == 43 { throw .unsupportedBigTIFF(offset: block.absoluteBase) }
        guard magic == 42 else { throw .badMagic(offset: block.absoluteBase + 2, value: Int(magic)) }
        guard header.count >= 8 else { throw .core(.outOfBounds(offset: block.absoluteBase, needed: 8, available: header.count)) }
        return longWord(header, 4)
    }

    /// Reads the IFD at header-relative `offset`. A table that does not fit in the block is
    /// an error; entries after one whose value points outside the block are dropped with a
    /// warning; values over the size limits are kept as entries without a value.
    mutating func readIFD(at offset: UInt32, name: String) throws(EXIFError) -> IFD {
        let absolute = block.absolute(pointer: offset)
        if visited.contains(offset) { throw .ifdLoop(ifd: name, offset: absolute) }
        guard visited.count < options.maxIFDs else { throw .tooManyIFDs(offset: absolute, limit: options.maxIFDs) }
        guard block.contains(UInt64(offset), length: 2) else { throw .ifdOutOfBounds(ifd: name, offset: absolute) }
        visited.append(offset)
        let start = Int(offset)
        let declared = Int(word(try block.bytes(at: start, count: 2), 0))
        guard declared <= options.maxEntriesPerIFD else {
            throw .tooManyEntries(ifd: name, offset: absolute, count: declared, limit: options.maxEntriesPerIFD)
        }
        // A table that runs past the block means the count is garbage: trust none of it.
        let fitting = min(declared, (block.count - start - 2) / 12)
        guard fitting == declared else {
            throw .truncatedIFD(ifd: name, offset: absolute, declared: declared, read: fitting)
        }
        let table = try block.bytes(at: start + 2, count: declared * 12)
        var entries: [IFDEntry] = []
        entries.reserveCapacity(declared)
        for index in 0 ..< declared {
            let (entry, trusted) = readEntry(table, index * 12, entryOffset: start + 2 + index * 12, ifd: name)
            // A value pointing outside the block marks the table as corrupt from there on
            // (ExifTool stops at the same place), so later entries are dropped.
            guard trusted else {
                warn(.truncatedIFD(ifd: name, offset: absolute, declared: declared, read: index))
                break
            }
            entries.append(entry)
        }
        var next: UInt32 = 0
        let nextAt = start + 2 + declared * 12
        if block.contains(UInt64(nextAt), length: 4) {
            next = longWord(try block.bytes(at: nextAt, count: 4), 0)
        }
        return IFD(name: name, offset: absolute, entries: entries, nextIFD: next)
    }

    /// The entry, and false when its value lies outside the block.
    private mutating func readEntry(_ table: [UInt8], _ at: Int, entryOffset: Int, ifd: String) -> (IFDEntry, Bool) {
        let tag = word(table, at), type = word(table, at + 2), count = longWord(table, at + 4)
        let absoluteEntry = block.absolute(entryOffset)
        let name = TagNames.name(for: tag, in: ifd)
        func entry(_ valueOffset: Int, _ value: [UInt8]?) -> IFDEntry {
            IFDEntry(tag: tag, type: type, count: count, valueOffset: valueOffset, value: value,
                     byteOrder: byteOrder, name: name)
        }
        guard let fieldType = TIFFFieldType(rawValue: type) else {
            warn(.unknownFieldType(ifd: ifd, tag: tag, offset: absoluteEntry, type: type))
            return (entry(block.absolute(entryOffset + 8), nil), true)
        }
        let byteCount = UInt64(count) * UInt64(fieldType.size)
        if byteCount <= 4 {
            let inline = Array(table[at + 8 ..< at + 8 + Int(byteCount)])
            return (entry(block.absolute(entryOffset + 8), inline), true)
        }
        let pointer = longWord(table, at + 8)
        let valueOffset = block.absolute(pointer: pointer)
        // A size no TIFF can hold is a damaged count, not a damaged table: skip just it.
        guard byteCount <= UInt64(Int32.max) else {
            warn(.valueTooLarge(ifd: ifd, tag: tag, offset: absoluteEntry, limit: options.maxValueBytes))
            return (entry(valueOffset, nil), true)
        }
        guard block.contains(UInt64(pointer), length: byteCount) else {
            warn(.valueOutOfBounds(ifd: ifd, tag: tag, offset: absoluteEntry))
            return (entry(valueOffset, nil), false)
        }
        let length = Int(byteCount)
        guard length <= options.maxValueBytes, length <= options.maxTotalValueBytes - valueBytes else {
            warn(.valueTooLarge(ifd: ifd, tag: tag, offset: absoluteEntry,
                                limit: min(options.maxValueBytes, options.maxTotalValueBytes - valueBytes)))
            return (entry(valueOffset, nil), true)
        }
        do {
            let value = try block.bytes(at: Int(pointer), count: length)
            valueBytes += length
            return (entry(valueOffset, value), true)
        } catch {
            warn(error)
            return (entry(valueOffset, nil), true)
        }
    }

    private func word(_ bytes: [UInt8], _ at: Int) -> UInt16 {
        let a = UInt16(bytes[at]), b = UInt16(bytes[at + 1])
        return byteOrder == .bigEndian ? a << 8 | b : b << 8 | a
    }

    private func longWord(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        let a = UInt32(word(bytes, at)), b = UInt32(word(bytes, at + 2))
        return byteOrder == .bigEndian ? a << 16 | b : b << 16 | a
    }
}
