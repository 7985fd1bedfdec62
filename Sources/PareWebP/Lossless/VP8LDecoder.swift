import PareCore

/// A decoded lossless image: ARGB words, `width` × `height`, of which the first
/// `completeRows` rows were fully in the data (all of them unless it was cut off).
struct LosslessImage {
    var pixels: LedgerBuffer<UInt32>
    var width: Int
    var height: Int
    var completeRows: Int
    /// Where the data ran out, when it did.
    var truncatedAt: Int?
}

/// The lossless bitstream (WebP Lossless Bitstream Specification): the header (§3), the
/// transforms (§4), the main entropy-coded image (§5, `EntropyImageDecoder`), then the
/// transforms undone in reverse order.
enum VP8LDecoder {
    /// §3: the signature byte 0x2F, width − 1 and height − 1 in 14 bits each, the alpha hint
    /// and a 3-bit version that must be 0.
    static func parseHeader(_ bytes: [UInt8], fileOffset: Int) throws(WebPError) -> VP8LInfo {
        guard bytes.count >= 5 else { throw .truncated(what: "VP8L header", offset: fileOffset, needed: 5 - bytes.count) }
        guard bytes[0] == 0x2F else {
            throw .invalidVP8L(offset: fileOffset, reason: "signature \(bytes[0]), expected 47")
        }
        let bits = UInt32(bytes[1]) | UInt32(bytes[2]) << 8 | UInt32(bytes[3]) << 16 | UInt32(bytes[4]) << 24
        let version = Int(bits >> 29)
        guard version == 0 else { throw .invalidVP8L(offset: fileOffset + 4, reason: "version \(version)") }
        return VP8LInfo(width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1,
                        alphaHint: (bits >> 28) & 1 != 0)
    }

    /// Reads a stream held at `data` (`count` bytes from file offset `fileOffset`) up to its
    /// pixels: the header, the transforms, the main image's codes. `hasHeader` is false for
    /// an ALPH chunk's stream, which starts at the transforms.
    // SAFETY: `data` holds `count` bytes, which the bit reader never reads past.
    static func open(data: UnsafePointer<UInt8>, count: Int, fileOffset: Int, width: Int, height: Int,
                     hasHeader: Bool, ledger: MemoryLedger, maxPixels: Int,
                     info: inout VP8LInfo) throws(WebPError) -> LosslessStream {
        var reader = LosslessBitReader(data: data, count: count, fileOffset: fileOffset)
        if hasHeader {
            _ = reader.read(8)
            _ = reader.read(32)
        }
        var images = EntropyImageDecoder(ledger: ledger, maxPixels: maxPixels)
        let (transforms, currentWidth) = try readTransforms(&reader, width: width, height: height, images: &images,
                                                            info: &info)
        let image = try images.readCodes(width: currentWidth, height: height, isMain: true, reader: &reader)
        info.colorCacheBits = images.cacheBits
        info.metaPrefixBits = images.metaBits
        return LosslessStream(reader: reader, transforms: transforms, image: image, width: width)
    }

    /// Decodes a whole stream (see `open`) into one buffer, the transforms undone over all of
    /// it at once: for an alpha plane, which the lossy frame's rows take as they come.
    static func decode(data: UnsafePointer<UInt8>, count: Int, fileOffset: Int, width: Int, height: Int,
                       hasHeader: Bool, ledger: MemoryLedger, maxPixels: Int,
                       info: inout VP8LInfo) throws(WebPError) -> LosslessImage {
        var stream = try open(data: data, count: count, fileOffset: fileOffset, width: width, height: height,
                              hasHeader: hasHeader, ledger: ledger, maxPixels: maxPixels, info: &info)
        try stream.decodePixels()
        var pixels = stream.image.pixels
        let rows = stream.completeRows
        for transform in stream.transforms.reversed() {
            switch transform.kind {
            case .predictor: transform.undoPredictor(pixels.baseAddress, rows: rows)
            case .crossColor: transform.undoCrossColor(pixels.baseAddress, rows: rows)
            case .subtractGreen: transform.undoSubtractGreen(pixels.baseAddress, count: rows * transform.width)
            case .colorIndexing:
                let expanded: LedgerBuffer<UInt32>
                do {
                    expanded = try ledger.allocate(UInt32.self, count: transform.width * height, initialValue: 0)
                } catch { throw .core(error) }
                transform.undoColorIndexing(from: pixels.baseAddress, to: expanded.baseAddress, rows: rows)
                pixels = expanded
            }
        }
        return LosslessImage(pixels: pixels, width: width, height: height, completeRows: rows,
                             truncatedAt: stream.truncatedAt)
    }

