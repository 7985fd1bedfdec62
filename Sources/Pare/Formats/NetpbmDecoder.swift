import PareCore

/// A reader of the binary Netpbm formats (netpbm.sourceforge.net's pgm(5), ppm(5), pam(5)):
/// P5 (gray), P6 (RGB) and P7 (PAM with DEPTH 1–4: gray, gray+alpha, RGB, RGBA), any MAXVAL
/// up to 65535. Rows stream into a `RowSink` as 8-bit samples; a MAXVAL other than 255 is
/// rescaled as round(v × 255 / MAXVAL), the rule cjpeg reads such files with, so that an
/// encode of a PPM by Pare and by cjpeg starts from the same samples.
public struct NetpbmDecoder<Source: ByteSource> {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    public let maxValue: Int
    let source: Source
    let ledger: MemoryLedger
    /// The offset of the first pixel byte.
    let dataOffset: Int

    /// Reads the header. Throws `.unsupported` naming what is wrong.
    public init(source: Source, ledger: MemoryLedger, maxPixels: Int = 1 << 28) throws(PareError) {
        self.source = source
        self.ledger = ledger
        let prefixCount = min(source.count, 1024)
        let prefix: [UInt8]
        do {
            prefix = try source.bytes(at: 0, count: prefixCount)
        } catch {
            throw PareError(error)
        }
        var header = NetpbmHeaderReader(bytes: prefix)
        guard prefix.count >= 2, prefix[0] == UInt8(ascii: "P") else { throw .unknownFormat }
        let kind = prefix[1]
        header.position = 2
        var depth = 0, width = 0, height = 0, maxValue = 0
        switch kind {
        case UInt8(ascii: "5"), UInt8(ascii: "6"):
            guard let w = header.number(), let h = header.number(), let m = header.number() else {
                throw .unsupported("Netpbm header is damaged")
            }
            (width, height, maxValue) = (w, h, m)
            depth = kind == UInt8(ascii: "5") ? 1 : 3
            // Exactly one whitespace byte separates MAXVAL from the pixels.
            header.position += 1
        case UInt8(ascii: "7"):
            while true {
                guard let word = header.word() else { throw .unsupported("PAM header has no ENDHDR") }
                if word == "ENDHDR" {
                    header.skipLine()
                    break
                }
                switch word {
                case "WIDTH": width = header.number() ?? 0
                case "HEIGHT": height = header.number() ?? 0
                case "DEPTH": depth = header.number() ?? 0
                case "MAXVAL": maxValue = header.number() ?? 0
                default: header.skipLine()
                }
            }
        default:
            throw .unsupported("Netpbm P\(Character(Unicode.Scalar(kind))) (only binary P5, P6 and P7 are read)")
        }
        guard width > 0, height > 0, (1 ... 4).contains(depth), (1 ... 65535).contains(maxValue) else {
            throw .unsupported("Netpbm header \(width)×\(height), depth \(depth), maxval \(maxValue)")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else { throw .unsupported("Netpbm image of \(width)×\(height) pixels") }
        self.width = width
        self.height = height
        self.maxValue = maxValue
        format = [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8][depth - 1]
        dataOffset = header.position
    }

    /// Sends every row, top to bottom.
    public func decode<Sink: RowSink>(into sink: inout Sink) throws(PareError) {
        let channels = format.channels
        let sampleBytes = maxValue > 255 ? 2 : 1
        let rowBytes = width * channels
        do throws(CoreError) {
            try sink.begin(RowStreamHeader(width: width, height: height, format: format))
            let raw = try ledger.allocate(UInt8.self, count: rowBytes * sampleBytes, initialValue: 0)
            let row = try ledger.allocate(UInt8.self, count: rowBytes, initialValue: 0)
            for y in 0 ..< height {
                let offset = dataOffset + y * rowBytes * sampleBytes
                let n = try source.read(into: UnsafeMutableRawBufferPointer(start: raw.baseAddress, count: raw.count),
                                        at: offset)
                guard n == raw.count else {
                    throw CoreError.outOfBounds(offset: offset, needed: raw.count, available: max(0, n))
                }
                if maxValue == 255 {
                    try sink.consume(UnsafeBufferPointer(start: raw.baseAddress, count: rowBytes),
                                     at: RowPlacement(y: y, width: width))
                    continue
                }
                // SAFETY: raw holds rowBytes samples of sampleBytes bytes, row rowBytes bytes.
                for i in 0 ..< rowBytes {
                    let v = sampleBytes == 2 ? Int(raw[2 * i]) << 8 | Int(raw[2 * i + 1]) : Int(raw[i])
                    row.baseAddress[i] = UInt8((min(maxValue, v) * 255 + maxValue / 2) / maxValue)
                }
                try sink.consume(UnsafeBufferPointer(start: row.baseAddress, count: rowBytes), at: RowPlacement(y: y, width: width))
            }
        } catch {
            throw PareError(error)
        }
    }
}

/// Whitespace-separated words and numbers of a Netpbm header, skipping `#` comments.
struct NetpbmHeaderReader {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }

    mutating func skipSpaceAndComments() {
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "#") {
                skipLine()
            } else if Self.isSpace(bytes[position]) {
                position += 1
            } else {
                return
            }
        }
    }

    mutating func skipLine() {
        while position < bytes.count && bytes[position] != 0x0A { position += 1 }
        if position < bytes.count { position += 1 }
    }

    mutating func word() -> String? {
        skipSpaceAndComments()
        let start = position
        while position < bytes.count && !Self.isSpace(bytes[position]) { position += 1 }
        return position > start ? String(decoding: bytes[start ..< position], as: UTF8.self) : nil
    }

    mutating func number() -> Int? {
        skipSpaceAndComments()
        var value = 0, digits = 0
        while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39, digits < 9 {
            value = value * 10 + Int(bytes[position] - 0x30)
            position += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}
