import PareCore
import PareEXIF
@_spi(Explain) import PareJPEG

/// The JPEG sections of `pare explain`, in the order a decoder meets things (T.81 Annex B
/// for the markers, Annex F and G for the scans, A.3.3 for the IDCT): the frame, the
/// quantisation and Huffman tables, the scan script, the picture at each stage, and single
/// blocks from coefficients to samples; then the metadata.
enum ExplainJPEG {
    /// Luma blocks up to which every block is kept and can be picked on the picture.
    static let pickableBlocks = 4096
    /// Progressive scans drawn one by one at most.
    static let drawnScans = 24

    static func explain(_ bytes: [UInt8], into page: inout ExplainPage) {
        let source = MemoryByteSource(bytes)
        let structure = JPEGStructure.walk(source, ledger: MemoryLedger())
        page.spans = spans(structure, fileSize: bytes.count, metadata: try? EXIFReader.readJPEG(source))
        if let failure = structure.failure { page.fail("\(failure)") }
        page.warnings += structure.warnings.map { "\($0)" }
        let frame = structure.frames.first
        if let frame {
            page.summary = "\(frame.width)×\(frame.height), \(frame.process.name), \(frame.components.count) component\(frame.components.count == 1 ? "" : "s"), \(structure.scans.count) scan\(structure.scans.count == 1 ? "" : "s")"
            frameSection(frame, structure: structure, into: &page)
        }
        quantizationSection(structure, into: &page)
        huffmanSection(structure, into: &page)
        if !structure.scans.isEmpty { scansSection(structure, fileSize: bytes.count, into: &page) }
        if frame != nil, structure.failure == nil || !structure.scans.isEmpty {
            stagesAndBlocks(bytes, structure: structure, into: &page)
        }
        ExplainMetadata.explainJPEG(bytes, structure: structure, into: &page)
    }

    // MARK: byte map

    /// The file's bytes as spans: each marker segment, each scan's data, then what follows
    /// EOI, where the MPF images the index points to are named ("MPF image 1: gain map") and
    /// only the bytes between them are "after EOI".
    static func spans(_ structure: JPEGStructure, fileSize: Int, metadata: JPEGMetadata?) -> [ByteSpan] {
        var result: [ByteSpan] = []
        for marker in structure.markers {
            let length = marker.length.map { $0 + 2 } ?? 2
            var kind = "k-marker", section = "frame", what = marker.name
            switch marker.content {
            case .frame(let frame):
                kind = "k-frame"
                what = "frame header: \(frame.process.name), \(frame.width)×\(frame.height)"
            case .quantizationTables(let tables):
                kind = "k-table"; section = "quantization"
                what = "quantisation table\(tables.count == 1 ? "" : "s") " + tables.map { "\($0.id)" }.joined(separator: ", ")
            case .huffmanTables(let tables):
                kind = "k-table"; section = "huffman"
                what = "Huffman table" + (tables.count == 1 ? " " : "s ") + tables.map { ($0.tableClass == 0 ? "DC" : "AC") + "\($0.id)" }.joined(separator: ", ")
            case .restartInterval(let interval):
                kind = "k-table"; section = "scans"
                what = "restart interval: \(interval) MCUs"
            case .scan(let scan):
                kind = "k-scan"; section = "scans"
                let band = scan.band
                what = "scan \(scan.number) header: Ss=\(band.spectralStart) Se=\(band.spectralEnd) Ah=\(band.approximationHigh) Al=\(band.approximationLow)"
                result.append(ByteSpan(offset: marker.offset, length: length, label: "SOS", what: what, kind: kind,
                                       section: section))
                result.append(ByteSpan(offset: scan.dataOffset, length: scan.dataLength, label: "scan \(scan.number)",
                                       what: "entropy-coded data of scan \(scan.number)"
                                           + (scan.restartMarkers > 0 ? ", \(scan.restartMarkers) restart markers" : ""),
                                       kind: "k-data", section: "stages"))
                continue
            case .application(let app):
                kind = "k-app"
                section = app.kind == .exif || app.kind == .mpf || app.kind == .icc ? "metadata" : "frame"
                what = "\(marker.name) \(app.identifier.isEmpty ? "(no identifier)" : app.identifier)"
            case .comment:
                kind = "k-text"; what = "comment"
            case .none:
                if marker.marker == 0xD8 { what = "start of image" } else if marker.marker == 0xD9 { what = "end of image" }
            }
            result.append(ByteSpan(offset: marker.offset, length: length, label: marker.name, what: what, kind: kind,
                                   section: section))
        }
        if structure.trailingBytes > 0 {
            var at = fileSize - structure.trailingBytes
            func trailing(until end: Int) {
                guard end > at else { return }
                result.append(ByteSpan(offset: at, length: end - at, label: "after EOI",
                                       what: "bytes after the end of the image (previews, padding)",
                                       kind: "k-trail", section: "metadata"))
            }
            let images = (metadata?.mpf ?? []).filter { $0.offset >= at && $0.length > 0 && $0.offset + $0.length <= fileSize }
            for entry in images.sorted(by: { $0.offset < $1.offset }) where entry.offset >= at {
                trailing(until: entry.offset)
                let role = entry.index == metadata?.gainMap?.mpfIndex ? "gain map" : entry.kind.name
                result.append(ByteSpan(offset: entry.offset, length: entry.length, label: "MPF image \(entry.index): \(role)",
                                       what: "MPF image \(entry.index) (\(role)), a JPEG of its own"
                                           + (entry.width.map { w in entry.height.map { " \(w)×\($0)" } ?? "" } ?? ""),
                                       kind: "k-trail", section: "metadata"))
                at = entry.offset + entry.length
            }
            trailing(until: fileSize)
        }
        return result
    }

