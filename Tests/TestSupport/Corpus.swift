import Testing

/// Where the shared conformance corpus is: `../shared/corpus` beside the package's checkout.
/// Tests that read it carry the `.requiresCorpus` trait, so that without it they report
/// *skipped* with `Corpus.missingMessage` rather than passing having checked nothing.
public enum Corpus {
    /// The package root, found from this file's path (Tests/TestSupport/Corpus.swift).
    public static var packageRoot: String {
        var path = #filePath
        for _ in 0 ..< 3 {
            if let slash = path.lastIndex(of: "/") { path = String(path[..<slash]) }
        }
        return path
    }

    /// The corpus folder: `shared/corpus` in the folder that holds the package.
    public static var path: String {
        let root = packageRoot
        let parent = root.lastIndex(of: "/").map { String(root[..<$0]) } ?? ".."
        return parent + "/shared/corpus"
    }

    /// Whether the corpus folder is there.
    public static var isPresent: Bool { FileSystem.isDirectory(path) }

    /// Why a corpus test was skipped, naming the folder looked for.
    public static var missingMessage: Comment {
        Comment(rawValue: "corpus folder \(path) is missing: this corpus test is skipped")
    }

    /// The `Fixtures/` folder of the package.
    public static var fixtures: String { packageRoot + "/Fixtures" }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only when `../shared/corpus` is there; otherwise it is reported as
    /// skipped, with `Corpus.missingMessage`.
    public static var requiresCorpus: Self { .enabled(if: Corpus.isPresent, Corpus.missingMessage) }
}
