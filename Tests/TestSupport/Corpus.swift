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

    /// A corpus the repository's own scripts make from the shared corpus's pictures with
    /// outside tools (cwebp, ImageMagick, Pillow, tifffile, tiff2rgba): `.build/made-corpus/NAME`,
    /// where the scripts write it and `.ci/run` has them do so, or else `../shared/corpus/NAME`.
    /// Nil when neither is there.
    public static func made(_ name: String) -> String? {
        let built = packageRoot + "/.build/made-corpus/" + name
        if FileSystem.isDirectory(built) { return built }
        let shared = path + "/" + name
        return FileSystem.isDirectory(shared) ? shared : nil
    }

    /// The `Fixtures/` folder of the package.
    public static var fixtures: String { packageRoot + "/Fixtures" }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only when `../shared/corpus` is there; otherwise it is reported as
    /// skipped, with `Corpus.missingMessage`.
    public static var requiresCorpus: Self { .enabled(if: Corpus.isPresent, Corpus.missingMessage) }

    /// Runs the test only when the made corpus NAME is there (`Corpus.made`); otherwise it is
    /// reported as skipped, naming the script that makes it.
    public static func requiresMadeCorpus(_ name: String, script: String) -> Self {
        .enabled(if: Corpus.made(name) != nil,
                 Comment(rawValue: "corpus \(name)/ is missing (made by \(script)): this corpus test is skipped"))
    }
}

/// The committed inputs of one fuzz target that once failed: `Fixtures/regressions/TARGET/`,
/// every file but the folder's README. Each replay test requires at least one, so that a
/// missing or emptied folder fails instead of replaying nothing.
public enum Regressions {
    public struct Input: Sendable {
        public let name: String
        public let bytes: [UInt8]
        /// Saved by `Fuzz/keep.sh` from the jpeg, pipeline or encoder target (`*.fuzz`): the
        /// input exactly as the fuzzer ran it, request bytes first.
        public var isFuzzerInput: Bool { name.hasSuffix(".fuzz") }
    }

    public static func folder(_ target: String) -> String { Corpus.fixtures + "/regressions/" + target }

    public static func inputs(_ target: String) -> [Input] {
        FileSystem.list(folder(target)).filter { !$0.hasSuffix(".md") }.sorted().compactMap { name in
            FileSystem.read(folder(target) + "/" + name).map { Input(name: name, bytes: $0) }
        }
    }
}
