/// A hand-written command-line reader: flags with values (`--size 256`, `--size=256`,
/// `-o out.png`), boolean flags, and positional arguments, with each subcommand declaring
/// what it accepts so that anything else is a usage error.
struct Arguments {
    var positionals: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    struct UsageError: Error {
        let message: String
    }

    /// `valued` lists the options that take a value; `boolean` those that do not. Short
    /// aliases map to their long names through `aliases` (e.g. "-o": "--output").
    init(_ raw: [String], valued: Set<String>, boolean: Set<String>, aliases: [String: String] = [:]) throws(UsageError) {
        var index = 0
        while index < raw.count {
            var word = raw[index]
            index += 1
            if word == "--" {
                positionals.append(contentsOf: raw[index...])
                break
            }
            guard word.hasPrefix("-"), word.count > 1 else {
                positionals.append(word)
                continue
            }
            var inlineValue: String?
            if let eq = word.firstIndex(of: "="), word.hasPrefix("--") {
                inlineValue = String(word[word.index(after: eq)...])
                word = String(word[..<eq])
            }
            let name = aliases[word] ?? word
            if valued.contains(name) {
                if let inlineValue {
                    values[name] = inlineValue
                } else {
                    guard index < raw.count else { throw UsageError(message: "option \(word) needs a value") }
                    values[name] = raw[index]
                    index += 1
                }
            } else if boolean.contains(name), inlineValue == nil {
                flags.insert(name)
            } else {
                throw UsageError(message: "unknown option \(word)")
            }
        }
    }

    func value(_ name: String) -> String? { values[name] }
    func flag(_ name: String) -> Bool { flags.contains(name) }
}
