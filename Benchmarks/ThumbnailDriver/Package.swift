// swift-tools-version:6.0
import PackageDescription

/// `thumbnail-driver IN SIZE OUT.png`: the library calls `pare thumbnail IN --size SIZE -o OUT`
/// makes (ImageSource, thumbnail, PNGEncoder), on the main thread, and prints the source taken
/// and the ledger peak, so that valgrind can count
/// them: valgrind 3.19 stops with an internal SIGSEGV on a Swift task group running on
/// libdispatch's worker threads, which `pare thumbnail` uses. Benchmarks/compare.sh runs it
/// when CALLGRIND is set.
let package = Package(
    name: "ThumbnailDriver",
    dependencies: [.package(name: "Pare", path: "../..")],
    targets: [
        .executableTarget(name: "thumbnail-driver", dependencies: [.product(name: "Pare", package: "Pare")]),
    ],
    swiftLanguageModes: [.v6]
)
