// libFuzzer target: ParePNG against libpng 1.6. Every chunk CRC is recomputed first (as in
// Fuzz/png.swift) so that mutations reach past the CRC check; both decoders then read the
// same bytes. Pare decodes with default options (strict, `.native` output), only
// `maxPixels` lowered; libpng with the transforms that give the same layout
// (Fuzz/differential/reference.c: png_set_expand, Adam7 deinterlaced, 16 bits big-endian).
// Where both produce an image, a different size, channel count, bit depth or sample is a
// finding. libpng's warnings are about ancillary chunks or what follows the image data and
// do not change a pixel, so they do not stop the comparison; files either side refuses are
// not compared.
import CReference
import CZlib
import PareCore
import ParePNG
#if canImport(Glibc)
import Glibc
#endif

/// Both decoders refuse images over this size, so that one input stays well inside the
/// fuzzer's time limit under ASan.
let maxPixels = 1 << 22

/// Outcomes of the decodes so far, printed at exit (libFuzzer calls exit) so that a run
/// says how many files were compared at all.
nonisolated(unsafe) var tally = (pareOnly: 0, referenceOnly: 0, compared: 0, comparedWarned: 0, lenient: 0)
let printsTally: Void = {
    atexit {
        print("differential-png: Pare alone accepted \(tally.pareOnly), libpng alone \(tally.referenceOnly); "
            + "compared \(tally.compared + tally.comparedWarned), \(tally.comparedWarned) of them with libpng warnings, "
            + "\(tally.lenient) with lenient Pare after strict Pare refused")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDifferentialPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = printsTally
    let bytes = withFixedCRCs(Array(UnsafeBufferPointer(start: data, count: size)))
    // Strict first (the default); a file strict Pare refuses is decoded again leniently, as
    // thumbnails decode it: libpng treats some damage after the last row (an Adler-32 or
    // zlib error past the image data, a bad chunk after IDAT) as benign, and where it
    // decodes every row, lenient Pare must produce the same rows.
    var lenientAfter: PNGError?
    var pareResult: Image?
    for strict in [true, false] {
        var options = PNGOptions()
        options.maxPixels = maxPixels
        options.strict = strict
        let ledger = MemoryLedger(limit: 256 << 20)
        do {
            var decoder = try PNGDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
            var builder = ImageBuilder(ledger: ledger)
            try decoder.decode(into: &builder)
            pareResult = builder.image
            break
        } catch {
            if strict { lenientAfter = error }
        }
    }
    guard let pare = pareResult else {
        var out: UnsafeMutablePointer<UInt8>?
        var width: CInt = 0, height: CInt = 0, channels: CInt = 0, depth: CInt = 0, warnings: CInt = 0
        if reference_decode_png(bytes, bytes.count, maxPixels, &out, &width, &height, &channels, &depth,
                                &warnings) == 1 { tally.referenceOnly += 1 }
        free(out)
        return 0
    }
    var out: UnsafeMutablePointer<UInt8>?
    var width: CInt = 0, height: CInt = 0, channels: CInt = 0, depth: CInt = 0, warnings: CInt = 0
    guard reference_decode_png(bytes, bytes.count, maxPixels, &out, &width, &height, &channels, &depth,
                               &warnings) == 1, let out else { tally.pareOnly += 1; return 0 }
    defer { free(out) }
    if warnings > 0 { tally.comparedWarned += 1 } else { tally.compared += 1 }
    if lenientAfter != nil { tally.lenient += 1 }
    let mode = lenientAfter.map { "lenient Pare, strict refused with \($0)" } ?? "strict Pare"
    // fatalError, not precondition: -O drops a precondition's message, and the message is the finding.
    guard pare.width == Int(width) && pare.height == Int(height) && pare.format.channels == Int(channels)
            && pare.format.bytesPerSample * 8 == Int(depth) else {
        fatalError("layout differs (\(mode)): Pare \(pare.width)x\(pare.height) \(pare.format), libpng \(width)x\(height)x\(channels) at \(depth) bits")
    }
    let reference = UnsafeBufferPointer(start: out, count: pare.pixels.count)
    let pixels = pare.pixels
    guard let first = (0 ..< pixels.count).first(where: { pixels[$0] != reference[$0] }) else { return 0 }
    let step = pare.format.bytesPerPixel, pixel = first / step
    fatalError("pixels differ (\(mode), \(pare.format), libpng warnings: \(warnings)): first at x \(pixel % Int(width)), "
        + "y \(pixel / Int(width)): Pare \(pixels[pixel * step ..< (pixel + 1) * step].map { $0 }), "
        + "libpng \(reference[pixel * step ..< (pixel + 1) * step].map { $0 })")
}
