import PareCore
@_spi(Explain) import ParePNG

/// The PNG section of `pare explain` (`id="chunks"`, PNG 3rd ed.): the chunk list with each
/// CRC checked (§5.3), IHDR decoded (§11.2.1), the filter type of every scanline as a strip
/// beside the picture (§7.3, §9), the picture after each of the seven Adam7 passes (§8.2), the palette and
/// its transparency (§11.2.3, §11.3.1.1) and the text chunks (§11.3.3); then the metadata.
enum ExplainPNG {
    static let colorTypes = [0: "gray", 2: "RGB", 3: "palette", 4: "gray + alpha", 6: "RGBA"]
    static let filterNames = ["None", "Sub", "Up", "Average", "Paeth"]

    static func explain(_ bytes: [UInt8], into page: inout ExplainPage) {
        let structure = PNGStructure.walk(MemoryByteSource(bytes), ledger: MemoryLedger())
        if let failure = structure.failure { page.fail("\(failure)") }
        var image: Image?
        var metadata: PNGMetadata?
        do throws(PNGError) {
            let ledger = MemoryLedger()
            var decoder = try PNGDecoder(source: MemoryByteSource(bytes), ledger: ledger)
            var builder = ImageBuilder(ledger: ledger)
            do throws(PNGError) {
                try decoder.decode(into: &builder)
                image = builder.image
            } catch {
                page.fail("\(error)")
            }
            metadata = decoder.metadata
        } catch {
            page.fail("\(error)")
        }
        page.spans = structure.chunks.map { chunk in
            let kind = !chunk.crcMatches ? "k-bad" : chunk.type == "IDAT" ? "k-idat"
                : ["tEXt", "zTXt", "iTXt"].contains(chunk.type) ? "k-text" : chunk.type == "eXIf" ? "k-meta" : "k-chunk"
            return ByteSpan(offset: chunk.offset, length: chunk.length + 12, label: chunk.type,
                            what: "\(chunk.type) chunk, \(chunk.length) data bytes, CRC \(chunk.crcMatches ? "ok" : "BAD")",
                            kind: kind, section: chunk.type == "eXIf" ? "metadata" : "chunks")
        } + [ByteSpan(offset: 0, length: 8, label: "signature", what: "PNG signature", kind: "k-marker", section: "chunks")]
            + (structure.trailingBytes > 0 ? [ByteSpan(offset: bytes.count - structure.trailingBytes, length: structure.trailingBytes,
                                                       label: "after IEND", what: "bytes after IEND", kind: "k-trail", section: "chunks")] : [])
        if let header = structure.header {
            page.summary = "\(header.width)×\(header.height), \(colorTypes[header.colorType] ?? "?") \(header.bitDepth)-bit"
                + (header.interlaced ? ", Adam7" : "")
        }

        page.section("chunks", "Chunks", intro: "A PNG is a signature and a list of chunks: length, four-letter type, data, and a CRC over type and data. IHDR describes the image; IDAT chunks together hold one zlib stream of scanlines, each preceded by a filter type byte that says how the row was predicted from its neighbours before compression.") { html in
            html.table(["offset", "type", "data bytes", "CRC", "kind"], structure.chunks.prefix(500).map {
                ["\($0.offset)", $0.type, "\($0.length)", $0.crcMatches ? "ok" : "BAD", $0.isCritical ? "critical" : "ancillary"]
            })
            if structure.unlistedChunks > 0 {
                html.element("p", [("class", "small")], "\(structure.unlistedChunks) more chunks not listed.")
            }
            if let header = structure.header {
                html.element("h3", [], "IHDR")
                html.facts([("size", "\(header.width) × \(header.height)"),
                            ("colour type", "\(header.colorType): \(colorTypes[header.colorType] ?? "unknown")"),
                            ("bit depth", "\(header.bitDepth) bits per sample, \(header.bitsPerPixel) per pixel"),
                            ("interlace", header.interlaced ? "Adam7 (seven passes)" : "none"),
                            ("image data", "\(structure.compressedBytes) compressed bytes → \(structure.inflatedBytes) bytes of filtered scanlines")])
                filterStrip(structure, header: header, image: image, into: &html)
                if header.interlaced, let image { adam7(image, into: &html) }
            }
            palette(bytes, structure: structure, into: &html)
            if let metadata, !metadata.texts.isEmpty {
                html.element("h3", [], "Text")
                html.table(["keyword", "text"], metadata.texts.prefix(100).map {
                    [$0.keyword, InspectEXIF.abbreviated($0.value, limit: 2000)]
                })
            }
        }
        ExplainMetadata.explainPNG(metadata, into: &page)
    }

