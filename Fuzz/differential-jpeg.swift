// libFuzzer target: PareJPEG against libjpeg-turbo (the djpeg decode Pare claims to match bit
// for bit). The first input byte is the request, as in Fuzz/jpeg.swift so that the two share
// seeds: its low two bits pick the scale (1/8, 1/4, 1/2, 1), bit 2 asks for all four; the
// rest is the file. Each scale is decoded by a fresh `JPEGDecoder` with default options (as
// ConformanceTests compares them with djpeg), only `maxPixels` lowered, and by libjpeg with
// djpeg's defaults (Fuzz/differential/reference-jpeg.c). Where both produce an image, a
// different size, channel count or sample is a finding unless either side warned about the
// image data: what a decoder fills in past damage (a premature end, a bad Huffman code, a
// lost restart marker) is not specified, so those decodes are compared and counted but trap
// only with PARE_DIFF_WARNED=1 (for a triage run). Warnings about stray bytes skipped before
// a marker (both) and an unknown JFIF version (libjpeg) leave the coded data alone and do not
// stop the comparison. Files one side refuses (arithmetic coding, 12-bit and lossless for
// Pare or libjpeg, 2-component or Adobe-less 4-component files, anything over the pixel
// limit) are not compared.
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
nonisolated(unsafe) var tally = (pareOnly: 0, referenceOnly: 0, clean: 0, strayBytes: 0, dataWarned: 0, differedWarned: 0,
                                 outOfRange: 0, stoppedEarly: 0)
let printsTally: Void = {
    atexit {
        print("differential-jpeg: Pare alone accepted \(tally.pareOnly), libjpeg alone \(tally.referenceOnly); compared "
            + "\(tally.clean) without warnings, \(tally.strayBytes) with stray-byte warnings only (both trap on a "
            + "difference), \(tally.dataWarned) with data warnings, of which \(tally.differedWarned) differed; "
            + "\(tally.outOfRange) differed at a reduced scale with coefficients shifted out of range, "
            + "\(tally.stoppedEarly) after Pare stopped reading a progressive file early")
    }
}()

/// libjpeg's decode at 1/`denominator`, or nil if it refuses the file.
func reference(_ bytes: [UInt8], denominator: Int)
    -> (pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, components: Int, warnings: Int, dataWarnings: Int)? {
    var out: UnsafeMutablePointer<UInt8>?
    var width: CInt = 0, height: CInt = 0, components: CInt = 0, warnings: CInt = 0, dataWarnings: CInt = 0
    guard reference_decode_jpeg(bytes, bytes.count, CInt(denominator), maxPixels, &out, &width, &height,
                                &components, &warnings, &dataWarnings) == 1, let out else { return nil }
    return (out, Int(width), Int(height), Int(components), Int(warnings), Int(dataWarnings))
}

/// True when a scan shifts its coefficients by Al ≥ 11 (T.81 G.1.1.1.2), past the range
/// 8-bit samples give DCT coefficients (T.81 A.3.1: under 2^11 in magnitude): such values
/// push the inverse DCT's output hundreds of levels out of range, and libjpeg-turbo's
/// reduced-size transforms (portable C) wrap it through their 1024-entry range-limit table
/// where its full-size one (SIMD) and every one of Pare's saturate (Fuzz/README.md,
/// "Differential targets"). Files found by walking the markers; entropy-coded bytes are
/// stepped over as the walk meets them.
func hasOutOfRangeShift(_ bytes: [UInt8]) -> Bool {
    var i = 2
    while i + 4 <= bytes.count {
        guard bytes[i] == 0xFF else { i += 1; continue }
        let code = bytes[i + 1]
        if code == 0xFF { i += 1; continue }
        if code == 0x00 || code == 0x01 || (0xD0 ... 0xD9).contains(code) { i += 2; continue }
        let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        if code == 0xDA, i + 4 < bytes.count {
            let components = Int(bytes[i + 4])
            let shifts = i + 4 + 1 + 2 * components + 2
            if shifts < bytes.count, bytes[shifts] & 15 >= 11 { return true }
        }
        i += 2 + max(length, 2)
    }
    return false
}

func compare(_ bytes: [UInt8], scale: JPEGScale) {
    let denominator = 8 / scale.rawValue
    var options = JPEGOptions()
    options.maxPixels = maxPixels
    let ledger = MemoryLedger(limit: 256 << 20)
    let pare: Image
    let pareWarnings: [JPEGWarning]
    let pareDropped: Int
    // A progressive decode at a reduced scale stops reading once the coefficients it keeps
    // are final; libjpeg reads every scan, and where none brings AC coefficients it smooths
    // the DC-only image (block smoothing), which Pare cannot know to do.
    let stoppedEarly: Bool
    do {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
        var builder = ImageBuilder(ledger: ledger)
        try decoder.decode(scale: scale, into: &builder)
        guard let image = builder.image else { return }
        pare = image
        pareWarnings = decoder.warnings
        pareDropped = decoder.droppedWarnings
        stoppedEarly = decoder.info.process == .progressive && decoder.bytesRead < bytes.count
    } catch {
        if let other = reference(bytes, denominator: denominator) {
            tally.referenceOnly += 1
            free(other.pixels)
        }
        return
    }
    guard let other = reference(bytes, denominator: denominator) else { tally.pareOnly += 1; return }
    defer { free(other.pixels) }
    let pareDataWarned = pareDropped > 0 || pareWarnings.contains {
        if case .extraneousBytes = $0 { return false }
        return true
    }
    let dataWarned = pareDataWarned || other.dataWarnings > 0
    if dataWarned {
        tally.dataWarned += 1
    } else if pareWarnings.isEmpty && other.warnings == 0 {
        tally.clean += 1
    } else {
        tally.strayBytes += 1
    }
    let count = other.width * other.height * other.components
    let same = pare.width == other.width && pare.height == other.height && pare.format.channels == other.components
        && pare.pixels.elementsEqual(UnsafeBufferPointer(start: other.pixels, count: count))
    let context = "scale 1/\(denominator), Pare warnings: \(pareWarnings.map(\.description)), "
        + "libjpeg warnings: \(other.warnings) (\(other.dataWarnings) about the data)"
    if verbose { print("compared \(other.width)x\(other.height)x\(other.components) at \(context): \(same ? "identical" : "different")") }
    if same { return }
    if dataWarned && !trapWhenWarned {
        tally.differedWarned += 1
        return
    }
    // At 1/8 too: libjpeg-turbo gives subsampled chroma a 2×2 transform there.
    if scale != .full && hasOutOfRangeShift(bytes) {
        tally.outOfRange += 1
        return
    }
    if stoppedEarly {
        tally.stoppedEarly += 1
        return
    }
    // fatalError, not precondition: -O drops a precondition's message, and the message is
    // the finding.
    guard pare.width == other.width && pare.height == other.height && pare.format.channels == other.components else {
        fatalError("size differs at \(context): Pare \(pare.width)x\(pare.height)x\(pare.format.channels), "
            + "libjpeg \(other.width)x\(other.height)x\(other.components)")
    }
    let pixels = pare.pixels
    let first = (0 ..< count).first { pixels[$0] != other.pixels[$0] }!
    let channels = other.components, pixel = first / channels
    fatalError("pixels differ at \(context): first at x \(pixel % other.width), y \(pixel / other.width): "
        + "Pare \(Array(pixels[pixel * channels ..< (pixel + 1) * channels])), "
        + "libjpeg \(Array(UnsafeBufferPointer(start: other.pixels + pixel * channels, count: channels)))")
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
