// swift-tools-version:6.0
import PackageDescription

/// Pare: a portable thumbnailer. See README.md for the module map; PareCore, PareJPEG and
/// PareEXIF must stay Embedded-ready (no Foundation, typed throws, no existentials), which
/// `.ci/run` checks by compiling them with `-enable-experimental-feature Embedded`.
let package = Package(
    name: "Pare",
    products: [
        .library(name: "Pare", targets: ["Pare"]),
        .executable(name: "pare", targets: ["pare"]),
    ],
    targets: [
        .target(name: "PareCore"),
        .target(name: "PareJPEG", dependencies: ["PareCore"]),
        .target(name: "PareEXIF", dependencies: ["PareCore"]),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(name: "ParePNG", dependencies: ["PareCore", "CZlib"]),
        .target(name: "Pare", dependencies: ["PareCore", "PareJPEG", "PareEXIF", "ParePNG"]),
        .executableTarget(name: "pare", dependencies: ["Pare", "PareCore", "PareJPEG", "PareEXIF", "ParePNG"]),

        .systemLibrary(name: "CMallocInfo", path: "Tests/CMallocInfo"),
        .target(name: "TestSupport", dependencies: ["PareCore", "CZlib", "CMallocInfo"], path: "Tests/TestSupport"),
        .testTarget(name: "PareCoreTests", dependencies: ["PareCore", "TestSupport"]),
        .testTarget(name: "PareJPEGTests", dependencies: ["PareJPEG", "TestSupport"]),
        .testTarget(name: "PareEXIFTests", dependencies: ["PareEXIF", "TestSupport"]),
        .testTarget(name: "ParePNGTests", dependencies: ["ParePNG", "TestSupport"]),
        .testTarget(name: "PareTests", dependencies: ["Pare", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