    // MARK: frame

    static func frameSection(_ frame: JPEGFrameRecord, structure: JPEGStructure, into page: inout ExplainPage) {
        let hMax = frame.components.map(\.horizontal).max() ?? 1
        let vMax = frame.components.map(\.vertical).max() ?? 1
        let single = frame.components.count == 1
        let mcuWidth = single ? 8 : 8 * hMax, mcuHeight = single ? 8 : 8 * vMax
        let mcusWide = (frame.width + mcuWidth - 1) / max(1, mcuWidth)
        let mcusHigh = (frame.height + mcuHeight - 1) / max(1, mcuHeight)
        page.section("frame", "Frame", intro: "The frame header (SOF) says how big the picture is, how it was coded and which components (colour channels) it has. Each component is cut into 8×8 blocks; a component with smaller sampling factors than the largest has fewer samples (it is subsampled), so one MCU, the repeating tile of the picture, holds more blocks of some components than of others.") { html in
            var facts: [(String, String)] = [
                ("size", "\(frame.width) × \(frame.height) pixels"),
                ("process", frame.process.name),
                ("precision", "\(frame.precision) bits per sample"),
                ("components", "\(frame.components.count)"),
                ("MCU", "\(mcuWidth)×\(mcuHeight) pixels; \(mcusWide) × \(mcusHigh) = \(mcusWide * mcusHigh) MCUs"),
            ]
            for marker in structure.markers {
                if case .application(let app) = marker.content, case let .adobe(_, _, _, transform) = app.details {
                    facts.append(("Adobe transform", "\(transform) (" + (["none: RGB or CMYK as stored", "YCbCr", "YCCK"][safe: transform] ?? "unknown") + ")"))
                }
            }
            html.facts(facts)
            html.table(["component", "id", "sampling H×V", "samples", "quantisation table"],
                       frame.components.enumerated().map { index, c in
                           let width = (frame.width * c.horizontal + hMax - 1) / hMax
                           let height = (frame.height * c.vertical + vMax - 1) / vMax
                           return [componentName(index, count: frame.components.count), "\(c.id)", "\(c.horizontal)×\(c.vertical)",
                                   single ? "\(frame.width)×\(frame.height)" : "\(width)×\(height)", "\(c.quantizationTable)"]
                       })
            html.element("h3", [], "One MCU")
            html.open("div", [("class", "mcu")])
            let colors = ["#7f8c8d", "#3498db", "#e74c3c", "#2c3e50"]
            for (index, c) in frame.components.enumerated() {
                let h = single ? 1 : c.horizontal, v = single ? 1 : c.vertical
                html.open("div", [("class", "comp")])
                html.open("div", [("class", "blocks"), ("style", "grid-template-columns:repeat(\(h),34px)")])
                for _ in 0 ..< h * v {
                    html.raw("<div style=\"background:\(colors[index % colors.count])\"></div>")
                }
                html.close("div")
                html.element("div", [], "\(componentName(index, count: frame.components.count)): \(h)×\(v) block\(h * v == 1 ? "" : "s")")
                html.close("div")
            }
            html.close("div")
            html.element("p", [("class", "small")], "Each square is one 8×8 block. The decoder reads the blocks of an MCU in this order, component by component, left to right and top to bottom, then upsamples the smaller components to full size.")
        }
    }

