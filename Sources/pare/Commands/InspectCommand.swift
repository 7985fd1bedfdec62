import Pare
import PareCore
import PareEXIF

/// `pare inspect IN [--json]`: the file's structure, for a reader learning the format.
///
/// - JPEG (T.81 Annex B): every marker with its offset and length; frame headers (process,
///   precision, size, components with sampling factors and quantisation table ids);
///   quantisation tables as 8×8 grids in natural order; Huffman tables as their 16
///   code-length counts; every scan (the scan script of a progressive file) with its
///   component and table selectors, Ss–Se, Ah/Al, restart interval, RST count and the
///   range of its entropy-coded data; APPn segments named (JFIF, JFXX, Exif with its IFD
///   tree, XMP, ICC chunks, MPF with its entries, Adobe) with their key fields; COM text.
/// - PNG: every chunk with offset, length and CRC status; IHDR; the palette size; the zlib
///   header of the image data; how many scanlines use each filter type; the metadata.
/// - TIFF: the IFD tree, tags named where PareEXIF knows them, and the first page's image
///   facts as the decoder reads them (layout, compression, photometric, strips or tiles).
/// - WebP: the RIFF chunks (and the frame each sits in), the VP8 frame header (partitions,
///   segments, filter type and level, quantizer) or the VP8L transforms, the ALPH header.
/// - GIF: the logical screen, the first frame's descriptor, every block with its offset,
///   the frame and loop counts, comments and XMP.
/// - For all three, the embedded ICC profile: header fields and tag table (ICC.1 7.2, 7.3).
///
/// The report is an indented tree, or with `--json` one JSON object holding the same facts.
///
/// Exit status: 0 when the structure can be walked to its end, even with warnings (stray
/// bytes, an ancillary chunk with a bad CRC, a JPEG whose entropy-coded data is cut short
/// or that lacks EOI: decoders still show those). 1 when it cannot: no SOI or PNG
/// signature, a segment or chunk cut short or with contents its specification forbids, a
/// critical chunk with a bad CRC, image data zlib rejects, a JPEG with no scan, a TIFF whose
/// header or first IFD is unreadable. Then what was read is still printed, followed by one
/// line on stderr naming the file, the byte offset and the reason. 2 on a usage error.
func runInspect(_ raw: [String]) -> Int32 {
    let arguments: Arguments
    do {
        arguments = try Arguments(raw, valued: [], boolean: ["--json"])
    } catch {
        return usageError(error.message)
    }
    guard arguments.positionals.count == 1 else { return usageError("inspect needs one input") }
    let input = arguments.positionals[0]
    guard let bytes = readInput(input) else {
        printError("pare: \(input): cannot read the file")
        return 1
    }
    var (report, failure): (JSONValue, String?)
    switch ImageFormat(sniffing: Array(bytes.prefix(16))) {
    case .jpeg:
        (report, failure) = InspectJPEG.report(bytes)
    case .png:
        (report, failure) = InspectPNG.report(bytes)
    case .tiff:
        (report, failure) = inspectTIFF(bytes)
    case .webp:
        (report, failure) = InspectContainers.webp(bytes)
    case .gif:
        (report, failure) = InspectContainers.gif(bytes)
    case let format?:
        (report, failure) = inspectProperties(bytes, format: format)
    case nil:
        report = .object([("format", .string("unknown")), ("bytes", .int(bytes.count))])
        failure = "\(PareError.unreadable(sniffing: Array(bytes.prefix(16))))"
    }
    if case let .object(members) = report {
        report = .object([("file", .string(input))] + members + [("iccProfile", InspectICC.report(bytes))])
    }
    print(arguments.flag("--json") ? report.text : InspectText.render(report))
    if let failure {
        // Every reason names its offset; the few that cannot (a memory limit) say the size.
        let placed = failure.contains("byte ") ? failure : failure + " (file of \(bytes.count) bytes)"
        printError("pare: \(input): \(placed)")
        return 1
    }
    return 0
}

/// A format with no structure report of its own: what the library's reader says of it.
private func inspectProperties(_ bytes: [UInt8], format: ImageFormat) -> (JSONValue, String?) {
    var object = JSONObjectBuilder()
    object.add("format", format.rawValue)
    object.add("bytes", bytes.count)
    do throws(PareError) {
        let properties = try ImageSource(bytes: bytes).properties()
        object.add("width", properties.pixelWidth)
        object.add("height", properties.pixelHeight)
        object.add("bitDepth", properties.bitDepth.map(JSONValue.int) ?? .null)
        object.add("colorModel", "\(properties.colorModel)")
        object.add("hasAlpha", .bool(properties.hasAlpha))
        object.add("error", .null)
        return (object.value, nil)
    } catch {
        object.add("error", "\(error)")
        return (object.value, "\(error)")
    }
}

/// A plain TIFF file: its IFD tree (TIFF 6.0 §2).
private func inspectTIFF(_ bytes: [UInt8]) -> (JSONValue, String?) {
    var object = JSONObjectBuilder()
    object.add("format", "tiff")
    object.add("bytes", bytes.count)
    do throws(EXIFError) {
        let metadata = try EXIFReader.readTIFFFile(MemoryByteSource(bytes))
        object.add("tiff", InspectEXIF.report(metadata))
        object.add("image", InspectContainers.tiffImage(bytes))
        object.add("error", .null)
        return (object.value, nil)
    } catch {
        object.add("error", "\(error)")
        return (object.value, "\(error)")
    }
}
