// swift-tools-version:6.0
import PackageDescription

/// Pare: a portable thumbnailer. See README.md for the module map; PareCore, PareJPEG and
/// PareEXIF must stay Embedded-ready (no Foundation, typed throws, no existentials), which
/// `.ci/run` checks by compiling them with `-enable-experimental-feature Embedded`.
///
/// The default build runs on any CPU of its architecture. `PARE_TARGET_CPU` (for example
/// `haswell` for x86-64 with AVX2) lets the compiler use that CPU's vector instructions in
/// the codecs, as libjpeg-turbo does with its hand-written SIMD; use a scratch path of its
/// own so that the two builds do not mix.
let codecSettings: [SwiftSetting] = Context.environment["PARE_TARGET_CPU"].map {
    [.unsafeFlags(["-target-cpu", $0])]
} ?? []

/// `pare` is linked with the Swift runtime inside, so that a run does not begin by loading and
/// relocating the runtime's shared libraries (a few milliseconds per file). `PARE_SHARED_STDLIB`
/// links it against the shared libraries instead, for ThreadSanitizer: its interceptors see
/// libdispatch's calls only through the shared library, so a static build reports the task
/// group's hand-offs as races.
let pareLinkerSettings: [LinkerSetting] = Context.environment["PARE_SHARED_STDLIB"] == nil
    ? [.unsafeFlags(["-static-stdlib"])] : []

let package = Package(
    name: "Pare",
    products: [
        .library(name: "Pare", targets: ["Pare"]),
        .executable(name: "pare", targets: ["pare"]),
    ],
    targets: [
        .target(name: "PareCore", swiftSettings: codecSettings),
        .target(name: "PareJPEG", dependencies: ["PareCore"], swiftSettings: codecSettings),
        .target(name: "PareEXIF", dependencies: ["PareCore"], swiftSettings: codecSettings),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(name: "ParePNG", dependencies: ["PareCore", "CZlib"], swiftSettings: codecSettings),
        .target(name: "Pare", dependencies: ["PareCore", "PareJPEG", "PareEXIF", "ParePNG"], swiftSettings: codecSettings),
        .executableTarget(name: "pare", dependencies: ["Pare", "PareCore", "PareJPEG", "PareEXIF", "ParePNG"],
                          swiftSettings: codecSettings, linkerSettings: pareLinkerSettings),

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
