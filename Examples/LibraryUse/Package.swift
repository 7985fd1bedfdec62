// swift-tools-version:6.0
import PackageDescription

/// A separate package that uses Pare as an application would: it depends on the repository
/// by path and imports only `Pare`. `.ci/run` builds it, so that the public API stays usable
/// from Swift 6 code (Sendable thumbnails in task groups and actors, async with
/// cancellation, errors switched on by kind).
let package = Package(
    name: "LibraryUse",
    platforms: [.macOS(.v15)],
    // Named, so that the product reference below holds whatever the checkout folder is called.
    dependencies: [.package(name: "Pare", path: "../..")],
    targets: [
        .executableTarget(name: "LibraryUse", dependencies: [.product(name: "Pare", package: "Pare")]),
    ],
    swiftLanguageModes: [.v6]
)
