// libFuzzer target: JPEG encode (PareJPEG's encoder), then decode of what it wrote. The first
// eight input bytes are the request: width (1…128 from bytes 0–1) and height (1…128 from
// bytes 2–3), byte 4 the quality (1…100), byte 5 the pixel format (gray8, grayAlpha8, rgb8,
// rgba8, rgb16) in bits 0–2 and the sampling (4:4:4, 4:2:2, 4:2:0) in bits 3–4, byte 6 the
// coding: bit 0 optimized tables, bit 1 progressive, bit 2 restart every N MCUs, bit 3 every
// N MCU rows, bit 4 force baseline, bit 5 an ICC profile; byte 7 the restart N. The rest are
// the pixels, repeated to fill the image. Every encode must succeed, and Pare's decoder must
// read the file without a warning, at the size given, with the same pixels as the baseline
// encode of the same image whatever the entropy coding; the ledger must be back to zero.
import PareCore
import PareJPEG

let ledgerLimit = 64 << 20

func decodeAll(_ bytes: [UInt8], ledger: MemoryLedger) -> Image {
    do {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger)
        var builder = ImageBuilder(ledger: ledger)
        try decoder.decode(scale: .full, into: &builder)
        precondition(decoder.warnings.isEmpty, "decoder warned about an encoder output: \(decoder.warnings)")
        guard let image = builder.image else { preconditionFailure("no image decoded") }
        return image
    } catch {
        preconditionFailure("an encoder output does not decode: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEncoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 9 else { return 0 }
    let width = (Int(data[0]) << 8 | Int(data[1])) % 128 + 1
    let height = (Int(data[2]) << 8 | Int(data[3])) % 128 + 1
    let formats: [PixelFormat] = [.gray8, .grayAlpha8, .rgb8, .rgba8, .rgb16]
    let format = formats[Int(data[5] & 7) % formats.count]
    var options = JPEGEncoderOptions(quality: Int(data[4]) % 100 + 1,
                                     sampling: ChromaSampling.allCases[Int(data[5] >> 3 & 3) % 3])
    let coding = data[6]
    options.forceBaseline = coding & 16 != 0
    if coding & 32 != 0 { options.iccProfile = Array(UnsafeBufferPointer(start: data, count: size)) }
    let restart = Int(data[7])
    let pixels = UnsafeBufferPointer(start: data + 8, count: size - 8)
    let ledger = MemoryLedger(limit: ledgerLimit)
    do {
        var image = try Image(width: width, height: height, format: format)
        var k = 0
        for y in 0 ..< height {
            image.withMutableRow(y) { row in
                for i in 0 ..< row.count {
                    row[i] = pixels[k]
                    k = k + 1 == pixels.count ? 0 : k + 1
                }
            }
        }
        func encode(_ options: JPEGEncoderOptions) throws(JPEGEncodingError) -> [UInt8] {
            var encoder = try JPEGEncoder(options: options, ledger: ledger, sink: ByteArraySink())
            try encoder.encode(image)
            return encoder.sink.bytes
        }
        let baseline = try encode(options)
        let reference = decodeAll(baseline, ledger: ledger)
        precondition(reference.width == width && reference.height == height, "decoded size differs")
        options.optimizeHuffmanTables = coding & 1 != 0
        options.progressive = coding & 2 != 0
        if coding & 4 != 0 { options.restartInterval = .mcus(restart) }
        if coding & 8 != 0 { options.restartInterval = .mcuRows(restart) }
        if options.optimizeHuffmanTables || options.progressive || options.restartInterval != nil {
            let other = decodeAll(try encode(options), ledger: ledger)
            precondition(other.pixels == reference.pixels, "entropy coding changed the pixels")
        }
    } catch {
        preconditionFailure("encode failed: \(error)")
    }
    precondition(ledger.currentBytes == 0, "ledger not back to zero")
    return 0
}