    static func componentName(_ index: Int, count: Int) -> String {
        switch count {
        case 1: return "Y (gray)"
        case 3: return ["Y", "Cb", "Cr"][index]
        case 4: return ["C / Y", "M / Cb", "Y / Cr", "K"][index]
        default: return "component \(index)"
        }
    }

    // MARK: quantisation

    static func quantizationSection(_ structure: JPEGStructure, into page: inout ExplainPage) {
        var tables: [JPEGQuantizationRecord] = []
        for marker in structure.markers {
            if case .quantizationTables(let list) = marker.content { tables += list }
        }
        guard !tables.isEmpty else { return }
        let estimate = JPEGQualityEstimate.estimate(JPEGQualityEstimate.tablesInForce(structure))
        page.section("quantization", "Quantisation", intro: "Each DCT coefficient is divided by the entry of the quantisation table at its frequency and rounded: that is where JPEG loses information. Top left is the DC term (the block's average), frequencies rise to the right and downwards; larger numbers (warmer) mean coarser steps.") { html in
            if let estimate {
                html.open("p")
                if let quality = estimate.quality {
                    html.raw("Estimated IJG quality: <strong>\(quality)</strong>")
                    html.text(estimate.identical ? " — the tables are exactly libjpeg's Annex K tables scaled for quality \(quality)."
                              : estimate.exact ? " (exact: the tables are at most as coarse as IJG's at that quality)."
                              : " (approximate: the tables are not IJG's scaled tables).")
                } else {
                    html.text("No IJG quality estimate: the tables are far from libjpeg's scaled Annex K tables.")
                }
                html.close("p")
                html.element("p", [("class", "small")], "The estimate compares the sum of all entries and four telling entries with those of the standard tables scaled for each quality 1…100, as ImageMagick's identify does.")
            }
            for table in tables {
                let values = table.values.map { Int($0) }
                let maximum = max(1, values.max() ?? 1)
                html.open("div", [("class", "gridbox")])
                html.element("div", [("class", "small")], "table \(table.id) (\(table.bits)-bit)" + (table.id == 0 ? " — usually luma" : table.id == 1 ? " — usually chroma" : ""))
                html.open("div", [("class", "grid8")])
                for v in values {
                    let t = Double(v) / Double(maximum)
                    let hue = Int(220 - 200 * t)
                    html.raw("<div style=\"background:hsl(\(hue),70%,\(Int(88 - 38 * t))%)\">\(v)</div>")
                }
                html.close("div")
                html.close("div")
            }
        }
    }

    // MARK: Huffman

