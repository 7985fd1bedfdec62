/// Just enough of XMP (ISO 16684-1) to read a few simple properties of a packet: the value
/// of a property written as an attribute (`hdrgm:Gamma="1"`), as an element
/// (`<hdrgm:Gamma>1</hdrgm:Gamma>`) or as the items of an `rdf:Seq` in that element (a value
/// per colour channel). Prefixes are resolved through the packet's own `xmlns:` declarations
/// (§7.2: the namespace URI names a property, not the prefix), so a writer that says `gm:`
/// for the gain-map namespace is read like one that says `hdrgm:`. Not a full RDF parser:
/// no entity references beyond the five predefined ones, no `rdf:parseType` resources.
///
/// The packet is the APP1 payload after "http://ns.adobe.com/xap/1.0/\0" (XMP part 3 §1.1.3).
public struct XMPPacket: Sendable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The prefix a namespace URI is bound to in the packet (`xmlns:PREFIX="URI"`), nil when
    /// the packet never declares it.
    public func prefix(of namespace: String) -> String? {
        let needle = Array("=\"\(namespace)\"".utf8), needle2 = Array("='\(namespace)'".utf8)
        var at = 0
        while let found = find(Self.xmlns, from: at) {
            let nameStart = found + Self.xmlns.count
            var end = nameStart
            while end < bytes.count, Self.isNameByte(bytes[end]) { end += 1 }
            if matches(needle, at: end) || matches(needle2, at: end) {
                return String(decoding: bytes[nameStart ..< end], as: UTF8.self)
            }
            at = end
        }
        return nil
    }

    /// The values of the property `name` in `namespace`: one string for a simple property, one
    /// per item for an `rdf:Seq`/`rdf:Bag`/`rdf:Alt`. Empty when the property is absent.
    public func values(_ name: String, in namespace: String) -> [String] {
        guard let prefix = prefix(of: namespace) else { return [] }
        return values(qualified: "\(prefix):\(name)")
    }

    /// The values of a property named with the prefix the packet uses for it: for fragments
    /// of a packet (a GContainer item) whose prefixes were resolved on the whole packet.
    func values(qualified name: String) -> [String] {
        let qualified = Array(name.utf8)
        var at = 0
        while let found = find(qualified, from: at) {
            at = found + qualified.count
            // The name must stand alone: not part of a longer one (`GainMapMinimum`).
            guard found > 0, at < bytes.count, !Self.isNameByte(bytes[at]) else { continue }
            let before = bytes[found - 1]
            if before == 0x3C {
                // `<prefix:name ...>value</prefix:name>` or an rdf:Seq inside it.
                guard let close = find([0x3E], from: at) else { return [] }
                if close > 0, bytes[close - 1] == 0x2F { return [] } // `<x/>`: empty
                guard let end = find(Array("</".utf8) + qualified, from: close) else { return [] }
                let content = Array(bytes[(close + 1) ..< end])
                let items = XMPPacket(content).elementTexts(Array("rdf:li".utf8))
                if !items.isEmpty { return items }
                return [Self.unescaped(content).trimmed]
            } else if Self.isSpace(before) {
                // `prefix:name="value"` as an attribute.
                var i = at
                while i < bytes.count, Self.isSpace(bytes[i]) { i += 1 }
                guard i < bytes.count, bytes[i] == 0x3D else { continue }
                i += 1
                while i < bytes.count, Self.isSpace(bytes[i]) { i += 1 }
                guard i < bytes.count, bytes[i] == 0x22 || bytes[i] == 0x27 else { continue }
                let quote = bytes[i]
                guard let end = find([quote], from: i + 1) else { return [] }
                return [Self.unescaped(Array(bytes[(i + 1) ..< end]))]
            }
        }
        return []
    }

    /// The first value of `name`, as a number (`values` parsed by `XMPPacket.number`).
    public func number(_ name: String, in namespace: String) -> Double? {
        values(name, in: namespace).first.flatMap(Self.number)
    }

    /// The texts of every `<tag …>text</tag>` at any depth, in order.
    func elementTexts(_ tag: [UInt8]) -> [String] {
        elements(tag).compactMap { fragment in
            // " <tag …>text</tag>": the text between the first '>' and the last "</".
            let bytes = fragment.bytes
            guard let open = bytes.firstIndex(of: 0x3E), bytes[open - 1] != 0x2F,
                  let close = fragment.lastIndex(of: Array("</".utf8)), close > open else { return nil }
            return Self.unescaped(Array(bytes[(open + 1) ..< close])).trimmed
        }
    }

    /// The fragments `<tag …>…</tag>` (or `<tag …/>`), each as a packet of its own: the items
    /// of a GContainer directory.
    func elements(_ tag: [UInt8]) -> [XMPPacket] {
        var result: [XMPPacket] = []
        var at = 0
        let open = [0x3C] + tag, close = Array("</".utf8) + tag
        while let found = find(open, from: at) {
            at = found + open.count
            guard at < bytes.count, !Self.isNameByte(bytes[at]), let end = find([0x3E], from: at) else { continue }
            var stop = end + 1
            if bytes[end - 1] != 0x2F, let closing = find(close, from: end) { stop = closing + close.count }
            // A leading space, so that the first attribute reads as one.
            result.append(XMPPacket([0x20] + Array(bytes[found ..< stop])))
            at = stop
        }
        return result
    }

    /// A decimal number as XMP writes reals and integers ("2.3", "-0.5", "1e-3", "+4").
    public static func number(_ text: String) -> Double? {
        var digits = Array(text.utf8)[...]
        while let first = digits.first, isSpace(first) { digits.removeFirst() }
        while let last = digits.last, isSpace(last) { digits.removeLast() }
        var negative = false
        if let sign = digits.first, sign == 0x2D || sign == 0x2B {
            negative = sign == 0x2D
            digits.removeFirst()
        }
        var mantissa = 0.0, scale = 0, sawDigit = false, inFraction = false
        while let c = digits.first, (0x30 ... 0x39).contains(c) || (c == 0x2E && !inFraction) {
            digits.removeFirst()
            if c == 0x2E { inFraction = true; continue }
            sawDigit = true
            // Beyond 17 significant digits a Double cannot tell them apart.
            if mantissa < 1e17 {
                mantissa = mantissa * 10 + Double(c - 0x30)
                if inFraction { scale -= 1 }
            } else if !inFraction {
                scale += 1
            }
        }
        guard sawDigit else { return nil }
        if let e = digits.first, e == 0x65 || e == 0x45 {
            digits.removeFirst()
            var exponentNegative = false
            if let sign = digits.first, sign == 0x2D || sign == 0x2B {
                exponentNegative = sign == 0x2D
                digits.removeFirst()
            }
            var exponent = 0, sawExponent = false
            while let c = digits.first, (0x30 ... 0x39).contains(c) {
                digits.removeFirst()
                sawExponent = true
                if exponent < 10_000 { exponent = exponent * 10 + Int(c - 0x30) }
            }
            guard sawExponent else { return nil }
            scale += exponentNegative ? -exponent : exponent
        }
        guard digits.isEmpty else { return nil }
        var value = mantissa
        // Powers of ten one step at a time: exact for the small exponents XMP holds, and
        // bounded (a huge exponent saturates to 0 or infinity, then stops).
        var steps = min(abs(scale), 400)
        while steps > 0 {
            value = scale < 0 ? value / 10 : value * 10
            steps -= 1
        }
        return negative ? -value : value
    }

    /// XMP booleans are "True" and "False" (XMP part 1 §8.2.1.1); other spellings are read
    /// leniently.
    public static func boolean(_ text: String) -> Bool? {
        switch text {
        case "True", "true", "TRUE", "1": return true
        case "False", "false", "FALSE", "0": return false
        default: return nil
        }
    }

    // MARK: Bytes

    static let xmlns = Array("xmlns:".utf8)

    func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start >= 0, needle.count <= bytes.count else { return nil }
        var i = start
        let last = bytes.count - needle.count
        while i <= last {
            if bytes[i] == needle[0], matches(needle, at: i) { return i }
            i += 1
        }
        return nil
    }

    func lastIndex(of needle: [UInt8]) -> Int? {
        var i = bytes.count - needle.count
        while i >= 0 {
            if matches(needle, at: i) { return i }
            i -= 1
        }
        return nil
    }

    func matches(_ needle: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset + needle.count <= bytes.count else { return false }
        for k in 0 ..< needle.count where bytes[offset + k] != needle[k] { return false }
        return true
    }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    /// Letters, digits, '_', '-', '.', ':' and non-ASCII: the bytes of an XML name.
    static func isNameByte(_ c: UInt8) -> Bool {
        (0x30 ... 0x39).contains(c) || (0x41 ... 0x5A).contains(c) || (0x61 ... 0x7A).contains(c)
            || c == 0x5F || c == 0x2D || c == 0x2E || c == 0x3A || c >= 0x80
    }

    /// Text with XML's five predefined entities replaced (XML 1.0 §4.6).
    static func unescaped(_ text: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        let entities: [([UInt8], UInt8)] = [(Array("&amp;".utf8), 0x26), (Array("&lt;".utf8), 0x3C),
                                            (Array("&gt;".utf8), 0x3E), (Array("&quot;".utf8), 0x22),
                                            (Array("&apos;".utf8), 0x27)]
        outer: while i < text.count {
            if text[i] == 0x26 {
                for (name, value) in entities where i + name.count <= text.count && Array(text[i ..< i + name.count]) == name {
                    out.append(value)
                    i += name.count
                    continue outer
                }
            }
            out.append(text[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}

private extension String {
    var trimmed: String {
        var utf8 = Array(self.utf8)[...]
        while let first = utf8.first, XMPPacket.isSpace(first) { utf8.removeFirst() }
        while let last = utf8.last, XMPPacket.isSpace(last) { utf8.removeLast() }
        return String(decoding: utf8, as: UTF8.self)
    }
}
