/// Writes an inspection report as an indented tree for people: scalars as `key: value`,
/// lists of numbers on one line, lists of equal-length number rows (quantisation tables) as
/// aligned grids, and lists of objects as `- ` items whose plain fields share the item's
/// line while nested ones are indented below it.
enum InspectText {
    static func render(_ report: JSONValue) -> String {
        var lines: [String] = []
        if case let .object(members) = report {
            object(members, indent: 0, into: &lines)
        } else {
            lines.append(scalar(report))
        }
        return lines.joined(separator: "\n")
    }

    private static func object(_ members: [(String, JSONValue)], indent: Int, into lines: inout [String]) {
        let pad = String(repeating: " ", count: indent)
        for (key, value) in members {
            if key == "error", case .null = value { continue }
            switch value {
            case .object(let nested):
                lines.append(pad + key + ":")
                object(nested, indent: indent + 2, into: &lines)
            case .array(let items) where items.isEmpty:
                lines.append(pad + key + ": (none)")
            case .array(let items) where items.allSatisfy(isScalar):
                lines.append(pad + key + ": " + items.map(scalar).joined(separator: " "))
            case .array(let items) where items.allSatisfy(isScalarRow):
                lines.append(pad + key + ":")
                grid(items, indent: indent + 2, into: &lines)
            case .array(let items):
                lines.append(pad + key + ":")
                for item in items { listItem(item, indent: indent + 2, into: &lines) }
            default:
                lines.append(pad + key + ": " + scalar(value))
            }
        }
    }

    private static func listItem(_ item: JSONValue, indent: Int, into lines: inout [String]) {
        let pad = String(repeating: " ", count: indent)
        guard case let .object(members) = item else {
            lines.append(pad + "- " + scalar(item))
            return
        }
        var inline: [String] = []
        var nested: [(String, JSONValue)] = []
        for (index, (key, value)) in members.enumerated() {
            if isScalar(value) {
                if case .null = value { continue }
                // A first field that is text names the item ("SOF0", "IDAT", "Orientation"):
                // shown bare.
                if index == 0, case .string = value {
                    inline.append(scalar(value))
                } else {
                    inline.append(key + " " + scalar(value))
                }
            } else if case let .array(items) = value, !items.isEmpty, items.count <= 16, items.allSatisfy(isScalar) {
                inline.append(key + " " + items.map(scalar).joined(separator: " "))
            } else {
                nested.append((key, value))
            }
        }
        lines.append(pad + "- " + inline.joined(separator: ", "))
        object(nested, indent: indent + 4, into: &lines)
    }

    private static func grid(_ rows: [JSONValue], indent: Int, into lines: inout [String]) {
        let cells = rows.map { row -> [String] in
            guard case let .array(items) = row else { return [] }
            return items.map(scalar)
        }
        let width = cells.flatMap { $0 }.map(\.count).max() ?? 1
        let pad = String(repeating: " ", count: indent)
        for row in cells {
            lines.append(pad + row.map { String(repeating: " ", count: width - $0.count) + $0 }.joined(separator: " "))
        }
    }

    private static func isScalar(_ value: JSONValue) -> Bool {
        switch value {
        case .array, .object: return false
        default: return true
        }
    }

    private static func isScalarRow(_ value: JSONValue) -> Bool {
        guard case let .array(items) = value else { return false }
        return !items.isEmpty && items.allSatisfy(isScalar)
    }

    private static func scalar(_ value: JSONValue) -> String {
        switch value {
        case .null: return "-"
        case let .bool(b): return b ? "yes" : "no"
        case let .int(n): return "\(n)"
        case let .double(d): return "\(d)"
        case let .string(s):
            // Control characters would break the tree: shown escaped, as in JSON.
            guard s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return s }
            return String(JSONValue.quoted(s).dropFirst().dropLast())
        case .array, .object: return value.text
        }
    }
}