    static func filterStrip(_ structure: PNGStructure, header: PNGHeader, image: Image?, into html: inout HTMLWriter) {
        html.element("h3", [], "Row filters")
        let counts = zip(filterNames, structure.filterCounts).map { "\($0): \($1)" }.joined(separator: ", ")
        html.element("p", [("class", "small")], "Each scanline's filter type (" + counts + ")"
            + (header.interlaced ? "; the rows of the seven passes follow each other, so the strip is longer than the picture is high." : ", drawn beside its row."))
        html.open("div", [("class", "strip")])
        let shown = image.flatMap { ExplainPictures.picture(ExplainPictures.shrink($0), minimumWidth: 160) }
        let height = shown?.displayHeight ?? 200
        let rows = structure.rowFilters
        if !rows.isEmpty {
            // Runs of equal filters become one div, so a tall image stays a small page.
            html.open("div", [("class", "rows"), ("style", "height:\(height)px"), ("title", "filter type per row")])
            var start = 0
            while start < rows.count {
                var end = start
                while end < rows.count && rows[end] == rows[start] { end += 1 }
                let share = Double(end - start) / Double(rows.count)
                html.raw("<div class=\"f\(min(4, rows[start]))\" style=\"flex:\(share) 1 0\" title=\"rows \(start)–\(end - 1): \(filterNames[Int(min(4, rows[start]))])\"></div>")
                start = end
            }
            html.close("div")
        }
        html.figure(shown, caption: "the decoded image")
        html.close("div")
        html.open("div", [("class", "legend")])
        for (i, name) in filterNames.enumerated() { html.raw("<span><i class=\"f\(i)\"></i>\(i) \(name)</span>") }
        html.close("div")
    }

    /// The picture as a viewer shows it after each pass: every pixel not yet sent takes the
    /// value of the sent one at the top left of its cell. After pass p the pixels sent form a
    /// regular grid (8×8 after pass 1, then 4×8, 4×4, 2×4, 2×2, 1×2 and 1×1), so the cell is
    /// that grid's. Drawn by nearest-pixel sampling at the page's size, so a large image
    /// costs no more than a small one.
    static func adam7(_ image: Image, into html: inout HTMLWriter) {
        html.element("h3", [], "Adam7 passes")
        html.element("p", [("class", "small")], "An interlaced PNG sends its pixels in seven passes over an 8×8 grid: pass 1 sends one pixel in 64, and each later pass doubles the count, so a viewer can draw a coarse picture early and refine it. Each picture is the image after that pass, every pixel not yet sent filled from the nearest sent one above and to the left.")
        let cells = [(8, 8), (4, 8), (4, 4), (2, 4), (2, 2), (1, 2), (1, 1)]
        let bpp = image.format.bytesPerPixel
        let (drawnWidth, drawnHeight) = ExplainPictures.fitted(image.width, image.height, 200)
        for (number, pass) in Adam7Pass.passes.enumerated() {
            let (cellWidth, cellHeight) = cells[number]
            guard var partial = try? Image(width: drawnWidth, height: drawnHeight, format: image.format) else { continue }
            for dy in 0 ..< drawnHeight {
                let y = dy * image.height / drawnHeight
                let source = image.row(y - y % cellHeight)
                partial.withMutableRow(dy) { target in
                    for dx in 0 ..< drawnWidth {
                        let x = dx * image.width / drawnWidth
                        let from = (x - x % cellWidth) * bpp
                        for b in 0 ..< bpp { target[dx * bpp + b] = source[from + b] }
                    }
                }
            }
            html.figure(ExplainPictures.picture(partial, displayWidth: max(drawnWidth, 112)),
                        caption: "after pass \(number + 1): \(pass.width(of: image.width))×\(pass.height(of: image.height)) pixels sent")
        }
    }

    /// PLTE swatches, each with its tRNS alpha when there is one (read from the chunks' bytes).
    static func palette(_ bytes: [UInt8], structure: PNGStructure, into html: inout HTMLWriter) {
        guard let plte = structure.chunks.first(where: { $0.type == "PLTE" }) else { return }
        let start = plte.offset + 8
        guard start + plte.length <= bytes.count else { return }
        var alpha: [UInt8] = []
        if let trns = structure.chunks.first(where: { $0.type == "tRNS" }), trns.offset + 8 + trns.length <= bytes.count {
            alpha = Array(bytes[(trns.offset + 8) ..< (trns.offset + 8 + trns.length)])
        }
        html.element("h3", [], "Palette: \(plte.length / 3) entries" + (alpha.isEmpty ? "" : ", \(alpha.count) with tRNS alpha"))
        html.open("div", [("class", "swatches")])
        for i in 0 ..< plte.length / 3 {
            let r = bytes[start + 3 * i], g = bytes[start + 3 * i + 1], b = bytes[start + 3 * i + 2]
            let a = i < alpha.count ? Double(alpha[i]) / 255 : 1
            html.raw("<div style=\"background:rgba(\(r),\(g),\(b),\(a))\" title=\"\(i): #\(hex(r))\(hex(g))\(hex(b))\(i < alpha.count ? " alpha \(alpha[i])" : "")\"></div>")
        }
        html.close("div")
    }

    static func hex(_ v: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(v >> 4)], digits[Int(v & 15)]])
    }
}
