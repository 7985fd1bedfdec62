// libFuzzer target: PareJPEG against libjpeg-turbo (the djpeg decode Pare claims to match bit
// for bit). The first input byte is the request, as in Fuzz/jpeg.swift so that the two share
// seeds: its low two bits pick the scale (1/8, 1/4, 1/2, 1), bit 2 asks for all four; the
// rest is the file. Each scale is decoded by a fresh `JPEGDecoder` with default options (as
// ConformanceTests compares them with djpeg), only `maxPixels` lowered, and by libjpeg with
// djpeg's defaults (Fuzz/differential/reference.c). Where both produce an image, a
// different size, channel count or sample is a finding, unless either side warned about
// corrupt data: what a decoder fills in past damage is not specified, so those are compared
// and counted but trap only with PARE_DIFF_WARNED=1 (for a triage run). Files one side
// refuses (arithmetic coding, 12-bit and lossless for Pare or libjpeg, 2-component or
// Adobe-less 4-component files, anything over the pixel limit) are not compared.
import CReference
import PareCore
import PareJPEG
#if canImport(Glibc)
import Glibc
#endif

/// Both decoders refuse images over this size, so that one input stays well inside the
/// fuzzer's time limit under ASan.
let maxPixels = 1 << 22
let scales: [JPEGScale] = [.eighth, .quarter, .half, .full]
let trapWhenWarned = getenv("PARE_DIFF_WARNED") != nil
/// PARE_DIFF_VERBOSE=1 prints one line per compared decode, to pick regression inputs.
let verbose = getenv("PARE_DIFF_VERBOSE") != nil

/// Outcomes of the decodes so far, printed at exit (libFuzzer calls exit) so that a run
/// says how many decodes were compared at all and how many warned ones differed.
nonisolated(unsafe) var tally = (pareOnly: 0, referenceOnly: 0, compared: 0, comparedWarned: 0, differedWarned: 0)
let printsTally: Void = {
    atexit {
        print("differential-jpeg: Pare alone accepted \(tally.pareOnly), libjpeg alone \(tally.referenceOnly); "
            + "compared \(tally.compared) clean and \(tally.comparedWarned) warned decodes, "
            + "\(tally.differedWarned) warned ones differed")
    }
}()

func compare(_ bytes: [UInt8], scale: JPEGScale) {
    var options = JPEGOptions()
    options.maxPixels = maxPixels
    let ledger = MemoryLedger(limit: 256 << 20)
    var pare: Image
    var pareWarned: Bool
    do {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
        var builder = ImageBuilder(ledger: ledger)
        try decoder.decode(scale: scale, into: &builder)
        guard let image = builder.image else { return }
        pare = image
        pareWarned = !decoder.warnings.isEmpty || decoder.droppedWarnings > 0
    } catch {
        var out: UnsafeMutablePointer<UInt8>?
        var width: CInt = 0, height: CInt = 0, components: CInt = 0, warnings: CInt = 0
        if reference_decode_jpeg(bytes, bytes.count, CInt(8 / scale.rawValue), maxPixels, &out, &width, &height,
                                 &components, &warnings) == 1 { tally.referenceOnly += 1 }
        free(out)
        return
    }
    let denominator = 8 / scale.rawValue
    var out: UnsafeMutablePointer<UInt8>?
    var width: CInt = 0, height: CInt = 0, components: CInt = 0, warnings: CInt = 0
    guard reference_decode_jpeg(bytes, bytes.count, CInt(denominator), maxPixels, &out, &width, &height,
                                &components, &warnings) == 1, let out else { tally.pareOnly += 1; return }
    defer { free(out) }
    let referenceWarned = warnings > 0
    if pareWarned || referenceWarned { tally.comparedWarned += 1 } else { tally.compared += 1 }
    let same = pare.width == Int(width) && pare.height == Int(height) && pare.format.channels == Int(components)
        && pare.pixels.elementsEqual(UnsafeBufferPointer(start: out, count: Int(width) * Int(height) * Int(components)))
    if verbose {
        print("compared 1/\(8 / scale.rawValue) \(width)x\(height)x\(components): Pare warned \(pareWarned), "
            + "libjpeg warnings \(warnings), \(same ? "identical" : "different")")
    }
    let strictCompare = !(pareWarned || referenceWarned) || trapWhenWarned
    // fatalError below, not precondition: -O drops a precondition's message, and the
    // message is the finding.
    let where_ = "scale 1/\(denominator), Pare warned: \(pareWarned), libjpeg warnings: \(warnings)"
    guard pare.width == Int(width), pare.height == Int(height), pare.format.channels == Int(components) else {
        let message = "size differs at \(where_): Pare \(pare.width)x\(pare.height)x\(pare.format.channels), "
            + "libjpeg \(width)x\(height)x\(components)"
        if strictCompare { fatalError(message) }
        tally.differedWarned += 1
        return
    }
    let reference = UnsafeBufferPointer(start: out, count: Int(width) * Int(height) * Int(components))
    let pixels = pare.pixels
    guard let first = (0 ..< pixels.count).first(where: { pixels[$0] != reference[$0] }) else { return }
    let channels = Int(components), pixel = first / channels
    let x = pixel % Int(width), y = pixel / Int(width)
    let message = "pixels differ at \(where_): first at x \(x), y \(y): Pare \(pixels[pixel * channels ..< (pixel + 1) * channels].map { $0 }), "
        + "libjpeg \(reference[pixel * channels ..< (pixel + 1) * channels].map { $0 })"
    if strictCompare { fatalError(message) }
    tally.differedWarned += 1
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDifferentialJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = printsTally
    guard size > 1 else { return 0 }
    let request = Int(data[0])
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    for scale in request & 4 != 0 ? scales : [scales[request & 3]] {
        compare(bytes, scale: scale)
    }
    return 0
}