    /// §4: the transforms, each at most once, with their data; returns them and the width of
    /// the image the main entropy-coded image holds (narrower after colour indexing bundles
    /// pixels).
    static func readTransforms(_ reader: inout LosslessBitReader, width: Int, height: Int,
                               images: inout EntropyImageDecoder,
                               info: inout VP8LInfo) throws(WebPError) -> ([LosslessTransform], Int) {
        var transforms: [LosslessTransform] = []
        var seen = 0
        var currentWidth = width
        info.transformKinds = []
        info.transformParameters = []
        while reader.flag() {
            let at = reader.offset
            let kind = VP8LTransformKind(rawValue: reader.read(2))!
            guard seen & (1 << kind.rawValue) == 0 else {
                throw .invalidVP8L(offset: at, reason: "transform \(kind.rawValue) appears twice")
            }
            seen |= 1 << kind.rawValue
            var transform = LosslessTransform(kind: kind, width: currentWidth, bits: 0)
            switch kind {
            case .predictor, .crossColor:
                transform.bits = reader.read(3) + 2
                let w = (currentWidth + (1 << transform.bits) - 1) >> transform.bits
                let h = (height + (1 << transform.bits) - 1) >> transform.bits
                let (image, decoded) = try images.decode(width: w, height: h, isMain: false, reader: &reader)
                if decoded < w * h { throw .truncated(what: "VP8L transform data", offset: reader.offset, needed: 1) }
                transform.data = image
                info.transformParameters.append(transform.bits)
            case .subtractGreen:
                info.transformParameters.append(0)
            case .colorIndexing:
                let colours = reader.read(8) + 1
                transform.bits = colours > 16 ? 0 : colours > 4 ? 1 : colours > 2 ? 2 : 3
                let (palette, decoded) = try images.decode(width: colours, height: 1, isMain: false, reader: &reader)
                if decoded < colours { throw .truncated(what: "VP8L palette", offset: reader.offset, needed: 1) }
                for i in 1 ..< max(colours, 1) { palette[i] = LosslessTransform.addPixels(palette[i], palette[i - 1]) }
                transform.data = palette
                transform.paletteSize = colours
                currentWidth = (currentWidth + (1 << transform.bits) - 1) >> transform.bits
                info.transformParameters.append(colours)
            }
            info.transformKinds.append(kind)
            transforms.append(transform)
            if reader.overrun { throw .truncated(what: "VP8L transforms", offset: reader.offset, needed: 1) }
        }
        return (transforms, currentWidth)
    }

    /// The header facts of a stream without its pixels: the transforms (whose data is read
    /// and dropped) and the main image's colour cache and meta prefix code bits.
    static func scan(data: UnsafePointer<UInt8>, count: Int, fileOffset: Int, ledger: MemoryLedger, maxPixels: Int,
                     info: inout VP8LInfo) throws(WebPError) {
        var reader = LosslessBitReader(data: data, count: count, fileOffset: fileOffset)
        _ = reader.read(8)
        _ = reader.read(32)
        var images = EntropyImageDecoder(ledger: ledger, maxPixels: maxPixels)
        _ = try readTransforms(&reader, width: info.width, height: info.height, images: &images, info: &info)
        info.colorCacheBits = reader.flag() ? reader.read(4) : 0
        info.metaPrefixBits = reader.flag() ? reader.read(3) + 2 : 0
    }
}

/// A lossless stream read up to the main image's pixels (`VP8LDecoder.open`).
struct LosslessStream {
    var reader: LosslessBitReader
    let transforms: [LosslessTransform]
    var image: CodedImage
    /// The picture's width (the entropy-coded image's is `image.width`).
    let width: Int
    /// Pixels decoded, once `decodePixels` has returned.
    var decoded = 0

    /// Decodes the main image's pixels; `rowsDone` is told each time another
    /// `reportEvery` rows are whole (`EntropyImageDecoder.decodePixels`).
    mutating func decodePixels(reportEvery: Int = Int.max,
                               rowsDone: (Int) throws(WebPError) -> Void = { _ in }) throws(WebPError) {
        decoded = try EntropyImageDecoder.decodePixels(&image, reader: &reader, reportEvery: reportEvery,
                                                       rowsDone: rowsDone)
    }

    /// Where the data ran out, when it ran out before the last pixel.
    var truncatedAt: Int? {
        reader.overrun || decoded < image.width * image.height ? reader.offset : nil
    }

    /// Rows whole once `decodePixels` has returned: all of them unless the data ran out.
    var completeRows: Int { truncatedAt == nil ? image.height : decoded / max(image.width, 1) }
}
