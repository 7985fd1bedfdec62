import Pare

/// `pare explain IN -o REPORT.html`: one self-contained page that shows a file stage by
/// stage, for people learning the formats and people finding out why a file misbehaves.
///
/// The page has a byte map of the whole file (`bytes`), then per format: for JPEG the frame,
/// quantisation tables with the estimated IJG quality, Huffman tables, the scan script, the
/// picture at each decoding stage and single blocks through dequantisation and the IDCT
/// (`ExplainJPEG`); for PNG the chunks, filters, Adam7 passes, palette and text
/// (`ExplainPNG`); for both, and TIFF, the metadata (`ExplainMetadata`). Broken files still
/// get a page: whatever was read, and the error (`error`) marked on the byte map.
///
/// Exit status: 0 when the page was written, even for a broken file (the page says why);
/// 1 when the input cannot be read or the page cannot be written; 2 on a usage error.
func runExplain(_ raw: [String]) -> Int32 {
    let arguments: Arguments
    do {
        arguments = try Arguments(raw, valued: ["-o"], boolean: [])
    } catch {
        return usageError(error.message)
    }
    guard arguments.positionals.count == 1 else { return usageError("explain needs one input") }
    guard let output = arguments.value("-o") else { return usageError("explain needs -o REPORT.html") }
    let input = arguments.positionals[0]
    guard let bytes = readInput(input) else {
        printError("pare: \(input): cannot read the file")
        return 1
    }
    let html = ExplainPage.render(bytes, name: Path.lastComponent(input))
    guard writeOutput(Array(html.utf8), to: output) else {
        printError("pare: \(output): cannot write the file")
        return 1
    }
    return 0
}

/// A part of the file on the byte map.
struct ByteSpan {
    var offset: Int
    var length: Int
    /// Short name drawn on the bar ("DQT", "IDAT", "scan 3 data").
    var label: String
    /// What it is, for the hover line.
    var what: String
    /// The colour class (see `HTMLWriter.style`: k-marker, k-table, k-data…).
    var kind: String
    /// The id of the section that explains it.
    var section: String
}

/// The page being built: the byte map's spans, the sections in order, and where reading
/// stopped.
struct ExplainPage {
    var name: String
    var format = "unknown"
    var summary = ""
    var fileSize: Int
    var spans: [ByteSpan] = []
    /// (id, title) of each section after the byte map, for the navigation bar.
    var sections: [(String, String)] = []
    var body = HTMLWriter()
    /// The error that stopped reading, and its offset when it names one.
    var error: String?
    var errorOffset: Int?
    /// Lesser findings shown with the error section.
    var warnings: [String] = []

    init(name: String, fileSize: Int) {
        self.name = name
        self.fileSize = fileSize
    }

    mutating func section(_ id: String, _ title: String, intro: String, body content: (inout HTMLWriter) -> Void) {
        sections.append((id, title))
        body.section(id, title, intro: intro, body: content)
    }

    /// Records the first error; its offset is read from the "at byte N" every error of the
    /// codecs ends with.
    mutating func fail(_ message: String) {
        guard error == nil else { return }
        error = message
        errorOffset = Self.offset(in: message)
    }

    static func offset(in message: String) -> Int? {
        let text = Array(message.utf8), key = Array("at byte ".utf8)
        guard text.count >= key.count else { return nil }
        for start in stride(from: text.count - key.count, through: 0, by: -1) where Array(text[start ..< start + key.count]) == key {
            let digits = text[(start + key.count)...].prefix { $0 >= 0x30 && $0 <= 0x39 }
            return Int(String(decoding: digits, as: UTF8.self))
        }
        return nil
    }

    /// The formats a page explains stage by stage, each with the code that fills it in.
    static let explainers: [ImageFormat: @Sendable ([UInt8], inout ExplainPage) -> Void] = [
        .jpeg: ExplainJPEG.explain, .png: ExplainPNG.explain, .tiff: ExplainContainers.tiff,
        .webp: ExplainContainers.webp, .gif: ExplainContainers.gif,
    ]

    /// The whole page for `bytes`.
    static func render(_ bytes: [UInt8], name: String) -> String {
        var page = ExplainPage(name: name, fileSize: bytes.count)
        let format = ImageFormat(sniffing: Array(bytes.prefix(16)))
        if let format, let explain = explainers[format] {
            page.format = format.displayName
            explain(bytes, &page)
        } else if let format {
            page.format = format.rawValue.uppercased()
            page.spans = [ByteSpan(offset: 0, length: bytes.count, label: format.rawValue, what: "the whole file",
                                   kind: "k-data", section: "error")]
        } else {
            page.fail("\(PareError.unreadable(sniffing: Array(bytes.prefix(16))))")
            page.spans = [ByteSpan(offset: 0, length: bytes.count, label: "unknown", what: "bytes of no known format",
                                   kind: "k-bad", section: "error")]
        }
        if page.error != nil || !page.warnings.isEmpty { page.errorSection() }
        return page.assemble()
    }

    mutating func errorSection() {
        let message = error
        let offset = errorOffset
        let warnings = self.warnings
        let fileSize = self.fileSize
        section("error", message == nil ? "Warnings" : "Where reading stopped",
                intro: message == nil
                    ? "The file was read to its end, with the repairs and oddities below."
                    : "Reading stopped here. Everything above this section is what could be read before it; the red line on the byte map marks the place.") { html in
            if let message {
                html.open("p")
                html.element("strong", [], message)
                html.close("p")
                if let offset {
                    html.element("p", [("class", "small")], "Offset \(offset) of \(fileSize) bytes (\(percent(offset, fileSize)) into the file).")
                }
            }
            if !warnings.isEmpty {
                html.element("h3", [], "Warnings")
                html.open("ul")
                for warning in warnings.prefix(50) { html.element("li", [], warning) }
                html.close("ul")
            }
        }
        if message != nil { body.raw("<script>document.getElementById('error').classList.add('error');</script>") }
    }

    func assemble() -> String {
        var html = HTMLWriter()
        html.open("header")
        html.element("h1", [], "pare explain: \(name)")
        html.element("p", [], "\(format), \(fileSize) bytes" + (summary.isEmpty ? "" : " · " + summary))
        html.close("header")
        html.open("nav")
        html.element("a", [("href", "#bytes")], "bytes")
        for (id, title) in sections { html.element("a", [("href", "#" + id)], title) }
        html.close("nav")
        html.open("main")
        ExplainByteMap.render(spans: spans, fileSize: fileSize, errorOffset: errorOffset, into: &html)
        html.raw(body.text)
        html.close("main")
        return HTMLWriter.page(title: "pare explain: \(name)", body: html.text)
    }
}

/// "12.5%" of `part` in `whole`.
func percent(_ part: Int, _ whole: Int) -> String {
    guard whole > 0 else { return "0%" }
    let tenths = (part * 1000 + whole / 2) / whole
    return "\(tenths / 10).\(tenths % 10)%"
}
