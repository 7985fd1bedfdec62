import PareCore
import PareEXIF
import PareJPEG
import ParePNG

/// The metadata section of `pare explain` (`id="metadata"`): the TIFF/EXIF IFD tree with
/// every entry's offset and value (TIFF 6.0 §2, Exif 2.32 §4.6), the EXIF thumbnail, the
/// MPF previews (CIPA DC-007 §5.2) decoded and shown, the orientation as an arrow, and the
/// ICC profile's header facts (ICC.1 §7.2) where the file carries one.
enum ExplainMetadata {
    static func explainJPEG(_ bytes: [UInt8], structure: JPEGStructure, into page: inout ExplainPage) {
        let source = MemoryByteSource(bytes)
        let metadata = try? EXIFReader.readJPEG(source)
        var icc: [UInt8] = []
        for marker in structure.markers {
            if case .application(let app) = marker.content, app.kind == .icc, app.payloadOffset + app.payloadLength <= bytes.count,
               app.payloadLength > 14 {
                icc += bytes[(app.payloadOffset + 14) ..< (app.payloadOffset + app.payloadLength)]
            }
        }
        guard metadata?.exif != nil || !(metadata?.mpf.isEmpty ?? true) || metadata?.jfxxThumbnail != nil || !icc.isEmpty else {
            return
        }
        page.warnings += (metadata?.warnings ?? []).map { "\($0)" } + (metadata?.exif?.warnings ?? []).map { "\($0)" }
        page.section("metadata", "Metadata", intro: "Cameras write EXIF as a small TIFF file inside APP1: directories (IFDs) of tagged entries, values stored inline or at an offset. IFD0 describes the main image, the Exif IFD the shot, IFD1 a thumbnail. MPF (APP2) indexes further images appended after the main one, such as a large preview or an HDR photo's gain map (a map of how much brighter each place gets on an HDR display, never a picture to show). Offsets below are from the start of the file.") { html in
            if let exif = metadata?.exif { exifBlock(exif, source: source, into: &html) }
            if let jfxx = metadata?.jfxxThumbnail {
                html.element("h3", [], "JFXX thumbnail")
                embedded(jfxx, source: source, caption: "JFIF extension thumbnail at offset \(jfxx.offset)", into: &html)
            }
            if let metadata, !metadata.mpf.isEmpty {
                html.element("h3", [], "MPF images")
                // The gain map's MPF type is "undefined": its role comes from its own metadata.
                func role(_ entry: MPFEntry) -> String {
                    guard entry.index == metadata.gainMap?.mpfIndex, let gainMap = metadata.gainMap else { return entry.kind.name }
                    return "gain map (\(gainMap.standard.name))"
                }
                html.table(["image", "type", "offset", "length", "size"], metadata.mpf.map { entry in
                    ["\(entry.index)", role(entry), "\(entry.offset)", "\(entry.length)",
                     entry.width.map { "\($0)×\(entry.height ?? 0)" } ?? "?"]
                })
                for entry in metadata.mpf where entry.offset > 0 {
                    embedded(entry.image, source: source, caption: "MPF image \(entry.index): \(role(entry)), \(entry.length) bytes at offset \(entry.offset)", into: &html)
                }
            }
            if !icc.isEmpty { iccFacts(icc, into: &html) }
        }
    }

    static func explainPNG(_ metadata: PNGMetadata?, into page: inout ExplainPage) {
        guard let metadata else { return }
        let exif = metadata.exif.flatMap { bytes in metadata.exifOffset.flatMap { try? EXIFReader.readTIFF(bytes, baseOffset: $0) } }
        guard exif != nil || metadata.iccProfile != nil else { return }
        page.section("metadata", "Metadata", intro: "EXIF in a PNG is a TIFF block in an eXIf chunk: directories (IFDs) of tagged entries. An iCCP chunk carries a compressed ICC colour profile.") { html in
            if let exif { exifBlock(exif, source: MemoryByteSource([]), into: &html) }
            if let icc = metadata.iccProfile {
                html.element("h3", [], "ICC profile (iCCP)")
                html.facts([("name", icc.name), ("compressed bytes", "\(icc.compressed.count)")])
            }
        }
    }

