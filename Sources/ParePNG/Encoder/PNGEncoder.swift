import PareCore
import CZlib

/// How much work the PNG encoder spends for a smaller file.
///
/// Each writes a standard PNG any decoder reads; they differ in the filter chosen per row
/// (§12.7) and in the deflate stream. Benchmarks/README.md has each one's time and size.
public enum PNGCompression: String, Sendable, CaseIterable {
    /// The Up filter on every row, and `RunLengthDeflater` (Huffman codes and runs, no
    /// string matching): the fastest, a few percent larger than `default` on photographs.
    case fast
    /// The filter of least sum of magnitudes per row, and `RunLengthDeflater`. On filtered
    /// photographs it gives a smaller file than zlib at any level, in a fraction of the
    /// time; on drawings with repeated patterns zlib's string matching does better (`small`).
    case `default`
    /// The filter of least sum per row, deflated both by zlib at level 9 and as `default`
    /// does; the smaller stream is kept. About zlib's time plus `default`'s.
    case small
}

/// Writes an `Image` as a PNG (PNG 3rd ed.): IHDR, the image data in IDAT chunks of at
/// most 64 KiB, IEND. Non-interlaced, filter method 0 with a filter per row and a deflate
/// stream as `compression` says. Gray, gray+alpha, RGB and RGBA at 8 or 16 bits map to
/// colour types 0, 4, 2 and 6. Before the image data it can write the colour chunks: iCCP
/// with a profile carried byte for byte, or sRGB.
public struct PNGEncoder {
    /// How hard to work for a smaller file.
    public var compression: PNGCompression
    /// An ICC profile to embed as iCCP (§11.3.2.3) under the name "ICC profile"; the
    /// profile is compressed, never altered.
    public var iccProfile: [UInt8]?
    /// Writes an sRGB chunk (§11.3.2.5) with this rendering intent (0–3) when set and there
    /// is no `iccProfile` (the two exclude each other).
    public var srgbIntent: UInt8?
    /// Counts the encoder's working buffers and zlib's state.
    public let ledger: MemoryLedger

    public init(ledger: MemoryLedger = MemoryLedger(), compression: PNGCompression = .default) {
        self.ledger = ledger
        self.compression = compression
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
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = bigEndian(UInt32(image.width)) + bigEndian(UInt32(image.height))
        header += [UInt8(image.format.bytesPerSample * 8), colorType, 0, 0, 0]
        appendChunk(&file, type: ChunkType.IHDR, header[...])
        if let iccProfile {
            appendChunk(&file, type: ChunkType.iCCP, try iccpData(iccProfile)[...])
        } else if let srgbIntent {
            appendChunk(&file, type: ChunkType.sRGB, [min(srgbIntent, 3)][...])
        }
        switch compression {
        case .fast:
            try appendImageData(image, to: &file, leastSum: false, stream: .runLength)
        case .default:
            try appendImageData(image, to: &file, leastSum: true, stream: .bySample)
        case .small:
            var zlibFile = file
            try appendImageData(image, to: &file, leastSum: true, stream: .runLength)
            try appendImageData(image, to: &zlibFile, leastSum: true, stream: .zlib(level: 9))
            if zlibFile.count < file.count { file = zlibFile }
        }
        appendChunk(&file, type: ChunkType.IEND, [][...])
        return file
    }

    /// Filters each row of `image` (Up, or the least sum of the five) and deflates it,
    /// behind its filter-type byte, into the stream `stream` chooses; the stream's output
    /// becomes IDAT chunks of `file`. With `.bySample` the first rows wait in a buffer of
    /// `ImageDataStream.sampleBytes` until the choice is made on them.
    private func appendImageData(_ image: Image, to file: inout [UInt8], leastSum: Bool,
                                 stream choice: ImageDataStream.Choice) throws(PNGError) {
        let rowBytes = image.width * image.format.bytesPerPixel
        let bpp = image.format.bytesPerPixel
        let candidates: LedgerBuffer<UInt8>, zeros: LedgerBuffer<UInt8>, sample: LedgerBuffer<UInt8>?
        do {
            // Five filtered versions of the row, each behind its filter-type byte.
            candidates = try ledger.allocate(UInt8.self, count: 5 * (rowBytes + 1), initialValue: 0)
            zeros = try ledger.allocate(UInt8.self, count: rowBytes, initialValue: 0)
            if case .bySample = choice {
                sample = try ledger.allocate(UInt8.self, count: ImageDataStream.sampleBytes, initialValue: 0)
            } else {
                sample = nil
            }
        } catch {
            throw .core(error)
        }
        func emit(_ data: UnsafeBufferPointer<UInt8>) { appendChunk(&file, type: ChunkType.IDAT, data) }
        var stream: ImageDataStream? = sample == nil ? try ImageDataStream.make(choice, ledger: ledger) : nil
        var sampled = 0
        /// Makes the stream from the sample (or, when not even one row fits in it, from the
        /// first `sampleBytes` of `row`) and sends it what the sample holds.
        func decide(_ sample: LedgerBuffer<UInt8>, before row: UnsafePointer<UInt8>?) throws(PNGError) -> ImageDataStream {
            let basis = sampled > 0 || row == nil
                ? UnsafeBufferPointer(start: sample.baseAddress, count: sampled)
                : UnsafeBufferPointer(start: row, count: min(rowBytes + 1, sample.count))
            let made = try ImageDataStream.make(try ImageDataStream.decide(sample: basis, ledger: ledger), ledger: ledger)
            if sampled > 0 { try made.deflate(sample.baseAddress, count: sampled, finish: false, emit: emit) }
            return made
        }
        try image.withUnsafePixels { (pixels) throws(PNGError) in
            // SAFETY: pixels holds height rows of rowBytes bytes (Image's layout), so rows y − 1
            // and y lie inside it for every y below.
            let base = pixels.baseAddress!
            for y in 0 ..< image.height {
                let raw = base + y * rowBytes
                let previous = y > 0 ? base + (y - 1) * rowBytes : UnsafePointer(zeros.baseAddress)
                let type: Int
                if leastSum {
                    type = FilterChoice.leastSum(raw: raw, previous: previous, count: rowBytes, bpp: bpp,
                                                 candidates: candidates.baseAddress)
                } else {
                    type = 2
                    let slot = candidates.baseAddress + 2 * (rowBytes + 1)
                    slot[0] = 2
                    _ = FilterChoice.filter(2, raw: raw, previous: previous, output: slot + 1, count: rowBytes, bpp: bpp)
                }
                let filtered = UnsafePointer(candidates.baseAddress + type * (rowBytes + 1))
                if stream == nil, let sample {
                    if sampled + rowBytes + 1 <= sample.count {
                        (sample.baseAddress + sampled).update(from: filtered, count: rowBytes + 1)
                        sampled += rowBytes + 1
                        continue
                    }
                    stream = try decide(sample, before: filtered)
                }
                try stream?.deflate(filtered, count: rowBytes + 1, finish: false, emit: emit)
            }
        }
        if stream == nil, let sample { stream = try decide(sample, before: nil) }
        try stream?.deflate(nil, count: 0, finish: true, emit: emit)
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