    static func huffmanSection(_ structure: JPEGStructure, into page: inout ExplainPage) {
        var tables: [JPEGHuffmanRecord] = []
        for marker in structure.markers {
            if case .huffmanTables(let list) = marker.content { tables += list }
        }
        guard !tables.isEmpty else { return }
        page.section("huffman", "Huffman tables", intro: "The entropy coder gives short codes to frequent symbols. A table is sent as 16 counts (how many codes have 1, 2, … 16 bits) and the symbols in code order; the codes themselves follow (canonical Huffman codes, T.81 Annex C). DC symbols are the bit size of a DC difference; AC symbols pack a run of zeros (high nibble) with the size of the next coefficient (low nibble).") { html in
            for table in tables {
                html.element("h3", [], "\(table.tableClass == 0 ? "DC" : "AC") table \(table.id): \(table.symbols.count) symbols")
                let peak = max(1, table.counts.max() ?? 1)
                html.open("div", [("class", "hist")])
                for count in table.counts {
                    html.raw("<div style=\"height:\(count == 0 ? 1 : max(3, 80 * count / peak))px\"><span>\(count == 0 ? "" : "\(count)")</span></div>")
                }
                html.close("div")
                html.raw("<div class=\"histaxis\">" + (1 ... 16).map { "<span>\($0)</span>" }.joined() + "</div>")
                html.element("div", [("class", "small")], "code length in bits →")
                let codes = table.canonicalCodes
                html.open("details")
                html.element("summary", [], "canonical code table")
                html.table(["symbol", "meaning", "length", "code"], zip(table.symbols, codes).map { symbol, code in
                    let meaning: String
                    if table.tableClass == 0 {
                        meaning = "difference of \(symbol) bits"
                    } else if symbol == 0 {
                        meaning = "EOB: rest of block is zero"
                    } else if symbol == 0xF0 {
                        meaning = "ZRL: 16 zeros"
                    } else {
                        meaning = "\(symbol >> 4) zeros, then \(symbol & 15)-bit value"
                    }
                    return [InspectEXIF.hex8(symbol), meaning, "\(code.length)", bits(code.code, code.length)]
                })
                html.close("details")
            }
        }
    }

    static func bits(_ code: Int, _ length: Int) -> String {
        String((0 ..< length).map { (code >> (length - 1 - $0)) & 1 == 1 ? Character("1") : Character("0") })
    }

    // MARK: scans

    static func scansSection(_ structure: JPEGStructure, fileSize: Int, into page: inout ExplainPage) {
        let frame = structure.frames.first
        let progressive = frame?.process == .progressive
        page.section("scans", "Scans", intro: progressive
            ? "A progressive file sends the coefficients in several scans: first the DC terms (a blurry 1/8 picture), then bands of AC frequencies (Ss…Se in zig-zag order), often first their high bits and later the low ones (successive approximation: Ah is the bit position sent before, Al the one sent now). Each row shows the 64 zig-zag positions: orange for a first pass over a band, blue for a refinement."
            : "A sequential file sends every coefficient of every block in one pass (one scan per component when not interleaved). The row shows the 64 zig-zag positions the scan covers.") { html in
            html.open("table", [("class", "facts scans")])
            html.raw("<tr><th>scan</th><th>components</th><th>Ss–Se</th><th>Ah/Al</th><th>zig-zag positions 0…63</th><th>data bytes</th><th>restarts</th></tr>")
            for scan in structure.scans {
                let ids = scan.components.map { component -> String in
                    guard let frame, let index = frame.components.firstIndex(where: { $0.id == component.id }) else {
                        return "\(component.id)"
                    }
                    return componentName(index, count: frame.components.count)
                }
                html.open("tr")
                html.element("td", [("class", "num")], "\(scan.number)")
                html.element("td", [], ids.joined(separator: ", "))
                let band = scan.band
                html.element("td", [], "\(band.spectralStart)–\(band.spectralEnd)")
                html.element("td", [], "\(band.approximationHigh)/\(band.approximationLow)")
                html.open("td")
                var cells = "<div class=\"zz\" title=\"Ss \(band.spectralStart) to Se \(band.spectralEnd)\">"
                for k in 0 ..< 64 {
                    let on = k >= band.spectralStart && k <= band.spectralEnd
                    cells += on ? (band.approximationHigh > 0 ? "<i class=\"ref\"></i>" : "<i class=\"on\"></i>") : "<i></i>"
                }
                html.raw(cells + "</div>")
                html.close("td")
                html.element("td", [("class", "num")], "\(scan.dataLength) (\(percent(scan.dataLength, fileSize)))")
                html.element("td", [("class", "num")], scan.restartInterval > 0 ? "every \(scan.restartInterval) MCUs, \(scan.restartMarkers) RST" : "–")
                html.close("tr")
            }
            html.close("table")
        }
    }

    // MARK: stages and blocks

