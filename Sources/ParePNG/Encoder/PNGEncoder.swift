import PareCore
import CZlib

/// Writes an `Image` as a PNG (PNG 3rd ed.): IHDR, the image data in IDAT chunks of at
/// most 64 KiB, IEND. Non-interlaced, filter method 0 with a filter chosen per row by the
/// minimum sum of absolute differences (§12.7), deflated by zlib at `compressionLevel`.
/// Gray, gray+alpha, RGB and RGBA at 8 or 16 bits map to colour types 0, 4, 2 and 6.
/// Before the image data it can write the colour chunks: iCCP with a profile carried byte
/// for byte, or sRGB.
public struct PNGEncoder {
    /// zlib's level: 0 (store) to 9 (smallest), or -1 for zlib's default.
    public var compressionLevel = 6
    /// An ICC profile to embed as iCCP (§11.3.2.3) under the name "ICC profile"; the
    /// profile is compressed, never altered.
    public var iccProfile: [UInt8]?
    /// Writes an sRGB chunk (§11.3.2.5) with this rendering intent (0–3) when set and there
    /// is no `iccProfile` (the two exclude each other).
    public var srgbIntent: UInt8?
    /// Counts the encoder's working buffers and zlib's state.
    public let ledger: MemoryLedger

    public init(ledger: MemoryLedger = MemoryLedger(), compressionLevel: Int = 6) {
        self.ledger = ledger
        self.compressionLevel = compressionLevel
    }

    /// The image's PNG file.
    public func encode(_ image: Image) throws(PNGError) -> [UInt8] {
        let colorType: UInt8
        switch image.format {
        case .gray8, .gray16: colorType = 0
        case .grayAlpha8, .grayAlpha16: colorType = 4
        case .rgb8, .rgb16: colorType = 2
        case .rgba8, .rgba16: colorType = 6
        case .cmyk8: throw .unsupportedEncoding(reason: "CMYK pixels (PNG has no ink colour type)")
        }
        guard image.width > 0, image.height > 0,
              image.width <= Int(Int32.max), image.height <= Int(Int32.max) else {
            throw .unsupportedEncoding(reason: "size \(image.width)x\(image.height)")
        }
        let deflater = try Deflater(level: compressionLevel, ledger: ledger)
        let rowBytes = image.width * image.format.bytesPerPixel
        let bpp = image.format.bytesPerPixel
        let candidates: LedgerBuffer<UInt8>, zeros: LedgerBuffer<UInt8>, output: LedgerBuffer<UInt8>
        do {
            // Five filtered versions of the row, each behind its filter-type byte.
            candidates = try ledger.allocate(UInt8.self, count: 5 * (rowBytes + 1), initialValue: 0)
            zeros = try ledger.allocate(UInt8.self, count: rowBytes, initialValue: 0)
            output = try ledger.allocate(UInt8.self, count: 64 * 1024, initialValue: 0)
        } catch {
            throw .core(error)
        }

        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = bigEndian(UInt32(image.width)) + bigEndian(UInt32(image.height))
        header += [UInt8(image.format.bytesPerSample * 8), colorType, 0, 0, 0]
        appendChunk(&file, type: ChunkType.IHDR, header[...])
        if let iccProfile {
            appendChunk(&file, type: ChunkType.iCCP, try iccpData(iccProfile)[...])
        } else if let srgbIntent {
            appendChunk(&file, type: ChunkType.sRGB, [min(srgbIntent, 3)][...])
        }
        let emit = { (data: UnsafeBufferPointer<UInt8>) in appendChunk(&file, type: ChunkType.IDAT, data) }

        try image.withUnsafePixels { (pixels) throws(PNGError) in
            // SAFETY: pixels holds height rows of rowBytes bytes (Image's layout), so rows y − 1
            // and y lie inside it for every y below.
            let base = pixels.baseAddress!
            for y in 0 ..< image.height {
                let raw = base + y * rowBytes
                let previous = y > 0 ? base + (y - 1) * rowBytes : UnsafePointer(zeros.baseAddress)
                var best = 0, bestSum = Int.max
                for type in 0 ..< 5 {
                    let slot = candidates.baseAddress + type * (rowBytes + 1)
                    slot[0] = UInt8(type)
                    let sum = ScanlineFilter.filter(UInt8(type), raw: raw, previous: previous, output: slot + 1,
                                                    count: rowBytes, bpp: bpp)
                    if sum < bestSum {
                        best = type
                        bestSum = sum
                    }
                }
                try deflater.deflate(candidates.baseAddress + best * (rowBytes + 1), count: rowBytes + 1, finish: false,
                                     output: output, emit: emit)
            }
        }
        try deflater.deflate(nil, count: 0, finish: true, output: output, emit: emit)
        appendChunk(&file, type: ChunkType.IEND, [][...])
        return file
    }
}

extension PNGEncoder {
    /// The profile name, a null, compression method 0, then the zlib stream of the profile.
    func iccpData(_ profile: [UInt8]) throws(PNGError) -> [UInt8] {
        var data: [UInt8] = Array("ICC profile".utf8) + [0, 0]
        let deflater = try Deflater(level: 9, ledger: ledger)
        let output: LedgerBuffer<UInt8>
        do {
            output = try ledger.allocate(UInt8.self, count: 64 * 1024, initialValue: 0)
        } catch {
            throw .core(error)
        }
        let emit = { (piece: UnsafeBufferPointer<UInt8>) in data += piece }
        try profile.withUnsafeBufferPointer { (bytes) throws(PNGError) in
            try deflater.deflate(bytes.baseAddress, count: bytes.count, finish: true, output: output, emit: emit)
        }
        return data
    }
}

private func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
     UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
}

/// §5.3: length, type, data, CRC-32 of type and data.
private func appendChunk<Data: Collection<UInt8>>(_ file: inout [UInt8], type: UInt32, _ data: Data) {
    let bytes = Array(data)
    file += bigEndian(UInt32(bytes.count))
    let typeBytes = bigEndian(type)
    file += typeBytes
    file += bytes
    var crc = crc32(crc32(0, nil, 0), typeBytes, 4)
    crc = crc32(crc, bytes, uInt(bytes.count))
    file += bigEndian(UInt32(truncatingIfNeeded: crc))
}
