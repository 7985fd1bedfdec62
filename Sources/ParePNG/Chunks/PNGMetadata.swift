@_spi(Codec) import PareCore

/// The fields of IHDR (PNG 3rd ed. §11.2.1).
public struct PNGHeader: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Bits per sample (per palette index for colour type 3): 1, 2, 4, 8 or 16.
    public var bitDepth: Int
    /// 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA.
    public var colorType: Int
    /// True for Adam7 interlacing (interlace method 1).
    public var interlaced: Bool

    /// Samples per pixel as stored.
    public var channels: Int {
        switch colorType {
        case 2: return 3
        case 4: return 2
        case 6: return 4
        default: return 1
        }
    }

    /// Bits per stored pixel.
    public var bitsPerPixel: Int { channels * bitDepth }
}

/// White point and primaries from cHRM (§11.3.2.1), in units of 1/100000.
public struct PNGChromaticities: Sendable, Equatable {
    public var whiteX: Int, whiteY: Int, redX: Int, redY: Int
    public var greenX: Int, greenY: Int, blueX: Int, blueY: Int
}

/// pHYs (§11.3.4.3): pixels per unit along x and y; `unit` 1 is the metre, 0 means only
/// the aspect ratio is known.
public struct PNGPhysicalDimensions: Sendable, Equatable {
    public var pixelsPerUnitX: Int
    public var pixelsPerUnitY: Int
    public var unit: Int
}

/// A tEXt, zTXt or iTXt entry (§11.3.3). zTXt and compressed iTXt values are inflated when
/// read, within `PNGOptions.maxMetadataBytes`.
public struct PNGText: Sendable, Equatable {
    public var keyword: String
    public var value: String
    /// iTXt only: the language tag and the translated keyword.
    public var languageTag: String = ""
    public var translatedKeyword: String = ""
}

/// An embedded ICC profile (iCCP, §11.3.2.3), kept compressed until someone asks for it.
public struct PNGICCProfile: Sendable, Equatable {
    public var name: String
    /// The zlib stream as stored in the chunk.
    public var compressed: [UInt8]

    /// The profile's bytes, inflated into at most `limit` bytes.
    public func inflated(limit: Int, ledger: MemoryLedger) throws(PNGError) -> [UInt8] {
        var produced = 0
        return try Inflater.inflateWhole(compressed, limit: limit, offset: 0, ledger: ledger, produced: &produced)
    }
}

/// APNG's animation control (acTL) and what the decoder ignored of it: the default image
/// (IDAT) is what `decode` returns; frames are counted, never decoded.
public struct PNGAnimation: Sendable, Equatable {
    public var frameCount: Int
    public var playCount: Int
    /// fcTL and fdAT chunks seen (fdAT only counts once `decode` has read past IDAT).
    public var frameControlChunks: Int = 0
    public var frameDataChunks: Int = 0
}

/// An ancillary chunk the decoder did not keep, and why (a bad CRC, out of place, a
/// duplicate, malformed, over the metadata budget, or an APNG frame chunk).
public struct PNGSkippedChunk: Sendable, Equatable {
    public var type: String
    public var offset: Int
    public var reason: String
}

/// What the ancillary chunks say (§11.3). Nothing here is applied to the pixels except
/// tRNS, which becomes alpha.
public struct PNGMetadata: Sendable {
    /// The eXIf payload (a TIFF header and IFDs, for PareEXIF) and where it starts in the file.
    public var exif: [UInt8]?
    public var exifOffset: Int?
    /// gAMA, in units of 1/100000.
    public var gamma: Int?
    public var chromaticities: PNGChromaticities?
    /// sRGB rendering intent (0–3).
    public var srgbIntent: Int?
    public var iccProfile: PNGICCProfile?
    public var physical: PNGPhysicalDimensions?
    public var texts: [PNGText] = []
    public var animation: PNGAnimation?
    /// PLTE entries, 0 without PLTE.
    public var paletteSize: Int = 0
    /// True when a tRNS chunk was accepted (it becomes alpha in the output).
    public var hasTransparency: Bool = false
    /// Ancillary chunks that were dropped, the first `PNGOptions.maxSkipReports` of them.
    public var skipped: [PNGSkippedChunk] = []
    /// Dropped chunks past `PNGOptions.maxSkipReports`, counted but not listed.
    public var unlistedSkips = 0

    public init() {}

    /// Bytes of metadata held, against `PNGOptions.maxMetadataBytes`: kept as a running
    /// total because summing the texts for every new chunk made many small ones quadratic.
    var heldBytes = 0

    /// What a kept text holds beyond its bytes (its entry), counted so that a file of
    /// empty texts cannot hold more memory than the budget says.
    static var textOverhead: Int { MemoryLayout<PNGText>.stride }

    mutating func keep(_ text: PNGText) {
        texts.append(text)
        heldBytes += Self.textOverhead + text.keyword.utf8.count + text.value.utf8.count
    }

    /// Lists a dropped chunk, or only counts it once the list is `limit` long: a file of
    /// broken chunks must not grow the list with its length.
    mutating func report(_ skip: PNGSkippedChunk, limit: Int) {
        if skipped.count < limit {
            skipped.append(skip)
        } else {
            unlistedSkips += 1
        }
    }
}
