// libFuzzer target: the whole thumbnail path (Pare), as a server taking uploads runs it.
// The first input byte picks the request, the rest is the file: its low two bits the size
// (8, 48, 160 or 400 pixels on the long side), the next two the embedded-image policy, bit 4
// turns orientation off, bits 5–6 the filter. Each input goes through `ImageSource`: format
// sniffing, properties (EXIF, MPF), the choice of source, a JPEG decode at a reduced scale,
// a PNG decode, or an embedded thumbnail, the streaming resampler and the orientation
// transform, under small limits (a 48 MiB ledger, 64 Mpixels). Any typed error is an
// accepted outcome; a trap, a sanitizer report, a timeout or an RSS blow-up is a finding, and
// so is a thumbnail larger than asked for, in a format other than gray8, grayAlpha8 (gray
// with alpha keeps its alpha), rgb8 or rgba8, or ledger bytes still held after the job.
import Pare
import PareCore

let sizes = [8, 48, 160, 400]
let policies: [EmbeddedPolicy] = [.auto, .never, .always, .auto]
let filters: [ResamplingFilter] = [.lanczos3, .triangle, .area, .lanczos3]
let ledgerLimit = 48 << 20
let pixelLimit = 1 << 26

func makeThumbnail(_ bytes: [UInt8], options: ThumbnailOptions, ledger: MemoryLedger) {
    do {
        let source = try ImageSource(bytes: bytes)
        let properties = try source.properties(options: options)
        _ = properties.orientedWidth
        _ = properties.metadataWarnings.count
        let thumbnail = try source.thumbnail(options: options, ledger: ledger)
        let image = thumbnail.image
        precondition(image.width >= 1 && image.height >= 1, "empty thumbnail")
        precondition(max(image.width, image.height) <= options.maxPixelSize, "thumbnail larger than asked for")
        precondition([.gray8, .grayAlpha8, .rgb8, .rgba8].contains(image.format),
                     "thumbnail in \(image.format)")
        precondition(thumbnail.ledgerPeakBytes <= ledgerLimit, "ledger peak over its limit")
        for warning in thumbnail.warnings {
            _ = warning.description.count
        }
        _ = thumbnail.reason
    } catch {
        _ = error.description
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let request = Int(data[0])
    var options = ThumbnailOptions(maxPixelSize: sizes[request & 3])
    options.embedded = policies[(request >> 2) & 3]
    options.applyOrientation = request & 0x10 == 0
    options.filter = filters[(request >> 5) & 3]
    options.memoryLimit = ledgerLimit
    options.jpeg.maxPixels = pixelLimit
    options.png.maxPixels = pixelLimit
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let ledger = MemoryLedger(limit: ledgerLimit)
    makeThumbnail(bytes, options: options, ledger: ledger)
    precondition(ledger.currentBytes == 0, "ledger bytes still held after the job")
    return 0
}
