// libFuzzer target: ICC profile parsing (PareICC). Each input is parsed as a profile with
// default limits and with tight ones; a parsed matrix/TRC or gray profile builds its sRGB
// conversion and converts rows of each sample size; the input is also split into JPEG APP2
// ICC_PROFILE chunks (its first byte the chunk count, the rest cut evenly) and joined.
// Any typed error is an accepted outcome; a trap or a sanitizer report is a finding.
import PareCore
import PareICC

func exercise(_ profile: ICCProfile) {
    _ = profile.description
    _ = profile.header.version
    for tag in profile.tags { _ = "\(tag.signature)\(tag.type.map { "\($0)" } ?? "")" }
    if let curves = profile.rgbCurves {
        for curve in curves { _ = curve.evaluate(0.5) }
    }
    guard let converter = SRGBConverter(profile: profile) else { return }
    // Rows of 8- and 16-bit samples, with and without alpha, through the integer tables.
    let gray = converter.model == .gray
    for format in gray ? [PixelFormat.gray8, .grayAlpha16] : [.rgba8, .rgb16] {
        let pixels = (0 ..< 64 * format.bytesPerPixel).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let out = converter.convert(pixels, format: format)
        precondition(out.count == 64 * format.eightBit.bytesPerPixel, "converter refused its own model's layout")
    }
    _ = converter.convertExactly(gray ? [128] : [1, 128, 255] as [UInt8])
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICC(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let profile = try? ICCProfile(bytes: bytes) { exercise(profile) }
    var tight = ICCOptions()
    tight.maxTags = 16
    tight.maxCurvePoints = 256
    tight.maxTextBytes = 64
    tight.maxTextRecords = 4
    tight.maxFixedMagnitude = 4
    do {
        exercise(try ICCProfile(bytes: bytes, options: tight))
    } catch {
        _ = error.description
    }

    // As JPEG chunks: numbering from the input's first bytes, so that mutations reach the
    // repeated, missing and out-of-order cases.
    guard size > 4 else { return 0 }
    let pieces = Int(bytes[0] % 8) + 1
    var file: [UInt8] = []
    var locations: [ICCChunkLocation] = []
    let body = Array(bytes[4...])
    let step = max(1, body.count / pieces)
    for i in 0 ..< pieces {
        let start = min(body.count, i * step), end = i == pieces - 1 ? body.count : min(body.count, start + step)
        let sequence = UInt8(truncatingIfNeeded: Int(bytes[1]) &+ i * Int(bytes[2] % 3))
        let payload = ICCChunkAssembler.identifier + [sequence, bytes[3]] + Array(body[start ..< end])
        locations.append(ICCChunkLocation(offset: file.count, length: payload.count))
        file += payload
    }
    let (joined, warnings) = ICCChunkAssembler.assemble(locations, in: MemoryByteSource(file))
    for warning in warnings { _ = warning.description }
    if let joined, let profile = try? ICCProfile(bytes: joined) { exercise(profile) }
    return 0
}
