/// Text rewritten one Unicode scalar at a time, for the two output languages `pare` writes:
/// HTML (`HTMLWriter.escape`) and JSON string literals (`JSONValue.quoted`). Each gives a
/// table of the scalars it replaces and a rule for the rest (control characters); everything
/// else is copied as it stands.
enum TextEscaping {
    /// Appends `text` to `out`, each scalar replaced by `table`'s entry for it, else by what
    /// `other` returns for it, else kept.
    static func append(_ text: String, to out: inout String, replacing table: [Unicode.Scalar: String],
                       other: (Unicode.Scalar) -> String?) {
        for scalar in text.unicodeScalars {
            if let replacement = table[scalar] ?? other(scalar) {
                out += replacement
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
}
