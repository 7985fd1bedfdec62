// swift-tools-version:6.0
import PackageDescription

/// Pare: a portable thumbnailer. See README.md for the module map; PareCore, PareJPEG,
/// PareEXIF, PareICC and PareTIFF must stay Embedded-ready (no Foundation, typed throws, no existentials), which
/// `.ci/run` checks by compiling them with `-enable-experimental-feature Embedded`.
///
/// The default build runs on any CPU of its architecture. `PARE_TARGET_CPU` (for example
/// `haswell` for x86-64 with AVX2) lets the compiler use that CPU's vector instructions in
/// the codecs, as libjpeg-turbo does with its hand-written SIMD; use a scratch path of its
/// own so that the two builds do not mix.
let codecSettings: [SwiftSetting] = Context.environment["PARE_TARGET_CPU"].map {
    [.unsafeFlags(["-target-cpu", $0])]
} ?? []

/// On Linux `pare` is one static executable (`-static-executable`: the Swift runtime, the C
/// library and zlib inside), so that a run begins without the dynamic loader finding and
/// relocating shared libraries: `pare --version` takes 0.9 ms against 1.8 ms with only the
/// Swift runtime linked in and 3.2 ms with everything shared, which counts when a script
/// runs `pare` once per file. The price is a fixed load address for the executable's own
/// code (a static PIE would keep address randomisation, but glibc's static-PIE start-up
/// refuses the `$ORIGIN` run path SwiftPM gives every executable). `PARE_SHARED_STDLIB`
/// links it against the shared libraries instead, for the sanitizers: AddressSanitizer's
/// runtime cannot be linked into a static executable, and ThreadSanitizer sees libdispatch's calls only through
/// the shared library (a static build reports the task group's hand-offs as races).
let pareLinkerSettings: [LinkerSetting] = Context.environment["PARE_SHARED_STDLIB"] == nil
    ? [.unsafeFlags(["-static-executable"], .when(platforms: [.linux]))] : []

let package = Package(
    name: "Pare",
    products: [
        .library(name: "Pare", targets: ["Pare"]),
        // One codec alone, for code that needs no thumbnail pipeline (as NIOCore beside NIOPosix).
        .library(name: "PareJPEG", targets: ["PareJPEG"]),
        .library(name: "ParePNG", targets: ["ParePNG"]),
        .library(name: "PareWebP", targets: ["PareWebP"]),
        .library(name: "PareEXIF", targets: ["PareEXIF"]),
        .library(name: "PareICC", targets: ["PareICC"]),
        .library(name: "PareGIF", targets: ["PareGIF"]),
        .library(name: "PareTIFF", targets: ["PareTIFF"]),
        // Data and URL conveniences, apart so that nothing else links Foundation.
        .library(name: "PareFoundation", targets: ["PareFoundation"]),
        .executable(name: "pare", targets: ["pare"]),
    ],
    targets: [
        .target(name: "PareCore", swiftSettings: codecSettings),
        .target(name: "PareJPEG", dependencies: ["PareCore"], swiftSettings: codecSettings),
        .target(name: "PareEXIF", dependencies: ["PareCore"], swiftSettings: codecSettings),
        .target(name: "PareICC", dependencies: ["PareCore"], swiftSettings: codecSettings),
        .target(name: "PareGIF", dependencies: ["PareCore"], swiftSettings: codecSettings),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(name: "ParePNG", dependencies: ["PareCore", "CZlib"], swiftSettings: codecSettings),
        .target(name: "PareWebP", dependencies: ["PareCore"], swiftSettings: codecSettings),
        .target(name: "PareTIFF", dependencies: ["PareCore", "PareEXIF", "PareJPEG"], swiftSettings: codecSettings),
        .target(name: "Pare", dependencies: ["PareCore", "PareJPEG", "PareEXIF", "PareICC", "ParePNG", "PareWebP", "PareGIF",
                                            "PareTIFF", "CZlib"], swiftSettings: codecSettings),
        .target(name: "PareFoundation", dependencies: ["Pare"]),
        .executableTarget(name: "pare", dependencies: ["Pare", "PareCore", "PareJPEG", "PareEXIF", "PareICC", "ParePNG",
                                                       "PareWebP", "PareGIF", "PareTIFF"],
                          swiftSettings: codecSettings, linkerSettings: pareLinkerSettings),

        .systemLibrary(name: "CMallocInfo", path: "Tests/CMallocInfo"),
        .target(name: "TestSupport", dependencies: ["PareCore", "CZlib", "CMallocInfo"], path: "Tests/TestSupport"),
        .testTarget(name: "PareCoreTests", dependencies: ["PareCore", "TestSupport"]),
        .testTarget(name: "PareJPEGTests", dependencies: ["PareJPEG", "TestSupport"]),
        .testTarget(name: "PareEXIFTests", dependencies: ["PareEXIF", "TestSupport"]),
        .testTarget(name: "PareICCTests", dependencies: ["PareICC", "TestSupport"]),
        .testTarget(name: "ParePNGTests", dependencies: ["ParePNG", "TestSupport"]),
        .testTarget(name: "PareWebPTests", dependencies: ["PareWebP", "TestSupport"]),
        .testTarget(name: "PareGIFTests", dependencies: ["PareGIF", "TestSupport"]),
        .testTarget(name: "PareTIFFTests", dependencies: ["PareTIFF", "ParePNG", "PareEXIF", "CZlib", "TestSupport"]),
        .testTarget(name: "PareTests", dependencies: ["Pare", "PareFoundation", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
