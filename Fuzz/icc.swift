// libFuzzer target: ICC profile parsing (PareICC). Each input is parsed as a profile with
// default limits and with tight ones; a parsed matrix/TRC or gray profile builds its sRGB
// conversion and converts a small image; the input is also split into JPEG APP2
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
    let ledger = MemoryLedger(limit: 1 << 20)
    let format: PixelFormat = converter.model == .gray ? .gray8 : .rgba8
    guard let image = try? Image(width: 16, height: 16, format: format, ledger: ledger) else { return }
    for y in 0 ..< 16 {
        let row = image.row(y)
        for i in 0 ..< row.count { row[i] = UInt8(truncatingIfNeeded: y * 16 + i) }
    }
    precondition(converter.apply(to: image), "converter refused its own model's layout")
    _ = converter.convertExactly(format == .gray8 ? [128] : [1, 128, 255])
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
