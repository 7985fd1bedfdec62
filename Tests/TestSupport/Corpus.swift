/// Where the shared conformance corpus is: `../shared/corpus` beside the package's checkout.
/// Tests that need it call `Corpus.root` and skip, with a visible message, when it is nil.
public enum Corpus {
    /// The package root, found from this file's path (Tests/TestSupport/Corpus.swift).
    public static var packageRoot: String {
        var path = #filePath
        for _ in 0 ..< 3 {
            if let slash = path.lastIndex(of: "/") { path = String(path[..<slash]) }
        }
        return path
    }

    /// The corpus folder, or nil when it is missing.
    public static var root: String? {
        let candidate = packageRoot + "/../shared/corpus"
        return FileSystem.isDirectory(candidate) ? candidate : nil
    }

    /// The message printed when corpus tests are skipped.
    public static let missingMessage = "../shared/corpus is missing: corpus conformance tests are skipped"

    /// The `Fixtures/` folder of the package.
    public static var fixtures: String { packageRoot + "/Fixtures" }
}