    static func stagesAndBlocks(_ bytes: [UInt8], structure: JPEGStructure, into page: inout ExplainPage) {
        // The 1/8 picture, whole: one pixel per luma block, which also picks the blocks to show.
        let eighth = ExplainPictures.decodeJPEG(bytes, scale: .eighth, maximumWidth: 1 << 16)
        if let error = eighth.error { page.fail(error) }
        guard eighth.image != nil || eighth.error == nil else { return }
        let progressive = structure.frames.first?.process == .progressive

        var decoder: JPEGDecoder<MemoryByteSource>?
        var snapshot: JPEGCoefficientSnapshot?
        var chosen: [(row: Int, column: Int, why: String)] = []
        do throws(JPEGError) {
            var d = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
            let info = d.info
            let hMax = info.components.map(\.horizontal).max() ?? 1
            let vMax = info.components.map(\.vertical).max() ?? 1
            let lumaWide = (info.width * info.components[0].horizontal + hMax - 1) / hMax
            let lumaHigh = (info.height * info.components[0].vertical + vMax - 1) / vMax
            let blocksWide = (lumaWide + 7) / 8, blocksHigh = (lumaHigh + 7) / 8
            let keepAll = info.components.count * blocksWide * blocksHigh <= pickableBlocks * 2
                && blocksWide * blocksHigh <= pickableBlocks
            chosen = chooseBlocks(eighth.image, blocksWide: blocksWide, blocksHigh: blocksHigh)
            var perComponent: [[Int]] = []
            for c in info.components {
                let wide = ((info.width * c.horizontal + hMax - 1) / hMax + 7) / 8
                perComponent.append(chosen.map { pick in
                    (pick.row * c.vertical / max(1, info.components[0].vertical)) * wide
                        + pick.column * c.horizontal / max(1, info.components[0].horizontal)
                })
            }
            snapshot = try d.coefficientSnapshot(keepAll: keepAll, chosen: perComponent)
            decoder = d
        } catch {
            page.fail("\(error)")
        }

        page.section("stages", "Decoding stages", intro: "What the picture looks like at each step. Decoding only the DC term of each block gives a picture 1/8 the size; the components (planes) are stored at their own resolution before the chroma planes are upsampled and everything is converted to RGB; and the DCT lets a decoder stop at 1/8, 1/4 or 1/2 of the size by using only the lowest frequencies.") { html in
            if let image = eighth.image {
                html.element("h3", [], "DC only (1/8)")
                html.figure(ExplainPictures.picture(ExplainPictures.shrink(image), minimumWidth: 320),
                            caption: "\(image.width)×\(image.height): each pixel is one block's DC coefficient (its average), enlarged without smoothing.")
            }
            if let snapshot {
                html.element("h3", [], "Component planes as stored")
                let widest = snapshot.components.map { $0.plane().width }.max() ?? 1
                for (index, component) in snapshot.components.enumerated() {
                    let plane = component.plane()
                    // One scale for all planes, so that subsampled ones look as much smaller as they are.
                    let scaleWidth = min(ExplainPictures.pageWidth, max(widest, 320))
                    let width = max(8, scaleWidth * plane.width / max(1, widest))
                    let picture = ExplainPictures.gray(width: plane.width, height: plane.height, samples: plane.samples,
                                                       maximumWidth: width).flatMap { ExplainPictures.picture($0, displayWidth: width) }
                    let full = plane.width == component.width
                    html.figure(picture, caption: "\(componentName(index, count: snapshot.components.count)): \(component.width)×\(component.height) samples\(full ? "" : " (drawn from DC terms, one sample per block)")")
                }
            }
            html.element("h3", [], "The DCT scales")
            html.element("p", [("class", "small")], "The same picture decoded at each scale the DCT allows, drawn at one size: at 1/8 each block gives one pixel (its DC term), at 1/4 a 2×2 and at 1/2 a 4×4 inverse DCT of its lowest frequencies, at 1/1 the full 8×8.")
            let shownWidth = min(260, structure.frames.first?.width ?? 260)
            for scale in [JPEGScale.eighth, .quarter, .half, .full] {
                let decoded = scale == .eighth ? eighth
                    : ExplainPictures.decodeJPEG(bytes, scale: scale, maximumWidth: shownWidth)
                let size = decoder?.outputSize(at: scale)
                html.figure(decoded.image.flatMap { ExplainPictures.picture($0, displayWidth: shownWidth) },
                            caption: (scale == .full ? "1/1" : "1/\(8 / scale.rawValue)") + ": \(size.map { "\($0.width)×\($0.height)" } ?? "?")" + (decoded.error.map { " — \($0)" } ?? ""))
            }
            if progressive { progressiveSteps(bytes, structure: structure, into: &html) }
        }
        if let snapshot { blocksSection(snapshot, chosen: chosen, picture: eighth.image, into: &page) }
    }

