import PareCore

/// Where one APP2 segment's payload lies in the file: `offset` is just after the length
/// field, `length` counts the "ICC_PROFILE\0" identifier, the two numbering bytes and the data.
public struct ICCChunkLocation: Sendable, Equatable {
    public var offset: Int
    public var length: Int

    public init(offset: Int, length: Int) {
        self.offset = offset
        self.length = length
    }
}

/// ICC.1 Annex B.4: a profile too long for one JPEG marker segment is cut into APP2
/// segments, each "ICC_PROFILE\0", a sequence number (from 1), the number of chunks, then
/// the bytes. The chunks are joined in sequence order; what breaks the rules becomes a
/// warning, never a trap: a chunk numbered 0 or past the count, disagreeing with the first
/// chunk's count, or repeating a number is left out; one out of order is used in its place;
/// a missing one drops the profile.
public enum ICCChunkAssembler {
    /// "ICC_PROFILE" and a null byte.
    public static let identifier: [UInt8] = [0x49, 0x43, 0x43, 0x5F, 0x50, 0x52, 0x4F, 0x46, 0x49, 0x4C, 0x45, 0]
    /// The identifier, then the sequence number and the count.
    static let chunkHeaderSize = 14

    /// The profile's bytes (nil when the chunks do not make one) and the warnings.
    public static func assemble<Source: ByteSource>(_ chunks: [ICCChunkLocation], in source: Source,
                                                    options: ICCOptions = ICCOptions()) -> (bytes: [UInt8]?, warnings: [ICCError]) {
        var warnings: [ICCError] = []
        // Indexed by sequence number, which is one byte.
        var pieces = [[UInt8]?](repeating: nil, count: 256)
        var expected: Int?
        var highest = 0, total = 0
        for chunk in chunks.prefix(options.maxChunks) {
            guard chunk.length >= chunkHeaderSize else {
                warnings.append(.chunk(offset: chunk.offset, sequence: 0, count: 0, problem: .tooShort))
                continue
            }
            let numbers: [UInt8]
            do {
                numbers = try source.bytes(at: chunk.offset + identifier.count, count: 2)
            } catch {
                warnings.append(.core(error))
                continue
            }
            let sequence = Int(numbers[0]), count = Int(numbers[1])
            func warn(_ problem: ICCError.ChunkProblem) {
                warnings.append(.chunk(offset: chunk.offset, sequence: sequence, count: count, problem: problem))
            }
            guard sequence >= 1, sequence <= count else {
                warn(.sequenceOutOfRange)
                continue
            }
            if let expected, expected != count {
                warn(.countDisagrees)
                continue
            }
            expected = count
            guard pieces[sequence] == nil else {
                warn(.repeated)
                continue
            }
            if sequence < highest { warn(.outOfOrder) }
            highest = max(highest, sequence)
            let length = chunk.length - chunkHeaderSize
            guard length <= options.maxProfileBytes - total else {
                warnings.append(.profileTooLarge(size: total + length, limit: options.maxProfileBytes))
                return (nil, warnings)
            }
            do {
                pieces[sequence] = try source.bytes(at: chunk.offset + chunkHeaderSize, count: length)
            } catch {
                warnings.append(.core(error))
                return (nil, warnings)
            }
            total += length
        }
        guard let count = expected else { return (nil, warnings) }
        var profile: [UInt8] = []
        profile.reserveCapacity(total)
        for sequence in 1 ... count {
            guard let piece = pieces[sequence] else {
                warnings.append(.missingChunk(sequence: sequence, count: count))
                return (nil, warnings)
            }
            profile += piece
        }
        return (profile, warnings)
    }
}
