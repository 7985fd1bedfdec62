import PareCore

/// What can be wrong with an ICC profile (ICC.1:2022) or with the JPEG APP2 chunks that
/// carry one (ICC.1 Annex B.4). Every case names the byte offset inside the profile (or,
/// for chunks, in the file) and the limit or rule it broke. `description` is one line.
public enum ICCError: Error, Equatable, Sendable {
    /// The profile is shorter than its 128-byte header plus the tag count (ICC.1 7.2, 7.3).
    case truncated(size: Int)
    /// Header bytes 36–39 are not "acsp" (ICC.1 7.2.9).
    case badSignature
    /// The header's size field disagrees with the bytes at hand (ICC.1 7.2.2).
    case sizeMismatch(declared: Int, actual: Int)
    /// A profile longer than `ICCOptions.maxProfileBytes`.
    case profileTooLarge(size: Int, limit: Int)
    /// More tags than `ICCOptions.maxTags`.
    case tooManyTags(count: Int, limit: Int)
    /// The tag at table index `index` points outside the profile (ICC.1 7.3.1).
    case tagOutsideProfile(tag: String, offset: Int, size: Int, profileSize: Int)
    /// Two tags' data partly overlap (sharing the same bytes exactly is allowed, 7.3.1).
    case overlappingTags(first: String, second: String, offset: Int)
    /// A tag's data has a type this tag may not have (ICC.1 9.2).
    case wrongTagType(tag: String, type: String, offset: Int)
    /// A tag's data is shorter than its type needs.
    case tagTooShort(tag: String, offset: Int, needed: Int, size: Int)
    /// A count inside a tag (curve points, text length, records) above its limit.
    case countTooLarge(tag: String, offset: Int, count: Int, limit: Int)
    /// An s15Fixed16 value whose magnitude is above `ICCOptions.maxFixedMagnitude`, or a
    /// parameter that makes a curve undefined (a `para` with a = 0, a gamma ≤ 0).
    case absurdValue(tag: String, offset: Int, raw: Int32)
    /// A parametric curve function type outside 0…4 (ICC.1 10.18, Table 68).
    case unknownFunctionType(tag: String, offset: Int, type: Int)
    /// JPEG APP2 chunks (ICC.1 B.4): the chunk at `offset` is numbered `sequence` of
    /// `count`, which breaks the rules named by `problem`. A warning: the profile is then
    /// assembled from what is consistent, or dropped.
    case chunk(offset: Int, sequence: Int, count: Int, problem: ChunkProblem)
    /// The chunks do not give a whole profile: chunk `sequence` of `count` never came.
    case missingChunk(sequence: Int, count: Int)
    /// A LUT tag (lut8Type ICC.1 10.9, lut16Type 10.8, lutAToBType 10.12) whose structure
    /// cannot describe a transform: `problem` says what, `offset` where.
    case malformedLUT(tag: String, offset: Int, problem: LUTProblem)
    /// A failure from PareCore (reading the source, a memory limit).
    case core(CoreError)

    /// How a LUT tag breaks ICC.1 10.8, 10.9 or 10.12.
    public enum LUTProblem: Sendable, Equatable {
        /// Input or output channels that do not fit the profile's colour space and its PCS
        /// (an A2Bx tag of a CMYK profile has 4 inputs and 3 outputs).
        case channels(inputs: Int, outputs: Int)
        /// A CLUT dimension with fewer than two grid points: nothing to interpolate between.
        case gridPoints(Int)
        /// A lut16Type table with entries outside 2…4096 (10.8).
        case tableEntries(Int)
        /// A lutAToBType CLUT precision other than 1 or 2 bytes (10.12.3).
        case precision(Int)
        /// A lutAToBType element combination 10.12.1 does not allow (a CLUT without A
        /// curves, a matrix without M curves, no B curves).
        case elements
        /// An element offset not on a four-byte boundary, or inside the tag's header (10.12.1).
        case elementOffset(Int)
    }

    /// How one JPEG APP2 ICC_PROFILE chunk breaks ICC.1 B.4.
    public enum ChunkProblem: Sendable, Equatable {
        /// Sequence number 0, or above the count.
        case sequenceOutOfRange
        /// The count differs from the first chunk's.
        case countDisagrees
        /// A second chunk with the same sequence number (the first is kept).
        case repeated
        /// The chunk comes before one with a lower sequence number (it is used in its place).
        case outOfOrder
        /// The chunk has no room for its sequence and count bytes.
        case tooShort
    }
}

extension ICCError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .truncated(size):
            return "ICC: profile of \(size) bytes is shorter than its header and tag count"
        case .badSignature:
            return "ICC: no 'acsp' profile signature at byte 36"
        case let .sizeMismatch(declared, actual):
            return "ICC: header says \(declared) bytes, profile has \(actual) at byte 0"
        case let .profileTooLarge(size, limit):
            return "ICC: profile of \(size) bytes is over the limit of \(limit) (maxProfileBytes)"
        case let .tooManyTags(count, limit):
            return "ICC: \(count) tags, over the limit of \(limit) (maxTags) at byte 128"
        case let .tagOutsideProfile(tag, offset, size, profileSize):
            return "ICC: tag '\(tag)' of \(size) bytes lies outside the profile of \(profileSize) bytes at byte \(offset)"
        case let .overlappingTags(first, second, offset):
            return "ICC: tags '\(first)' and '\(second)' overlap at byte \(offset)"
        case let .wrongTagType(tag, type, offset):
            return "ICC: tag '\(tag)' has type '\(type)', not allowed for it, at byte \(offset)"
        case let .tagTooShort(tag, offset, needed, size):
            return "ICC: tag '\(tag)' has \(size) bytes, needs \(needed), at byte \(offset)"
        case let .countTooLarge(tag, offset, count, limit):
            return "ICC: tag '\(tag)' counts \(count), over the limit of \(limit), at byte \(offset)"
        case let .absurdValue(tag, offset, raw):
            return "ICC: tag '\(tag)' holds an unusable value (s15Fixed16 \(raw)/65536) at byte \(offset)"
        case let .unknownFunctionType(tag, offset, type):
            return "ICC: tag '\(tag)' has parametric function type \(type) (0-4 exist) at byte \(offset)"
        case let .chunk(offset, sequence, count, problem):
            let what: String
            switch problem {
            case .sequenceOutOfRange: what = "sequence number out of range"
            case .countDisagrees: what = "chunk count differs from the first chunk's"
            case .repeated: what = "repeated chunk (the first is kept)"
            case .outOfOrder: what = "chunk out of order"
            case .tooShort: what = "chunk too short"
            }
            return "ICC: APP2 chunk \(sequence) of \(count): \(what) at byte \(offset)"
        case let .missingChunk(sequence, count):
            return "ICC: APP2 chunk \(sequence) of \(count) is missing; profile dropped"
        case let .malformedLUT(tag, offset, problem):
            let what: String
            switch problem {
            case let .channels(inputs, outputs): what = "\(inputs) inputs and \(outputs) outputs do not fit the profile"
            case let .gridPoints(points): what = "CLUT dimension of \(points) grid points (2 or more needed)"
            case let .tableEntries(entries): what = "\(entries) table entries (2-4096 allowed)"
            case let .precision(bytes): what = "CLUT precision of \(bytes) bytes (1 or 2 allowed)"
            case .elements: what = "an element combination lutAToBType does not allow"
            case let .elementOffset(at): what = "element offset \(at) unaligned or inside the header"
            }
            return "ICC: tag '\(tag)': \(what) at byte \(offset)"
        case let .core(error):
            return "ICC: \(error.description)"
        }
    }
}