    /// The picture after each scan of a progressive file: the file cut after that scan's data
    /// and closed with EOI, decoded at a scale where the AC bands still show.
    static func progressiveSteps(_ bytes: [UInt8], structure: JPEGStructure, into html: inout HTMLWriter) {
        guard let frame = structure.frames.first else { return }
        html.element("h3", [], "After each scan")
        html.element("p", [("class", "small")], "The file cut after each scan and decoded: the picture sharpens as the bands of frequencies and their low bits arrive. Bytes read so far are counted from the start of the file.")
        var scale = JPEGScale.full
        for candidate in [JPEGScale.eighth, .quarter, .half] where frame.width * candidate.rawValue / 8 >= 480 {
            scale = candidate
            break
        }
        if scale == .eighth {
            html.element("p", [("class", "small")], "At this size one pixel is a whole block, so only the DC scans change the picture; the AC scans add detail inside the blocks.")
        }
        let scans = structure.scans.prefix(drawnScans)
        for scan in scans {
            let names = scan.components.map { component -> String in
                guard let index = frame.components.firstIndex(where: { $0.id == component.id }) else { return "\(component.id)" }
                return componentName(index, count: frame.components.count)
            }.joined(separator: " ")
            let end = min(bytes.count, scan.dataOffset + scan.dataLength), band = scan.band
            let prefix = Array(bytes[0 ..< end]) + [0xFF, 0xD9]
            let decoded = ExplainPictures.decodeJPEG(prefix, scale: scale, maximumWidth: 200)
            html.figure(decoded.image.flatMap { ExplainPictures.picture($0, minimumWidth: 1, maximumWidth: 200) },
                        caption: "after scan \(scan.number): \(names) \(band.spectralStart == 0 && band.spectralEnd == 0 ? "DC" : "AC \(band.spectralStart)–\(band.spectralEnd)")\(band.approximationHigh > 0 ? " refined to bit \(band.approximationLow)" : band.approximationLow > 0 ? " from bit \(band.approximationLow)" : ""); \(end) bytes read (\(percent(end, bytes.count)))")
        }
        if structure.scans.count > scans.count {
            html.element("p", [("class", "small")], "\(structure.scans.count - scans.count) more scans not drawn.")
        }
    }

    /// Blocks worth looking at, in luma block coordinates: the sharpest edge and the flattest
    /// area of the 1/8 picture (one pixel per luma block), and the centre.
    static func chooseBlocks(_ eighth: Image?, blocksWide: Int, blocksHigh: Int) -> [(row: Int, column: Int, why: String)] {
        var result: [(row: Int, column: Int, why: String)] = [(blocksHigh / 2, blocksWide / 2, "the centre block")]
        guard let image = eighth, image.width >= 3, image.height >= 3 else { return result }
        let bpp = image.format.bytesPerPixel
        func luma(_ x: Int, _ y: Int) -> Int { Int(image.row(y)[x * bpp]) }
        var best = (value: -1, x: 0, y: 0), flat = (value: Int.max, x: 0, y: 0)
        for y in 1 ..< min(image.height, blocksHigh) - 1 {
            for x in 1 ..< min(image.width, blocksWide) - 1 {
                let v = luma(x, y)
                let contrast = abs(v - luma(x + 1, y)) + abs(v - luma(x - 1, y)) + abs(v - luma(x, y + 1)) + abs(v - luma(x, y - 1))
                if contrast > best.value { best = (contrast, x, y) }
                let midtone = abs(v - 128)
                if contrast * 4 + midtone / 8 < flat.value { flat = (contrast * 4 + midtone / 8, x, y) }
            }
        }
        if best.value >= 0 { result.append((best.y, best.x, "the strongest edge")) }
        if flat.value < Int.max { result.append((flat.y, flat.x, "a flat area")) }
        return result
    }