    static func explainTIFF(_ bytes: [UInt8], into page: inout ExplainPage) {
        let source = MemoryByteSource(bytes)
        // TIFF 6.0 §2 and BigTIFF: an entry count, 12-byte entries and a 4-byte next
        // pointer, or 8, 20 and 8; a value larger than an entry's value field (4 or 8
        // bytes) lies elsewhere, where the field points.
        let big = bytes.count >= 4 && bytes[2] | bytes[3] == 43
        let (countBytes, entryBytes, fieldBytes) = big ? (8, 20, 8) : (2, 12, 4)
        page.spans = [big ? ByteSpan(offset: 0, length: 16, label: "header",
                                     what: "BigTIFF header: byte order, 43, offset size, first IFD offset",
                                     kind: "k-marker", section: "metadata")
                          : ByteSpan(offset: 0, length: 8, label: "header", what: "TIFF header: byte order, 42, first IFD offset",
                                     kind: "k-marker", section: "metadata")]
        do throws(EXIFError) {
            let metadata = try EXIFReader.readTIFFFile(source)
            for ifd in metadata.ifds {
                let length = countBytes + entryBytes * ifd.entries.count + fieldBytes
                page.spans.append(ByteSpan(offset: ifd.offset, length: length, label: ifd.name,
                                           what: "\(ifd.name): \(ifd.entries.count) entries", kind: "k-meta", section: "metadata"))
                for entry in ifd.entries {
                    guard let type = entry.fieldType else { continue }
                    let (bytesNeeded, overflow) = Int(clamping: entry.count).multipliedReportingOverflow(by: type.size)
                    guard !overflow, bytesNeeded > fieldBytes, entry.valueOffset >= 0 else { continue }
                    let tag = entry.name.map { "\($0)" } ?? "tag \(InspectEXIF.hex16(entry.tag))"
                    page.spans.append(ByteSpan(offset: entry.valueOffset, length: bytesNeeded, label: tag,
                                               what: "\(ifd.name) \(tag): \(entry.count) \(InspectEXIF.typeName(entry.type)) values",
                                               kind: "k-table", section: "metadata"))
                }
            }
            page.warnings += metadata.warnings.map { "\($0)" }
            page.summary = "\(metadata.ifds.count) IFDs"
            page.section("metadata", "Metadata", intro: "A TIFF file is a header and a chain of directories (IFDs) of tagged entries; values of more than four bytes are stored elsewhere and pointed at.") { html in
                exifBlock(metadata, source: source, into: &html)
            }
        } catch {
            page.fail("\(error)")
        }
    }

    static func exifBlock<Source: ByteSource>(_ exif: EXIFMetadata, source: Source, into html: inout HTMLWriter) {
        html.facts([("byte order", exif.byteOrder == .littleEndian ? "II (little-endian)" : "MM (big-endian)"),
                    ("TIFF header at", "\(exif.tiffHeaderOffset)")]
            + [exif.make.map { ("make", $0) }, exif.model.map { ("model", $0) },
               exif.dateTimeOriginal.map { ("taken", $0) }].compactMap { $0 })
        orientation(exif.rawOrientation, into: &html)
        html.element("h3", [], "IFD tree")
        html.open("div", [("class", "tree")])
        for ifd in exif.ifds {
            html.open("details", ifd.name == "IFD0" ? [("open", "")] : [])
            html.element("summary", [], "\(ifd.name) at offset \(ifd.offset): \(ifd.entries.count) entries" + (ifd.nextIFD != 0 ? ", next IFD at \(ifd.nextIFD) (relative to the TIFF header)" : ""))
            html.table(["tag", "id", "type", "count", "value at", "value"], ifd.entries.prefix(400).map { entry in
                [entry.name ?? "unknown", InspectEXIF.hex16(entry.tag), InspectEXIF.typeName(entry.type), "\(entry.count)",
                 "\(entry.valueOffset)", shortText(InspectEXIF.value(entry))]
            })
            html.close("details")
        }
        html.close("div")
        if let thumbnail = exif.thumbnail, source.count > 0 {
            html.element("h3", [], "EXIF thumbnail (IFD1)")
            embedded(thumbnail, source: source, caption: "thumbnail: \(thumbnail.length) bytes at offset \(thumbnail.offset)", into: &html)
        }
    }

