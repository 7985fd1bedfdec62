@_spi(Codec) import PareCore

/// The ancillary chunks ParePNG keeps as metadata (PNG 3rd ed. §11.3; APNG acTL/fcTL/fdAT;
/// eXIf from the PNG Extensions, now §11.3.6.1), with their placement rules (§5.6).
///
/// Like libpng, an ancillary chunk that breaks a rule (bad CRC, out of place, duplicate,
/// wrong length, over the metadata budget) is dropped and reported in `metadata.skipped`
/// (only counted, in `unlistedSkips`, past `maxSkipReports`); only critical chunks can make
/// a file unreadable. Ancillary chunks ParePNG does not use (bKGD, sBIT, hIST, sPLT, tIME,
/// cICP, unknown ones) are passed over.
extension PNGDecoder {
    mutating func readAncillary(_ chunk: ChunkHeader) throws(PNGError) {
        let type = chunk.type
        switch type {
        case ChunkType.fcTL, ChunkType.fdAT:
            try reader.skip(chunk)
            if metadata.animation == nil {
                metadata.report(PNGSkippedChunk(type: chunk.name, offset: chunk.offset,
                                                reason: "APNG frame chunk without acTL"), limit: options.maxSkipReports)
            } else if type == ChunkType.fcTL {
                metadata.animation?.frameControlChunks += 1
            } else {
                metadata.animation?.frameDataChunks += 1
            }
            return
        case ChunkType.gAMA, ChunkType.cHRM, ChunkType.sRGB, ChunkType.iCCP:
            if seenPalette || afterImageData { return try drop(chunk, "must come before PLTE and IDAT") }
        case ChunkType.tRNS:
            if afterImageData { return try drop(chunk, "must come before IDAT") }
            if header.colorType == 3 && !seenPalette { return try drop(chunk, "must come after PLTE") }
        case ChunkType.pHYs, ChunkType.acTL:
            if afterImageData { return try drop(chunk, "must come before IDAT") }
        case ChunkType.eXIf, ChunkType.tEXt, ChunkType.zTXt, ChunkType.iTXt:
            break
        default:
            return try reader.skip(chunk)
        }
        let isText = type == ChunkType.tEXt || type == ChunkType.zTXt || type == ChunkType.iTXt
        if !isText && seen.contains(type) { return try drop(chunk, "duplicate") }
        let expectedLength: Int?
        switch type {
        case ChunkType.gAMA: expectedLength = 4
        case ChunkType.cHRM: expectedLength = 32
        case ChunkType.sRGB: expectedLength = 1
        case ChunkType.pHYs: expectedLength = 9
        case ChunkType.acTL: expectedLength = 8
        case ChunkType.tRNS:
            switch header.colorType {
            case 0: expectedLength = 2
            case 2: expectedLength = 6
            case 3:
                guard chunk.length >= 1 && chunk.length <= metadata.paletteSize else {
                    return try drop(chunk, "\(chunk.length) entries for a palette of \(metadata.paletteSize)")
                }
                expectedLength = nil
            default: return try drop(chunk, "not allowed with an alpha channel")
            }
        default:
            expectedLength = nil
            let overhead = isText ? PNGMetadata.textOverhead : 0
            if chunk.length > options.maxMetadataBytes - metadata.heldBytes - overhead {
                return try drop(chunk, "over the metadata budget")
            }
        }
        if let expectedLength, chunk.length != expectedLength {
            return try drop(chunk, "length \(chunk.length), expected \(expectedLength)")
        }
        let (data, crcMatches) = try reader.readData(chunk)
        guard crcMatches else {
            metadata.report(PNGSkippedChunk(type: chunk.name, offset: chunk.offset, reason: "bad CRC"),
                            limit: options.maxSkipReports)
            return
        }
        seen.insert(type)
        if let reason = interpret(chunk, data) {
            metadata.report(PNGSkippedChunk(type: chunk.name, offset: chunk.offset, reason: reason),
                            limit: options.maxSkipReports)
        }
    }

    private mutating func drop(_ chunk: ChunkHeader, _ reason: String) throws(PNGError) {
        try reader.skip(chunk)
        metadata.report(PNGSkippedChunk(type: chunk.name, offset: chunk.offset, reason: reason),
                        limit: options.maxSkipReports)
    }