    static func blockJSON(_ component: JPEGCoefficientSnapshot.Component, row: Int, column: Int, label: String) -> JSONValue? {
        guard let c = component.coefficients(row: row, column: column), let s = component.samples(row: row, column: column) else {
            return nil
        }
        return .object([("label", .string(label)), ("q", .array(component.quantizers.map { .int(Int($0)) })),
                        ("c", .array(c.map { .int(Int($0)) })), ("s", .array(s.map { .int(Int($0)) }))])
    }

    static func blocksSection(_ snapshot: JPEGCoefficientSnapshot, chosen: [(row: Int, column: Int, why: String)],
                              picture: Image?, into page: inout ExplainPage) {
        let luma = snapshot.components[0]
        let pickable = luma.coefficients(row: luma.blocksHigh - 1, column: luma.blocksWide - 1) != nil
        page.section("blocks", "Blocks", intro: "One 8×8 block on its way to pixels: the entropy decoder yields quantised coefficients in zig-zag order; multiplied by the quantisation table they become DCT coefficients (dequantised); the inverse DCT turns them into 64 samples, shifted by +128. Orange cells are positive, blue negative.") { html in
            if pickable, let picture {
                html.element("h3", [], "Pick a block")
                html.element("p", [("class", "small")], "Click anywhere on the picture to see the luma block there.")
                var blocks: [(String, JSONValue)] = []
                for row in 0 ..< luma.blocksHigh {
                    for column in 0 ..< luma.blocksWide {
                        if let json = blockJSON(luma, row: row, column: column, label: "luma block at row \(row), column \(column) (pixels \(column * 8)…, \(row * 8)…)") {
                            blocks.append(("\(row * luma.blocksWide + column)", json))
                        }
                    }
                }
                let data = JSONValue.object([("wide", .int(luma.blocksWide)), ("high", .int(luma.blocksHigh)),
                                             ("first", .array([.int(chosen.first?.column ?? 0), .int(chosen.first?.row ?? 0)])),
                                             ("blocks", .object(blocks))])
                html.open("div", [("class", "pickable"), ("id", "pickpicture")])
                let shown = ExplainPictures.picture(ExplainPictures.shrink(picture), minimumWidth: 320)
                if let shown {
                    html.open("img", [("src", shown.dataURI), ("width", "\(shown.displayWidth)"), ("height", "\(shown.displayHeight)"),
                                      ("alt", "the picture at 1/8, one pixel per block"), ("class", "px")])
                }
                html.close("div")
                html.raw("<script type=\"application/json\" data-blocks=\"1\" data-picture=\"pickpicture\" data-target=\"picked\">")
                html.raw(data.text.replacingOccurrences(of: "</", with: "<\\/"))
                html.raw("</script>")
                html.element("div", [("id", "picked")], "")
            }
            html.element("h3", [], "Chosen blocks")
            var n = 0
            for pick in chosen {
                for (index, component) in snapshot.components.enumerated() {
                    let row = pick.row * component.vertical / max(1, luma.vertical)
                    let column = pick.column * component.horizontal / max(1, luma.horizontal)
                    guard let json = blockJSON(component, row: row, column: column,
                                               label: "\(pick.why): \(componentName(index, count: snapshot.components.count)) block at row \(row), column \(column)") else { continue }
                    n += 1
                    html.open("div", [("id", "block\(n)"), ("data-block", json.text)])
                    html.close("div")
                }
            }
        }
    }
}

extension String {
    /// Every occurrence of `target` replaced by `replacement`.
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        let text = Array(utf8), key = Array(target.utf8)
        guard !key.isEmpty, text.count >= key.count else { return self }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            if i + key.count <= text.count && text[i] == key[0] && Array(text[i ..< i + key.count]) == key {
                out += Array(replacement.utf8)
                i += key.count
            } else {
                out.append(text[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