    static func shortText(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): return s
        case .null: return "–"
        default:
            let text = value.text
            return text.count > 160 ? String(text.prefix(160)) + "…" : text
        }
    }

    /// The orientation as an arrow pointing where the top of the scene is in the stored
    /// pixels, and what a viewer must do.
    static func orientation(_ raw: Int?, into html: inout HTMLWriter) {
        guard let raw else { return }
        let (angle, mirrored, text): (Int, Bool, String)
        switch raw {
        case 1: (angle, mirrored, text) = (0, false, "upright as stored")
        case 2: (angle, mirrored, text) = (0, true, "mirrored left to right")
        case 3: (angle, mirrored, text) = (180, false, "upside down: turn 180°")
        case 4: (angle, mirrored, text) = (180, true, "mirrored top to bottom")
        case 5: (angle, mirrored, text) = (270, true, "mirrored along the main diagonal")
        case 6: (angle, mirrored, text) = (270, false, "turn 90° clockwise to view")
        case 7: (angle, mirrored, text) = (90, true, "mirrored along the other diagonal")
        case 8: (angle, mirrored, text) = (90, false, "turn 90° counter-clockwise to view")
        default: (angle, mirrored, text) = (0, false, "invalid value, read as upright")
        }
        html.open("p")
        html.raw("<span class=\"arrow\" style=\"transform:rotate(\(angle)deg)\(mirrored ? " scaleX(-1)" : "")\" title=\"the top of the scene\">↑</span>")
        html.text(" Orientation \(raw): \(text). The arrow points to the top of the scene in the stored pixels" + (mirrored ? " (mirrored)." : "."))
        html.close("p")
    }

    /// An embedded JPEG (thumbnail or preview), decoded at a scale that keeps it small.
    static func embedded<Source: ByteSource>(_ image: EmbeddedImage, source: Source, caption: String, into html: inout HTMLWriter) {
        guard image.encoding == .jpeg, let bytes = try? image.bytes(from: source) else {
            html.element("p", [("class", "small")], caption + " (not shown: not a JPEG or out of the file)")
            return
        }
        var scale = JPEGScale.full
        if let decoder = try? JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger()) {
            for candidate in [JPEGScale.full, .half, .quarter, .eighth] where decoder.outputSize(at: candidate).width <= 1200 {
                scale = candidate
                break
            }
            if decoder.outputSize(at: .eighth).width > 1200 { scale = .eighth }
        }
        let decoded = ExplainPictures.decodeJPEG(bytes, scale: scale, maximumWidth: 240)
        html.figure(decoded.image.flatMap { ExplainPictures.picture($0, minimumWidth: 1, maximumWidth: 240) },
                    caption: caption + (decoded.error.map { " — \($0)" } ?? ""))
    }

    /// The profile header (ICC.1 §7.2): size, CMM, version, class, colour space, PCS.
    static func iccFacts(_ profile: [UInt8], into html: inout HTMLWriter) {
        html.element("h3", [], "ICC profile")
        guard profile.count >= 128 else {
            html.element("p", [], "\(profile.count) bytes, too short for a profile header")
            return
        }
        func tag(_ at: Int) -> String {
            String(decoding: profile[at ..< at + 4].map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x3F }, as: UTF8.self)
        }
        let size = Int(profile[0]) << 24 | Int(profile[1]) << 16 | Int(profile[2]) << 8 | Int(profile[3])
        html.facts([("bytes", "\(profile.count) (header says \(size))"), ("preferred CMM", tag(4)),
                    ("version", "\(profile[8]).\(profile[9] >> 4).\(profile[9] & 15)"), ("class", tag(12)),
                    ("colour space", tag(16)), ("connection space", tag(20)), ("signature", tag(36))])
    }
}
