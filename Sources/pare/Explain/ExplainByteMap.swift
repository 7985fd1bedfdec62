/// The byte map (`id="bytes"`): the whole file as one bar, each segment, chunk, IFD, run of
/// entropy-coded data or trailing bytes a part of it as wide as its share of the file (with a
/// minimum, so that two-byte markers stay visible), coloured by kind and linked to the
/// section that explains it. Bytes no part claims are shown as such, and the error, if any,
/// as a red line at its offset.
enum ExplainByteMap {
    static func render(spans: [ByteSpan], fileSize: Int, errorOffset: Int?, into html: inout HTMLWriter) {
        let parts = filled(spans, fileSize: fileSize)
        html.section("bytes", "Byte map",
                     intro: "The file from its first byte (left) to its last (right). Each coloured part is a marker segment, chunk, directory or run of compressed data, as wide as its share of the file. Hover over a part for its offset and length; click it to jump to the section that explains it.") { html in
            html.open("div", [("class", "bar"), ("role", "img"), ("aria-label", "byte map")])
            for span in parts {
                let share = fileSize > 0 ? Double(span.length) / Double(fileSize) : 0
                let info = "\(span.label): offset \(span.offset), length \(span.length) bytes (\(percent(span.length, fileSize))) — \(span.what)"
                html.open("a", [("href", "#" + span.section), ("class", span.kind),
                                ("style", "flex:\(max(share, 0.0000001)) 1 0"), ("title", info), ("data-info", info)])
                html.text(share > 0.04 ? span.label : "")
                html.close("a")
            }
            if let errorOffset, fileSize > 0 {
                let left = min(100.0, 100.0 * Double(errorOffset) / Double(fileSize))
                html.open("div", [("class", "err"), ("style", "left:calc(\(left)% - 1px)"),
                                  ("title", "reading stopped at byte \(errorOffset)")])
                html.close("div")
            }
            html.close("div")
            html.element("div", [("id", "byteinfo"), ("class", "mono")], "Hover over the bar.")
            var kinds: [(String, String)] = []
            for span in parts where !kinds.contains(where: { $0.0 == span.kind }) {
                kinds.append((span.kind, legend[span.kind] ?? span.kind))
            }
            html.open("div", [("class", "legend")])
            for (kind, name) in kinds {
                html.raw("<span><i class=\"\(kind)\"></i>\(HTMLWriter.escape(name))</span>")
            }
            html.close("div")
            html.open("details")
            html.element("summary", [], "Every part, in file order (\(parts.count))")
            html.table(["offset", "length", "part", "what"], parts.prefix(2000).map {
                ["\($0.offset)", "\($0.length)", $0.label, $0.what]
            })
            html.close("details")
        }
    }

    static let legend: [String: String] = [
        "k-marker": "marker", "k-table": "tables", "k-frame": "frame header", "k-scan": "scan header",
        "k-data": "entropy-coded / compressed data", "k-app": "application segment", "k-meta": "metadata",
        "k-trail": "after the end", "k-chunk": "chunk", "k-idat": "image data", "k-bad": "damaged or unclaimed",
        "k-text": "text",
    ]

    /// The spans sorted, overlaps cut, and the gaps between them filled with "unclaimed"
    /// parts, so that the bar covers every byte exactly once.
    static func filled(_ spans: [ByteSpan], fileSize: Int) -> [ByteSpan] {
        var result: [ByteSpan] = []
        var position = 0
        for var span in spans.sorted(by: { $0.offset < $1.offset }) where span.length > 0 {
            if span.offset < position {
                let cut = position - span.offset
                guard span.length > cut else { continue }
                span.offset = position
                span.length -= cut
            }
            if span.offset > position {
                result.append(ByteSpan(offset: position, length: span.offset - position, label: "?",
                                       what: "bytes no structure claims", kind: "k-bad", section: "bytes"))
            }
            span.length = min(span.length, fileSize - span.offset)
            guard span.length > 0 else { continue }
            result.append(span)
            position = span.offset + span.length
        }
        if position < fileSize {
            result.append(ByteSpan(offset: position, length: fileSize - position, label: "?",
                                   what: "bytes no structure claims", kind: "k-bad", section: "bytes"))
        }
        return result
    }
}
