/// An opaque colour to composite transparent pixels over, as 8-bit sRGB-encoded samples.
public struct BackgroundColour: Sendable, Equatable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// White: what a transparent picture is most often shown on (a page, a document), and
    /// what ImageMagick flattens onto. A black default would turn a logo's transparent
    /// surround, and its anti-aliased edges, dark.
    public static let white = BackgroundColour(red: 255, green: 255, blue: 255)
    public static let black = BackgroundColour(red: 0, green: 0, blue: 0)

    /// True when the three samples are equal, so that gray pictures stay gray over it.
    public var isGray: Bool { red == green && green == blue }

    /// `RRGGBB`, in upper case.
    public var hex: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        for sample in [red, green, blue] {
            text.append(digits[Int(sample >> 4)])
            text.append(digits[Int(sample & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads `RRGGBB` (six hexadecimal digits, an optional leading `#`).
    public init?(hex: String) {
        var digits = Array(hex.utf8)
        if digits.first == UInt8(ascii: "#") { digits.removeFirst() }
        guard digits.count == 6 else { return nil }
        var value: UInt32 = 0
        for digit in digits {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): nibble = digit - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(nibble)
        }
        self.init(red: UInt8(value >> 16), green: UInt8(truncatingIfNeeded: value >> 8),
                  blue: UInt8(truncatingIfNeeded: value))
    }
}

/// Composites rows that carry alpha over an opaque background and passes them on without
/// it, for a file format that has no alpha (JPEG): Porter–Duff "over" with a straight
/// (not premultiplied) alpha, as PNG stores it (PNG third edition, 13.16 "Alpha channel
/// processing"), in the samples as they are encoded:
///
///     out = (sample × alpha + background × (max − alpha)) / max, rounded to nearest
///
/// with `max` 255 or 65535 (a 16-bit background is the 8-bit one × 257). Gray rows stay gray
/// over a gray background and become RGB over a coloured one. Rows without alpha pass
/// through untouched. The one row of output it holds is counted by `ledger`.
public struct AlphaFlattener<Downstream: RowSink>: RowSink {
    /// The sink the flattened rows go to; `finish` what needs finishing through it.
    public var downstream: Downstream
    public let background: BackgroundColour
    let ledger: MemoryLedger
    private var input: PixelFormat?
    private var output: PixelFormat?
    private var row: LedgerBuffer<UInt8>?

    public init(_ downstream: Downstream, over background: BackgroundColour = .white, ledger: MemoryLedger) {
        self.downstream = downstream
        self.background = background
        self.ledger = ledger
    }

    /// The format `input` is flattened to over `background`.
    public static func flattenedFormat(_ input: PixelFormat, over background: BackgroundColour) -> PixelFormat {
        guard input.hasAlpha else { return input }
        let wide = input.bytesPerSample == 2
        if input.isGray && background.isGray { return wide ? .gray16 : .gray8 }
        return wide ? .rgb16 : .rgb8
    }

    public mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        row = nil
        input = nil
        output = nil
        var forwarded = header
        if header.format.hasAlpha {
            let format = Self.flattenedFormat(header.format, over: background)
            let (bytes, overflow) = header.width.multipliedReportingOverflow(by: format.bytesPerPixel)
            guard !overflow, header.width >= 0 else { throw .sizeOverflow }
            row = try ledger.allocate(UInt8.self, count: bytes, initialValue: 0)
            (input, output) = (header.format, format)
            forwarded.format = format
        }
        try downstream.begin(forwarded)
    }

    public mutating func consume(_ source: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        guard let input, let output, let row else {
            try downstream.consume(source, at: placement)
            return
        }
        let pixels = min(placement.width, source.count / input.bytesPerPixel, row.count / output.bytesPerPixel)
        let target = row.buffer
        let inChannels = input.channels, outChannels = output.channels
        if input.bytesPerSample == 1 {
            for i in 0 ..< pixels {
                let alpha = UInt32(source[i * inChannels + inChannels - 1])
                for c in 0 ..< outChannels {
                    // A gray pixel over a coloured background lends its one sample to all three.
                    let sample = UInt32(source[i * inChannels + min(c, inChannels - 2)])
                    let back = backgroundSample(c)
                    target[i * outChannels + c] = UInt8((sample * alpha + back * (255 - alpha) + 127) / 255)
                }
            }
        } else {
            // 16-bit samples are big-endian, as `Image` holds them.
            func sample(_ index: Int) -> UInt64 { UInt64(source[2 * index]) << 8 | UInt64(source[2 * index + 1]) }
            for i in 0 ..< pixels {
                let alpha = sample(i * inChannels + inChannels - 1)
                for c in 0 ..< outChannels {
                    let value = sample(i * inChannels + min(c, inChannels - 2))
                    let back = UInt64(backgroundSample(c)) * 257
                    let out = (value * alpha + back * (65535 - alpha) + 32767) / 65535
                    target[2 * (i * outChannels + c)] = UInt8(out >> 8)
                    target[2 * (i * outChannels + c) + 1] = UInt8(truncatingIfNeeded: out)
                }
            }
        }
        var forwarded = placement
        forwarded.width = pixels
        try downstream.consume(UnsafeBufferPointer(start: target.baseAddress,
                                               count: pixels * output.bytesPerPixel), at: forwarded)
    }

    /// The background's 8-bit sample for output channel `c`; gray output takes red, since
    /// gray output is chosen only over a gray background.
    private func backgroundSample(_ c: Int) -> UInt32 {
        switch c {
        case 1: UInt32(background.green)
        case 2: UInt32(background.blue)
        default: UInt32(background.red)
        }
    }
}
