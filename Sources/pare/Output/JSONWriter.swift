/// A JSON value built in memory and written by hand (RFC 8259), so that the command line
/// needs no encoder: objects keep their keys in insertion order, which makes the output
/// read in the order of the file it describes.
indirect enum JSONValue {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// The value as compact JSON text.
    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case let .bool(value): out += value ? "true" : "false"
        case let .int(value): out += "\(value)"
        case let .double(value): out += value.isFinite ? "\(value)" : "null"
        case let .string(value): out += JSONValue.quoted(value)
        case let .array(items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case let .object(members):
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                out += JSONValue.quoted(key) + ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    /// A JSON string literal (RFC 8259 §7): quotes, backslashes and control characters
    /// escaped; everything else, non-ASCII included, as UTF-8.
    static func quoted(_ text: String) -> String {
        var out = "\""
        TextEscaping.append(text, to: &out, replacing: escapes) { scalar in
            guard scalar.value < 0x20 || scalar.value == 0x7F else { return nil }
            let digits = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
        }
        return out + "\""
    }

    /// The two-character escapes of RFC 8259 §7 that `quoted` writes (backspace and form feed
    /// go as \u0008 and \u000c, with the other control characters).
    static let escapes: [Unicode.Scalar: String] = ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"]
}

/// Builds a JSON object member by member; optional values become null.
struct JSONObjectBuilder {
    private(set) var members: [(String, JSONValue)] = []

    mutating func add(_ key: String, _ value: JSONValue) { members.append((key, value)) }
    mutating func add(_ key: String, _ value: String?) { add(key, value.map { .string($0) } ?? .null) }
    mutating func add(_ key: String, _ value: Int?) { add(key, value.map { .int($0) } ?? .null) }
    mutating func add(_ key: String, _ value: Double?) { add(key, value.map { .double($0) } ?? .null) }
    mutating func add(_ key: String, _ value: Bool) { add(key, .bool(value)) }

    /// A member holding an array of objects, one per element, each filled by `fill`.
    mutating func add<Elements: Sequence>(_ key: String, objects elements: Elements,
                                          _ fill: (inout JSONObjectBuilder, Elements.Element) -> Void) {
        add(key, .array(elements.map { element in
            var object = JSONObjectBuilder()
            fill(&object, element)
            return object.value
        }))
    }

    var value: JSONValue { .object(members) }
}