    /// Stores a chunk's meaning; returns why it was not kept, if it was not.
    private mutating func interpret(_ chunk: ChunkHeader, _ data: [UInt8]) -> String? {
        func be32(_ i: Int) -> Int {
            Int(data[i]) << 24 | Int(data[i + 1]) << 16 | Int(data[i + 2]) << 8 | Int(data[i + 3])
        }
        func be16(_ i: Int) -> Int { Int(data[i]) << 8 | Int(data[i + 1]) }
        switch chunk.type {
        case ChunkType.gAMA:
            metadata.gamma = be32(0)
        case ChunkType.cHRM:
            metadata.chromaticities = PNGChromaticities(
                whiteX: be32(0), whiteY: be32(4), redX: be32(8), redY: be32(12),
                greenX: be32(16), greenY: be32(20), blueX: be32(24), blueY: be32(28))
        case ChunkType.sRGB:
            guard data[0] <= 3 else { return "rendering intent \(data[0])" }
            metadata.srgbIntent = Int(data[0])
        case ChunkType.pHYs:
            metadata.physical = PNGPhysicalDimensions(pixelsPerUnitX: be32(0), pixelsPerUnitY: be32(4),
                                                      unit: Int(data[8]))
        case ChunkType.acTL:
            metadata.animation = PNGAnimation(frameCount: be32(0), playCount: be32(4))
        case ChunkType.tRNS:
            // §11.3.2.1: below 16 bits only the low bits of each key sample count; decoders
            // mask the others to 0 before using it, so a key of 0x0200 in an 8-bit image is 0.
            let keyMask = (1 << header.bitDepth) - 1
            switch header.colorType {
            case 0: colorKey = [be16(0) & keyMask]
            case 2: colorKey = [be16(0) & keyMask, be16(2) & keyMask, be16(4) & keyMask]
            default:
                for (i, alpha) in data.enumerated() { palette[4 * i + 3] = alpha }
            }
            metadata.hasTransparency = true
        case ChunkType.eXIf:
            metadata.exif = data
            metadata.exifOffset = chunk.dataOffset
            metadata.heldBytes += data.count
        case ChunkType.iCCP:
            guard let (name, rest) = splitKeyword(data), rest.first == 0 else { return "malformed profile name" }
            metadata.iccProfile = PNGICCProfile(name: name, compressed: Array(rest.dropFirst()))
            metadata.heldBytes += rest.count - 1
        case ChunkType.tEXt:
            guard let (keyword, rest) = splitKeyword(data) else { return "malformed keyword" }
            metadata.keep(PNGText(keyword: keyword, value: latin1(rest)))
        case ChunkType.zTXt:
            guard let (keyword, rest) = splitKeyword(data), rest.first == 0 else { return "malformed keyword" }
            switch inflateText(Array(rest.dropFirst()), offset: chunk.dataOffset + keyword.utf8.count + 2) {
            case let .success(bytes): metadata.keep(PNGText(keyword: keyword, value: latin1(bytes[...])))
            case let .failure(error): return "\(error)"
            }
        case ChunkType.iTXt:
            guard let (keyword, rest) = splitKeyword(data), rest.count >= 2 else { return "malformed keyword" }
            let compressed = rest[rest.startIndex] == 1
            guard !compressed || rest[rest.startIndex + 1] == 0 else { return "compression method" }
            let fields = rest.dropFirst(2).split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { return "malformed language tag or translated keyword" }
            var value: [UInt8] = Array(fields[2])
            if compressed {
                let textOffset = chunk.dataOffset + data.count - fields[2].count
                switch inflateText(value, offset: textOffset) {
                case let .success(bytes): value = bytes
                case let .failure(error): return "\(error)"
                }
            }
            metadata.keep(PNGText(keyword: keyword, value: String(decoding: value, as: UTF8.self),
                                          languageTag: latin1(fields[0]),
                                          translatedKeyword: String(decoding: fields[1], as: UTF8.self)))
        default:
            break
        }
        return nil
    }

    /// Inflates a zTXt/iTXt value within what is left of the metadata budget, which also
    /// bounds the bytes inflated for all text chunks together, kept or dropped: otherwise
    /// every zip bomb of a file full of them would inflate to the budget again.
    private mutating func inflateText(_ compressed: [UInt8], offset: Int) -> Result<[UInt8], PNGError> {
        let budget = max(0, options.maxMetadataBytes - max(metadata.heldBytes, inflatedTextBytes))
        do {
            return .success(try Inflater.inflateWhole(compressed, limit: budget, offset: offset, ledger: ledger,
                                                      produced: &inflatedTextBytes))
        } catch {
            return .failure(error)
        }
    }
}

/// §11.3.3: a keyword of 1–79 Latin-1 bytes ended by a null byte; returns it and the rest.
private func splitKeyword(_ data: [UInt8]) -> (String, ArraySlice<UInt8>)? {
    guard let end = data.firstIndex(of: 0), end >= 1, end <= 79 else { return nil }
    return (latin1(data[..<end]), data[(end + 1)...])
}

/// ISO 8859-1 bytes as a string: each byte is the code point of the same value.
private func latin1(_ bytes: ArraySlice<UInt8>) -> String {
    // ASCII, the usual case, is the same in UTF-8 and converts in one pass.
    if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
    var scalars = String.UnicodeScalarView()
    for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
    return String(scalars)
}
