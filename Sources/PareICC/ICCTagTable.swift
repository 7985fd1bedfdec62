/// One entry of the tag table (ICC.1 7.3.2, Table 24): a tag signature and where its data
/// lies in the profile. `type` is the first four bytes of the data, the tag type's
/// signature (clause 10), when the data has them.
public struct ICCTagEntry: Sendable, Equatable {
    public var signature: ICCSignature
    public var offset: Int
    public var size: Int
    public var type: ICCSignature?
}

/// ICC.1 7.3: the tag count at byte 128, then twelve bytes per tag (signature, offset,
/// size). Every tag must lie in the tag data area (after the table, inside the profile);
/// two tags may share the very same bytes (7.3.1 allows it, and profiles do it for three
/// identical TRCs) but may not overlap otherwise.
enum ICCTagTable {
    static let countOffset = ICCHeader.Field.end
    static let entrySize = 12

    static func read(_ bytes: [UInt8], options: ICCOptions) throws(ICCError) -> [ICCTagEntry] {
        let count = Int(readUInt32(bytes, countOffset))
        guard count <= options.maxTags else { throw .tooManyTags(count: count, limit: options.maxTags) }
        let dataStart = countOffset + 4 + count * entrySize
        guard dataStart <= bytes.count else { throw .truncated(size: bytes.count) }
        var entries: [ICCTagEntry] = []
        entries.reserveCapacity(count)
        for index in 0 ..< count {
            let at = countOffset + 4 + index * entrySize
            let signature = ICCSignature(rawValue: readUInt32(bytes, at))
            let offset = Int(readUInt32(bytes, at + 4)), size = Int(readUInt32(bytes, at + 8))
            guard offset >= dataStart, size <= bytes.count - offset else {
                throw .tagOutsideProfile(tag: "\(signature)", offset: offset, size: size, profileSize: bytes.count)
            }
            let type = size >= 4 ? ICCSignature(rawValue: readUInt32(bytes, offset)) : nil
            entries.append(ICCTagEntry(signature: signature, offset: offset, size: size, type: type))
        }
        try checkOverlaps(entries)
        return entries
    }

    /// Sorted by offset, each tag must end before the next begins, unless both are the same
    /// bytes. O(n log n), so a table at `maxTags` costs nothing.
    private static func checkOverlaps(_ entries: [ICCTagEntry]) throws(ICCError) {
        let sorted = entries.sorted { ($0.offset, $0.size) < ($1.offset, $1.size) }
        // Any overlap throws, so the tag reaching furthest is always the one before.
        var previous: ICCTagEntry?
        for entry in sorted where entry.size > 0 {
            if let last = previous {
                if last.offset == entry.offset && last.size == entry.size { continue }
                if entry.offset < last.offset + last.size {
                    throw .overlappingTags(first: "\(last.signature)", second: "\(entry.signature)", offset: entry.offset)
                }
            }
            previous = entry
        }
    }
}
