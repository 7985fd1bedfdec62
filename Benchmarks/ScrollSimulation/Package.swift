// swift-tools-version:6.0
import PackageDescription

/// `scroll-simulation DIR --mode pipeline|loop`: a photo grid scrolled at a steady speed,
/// frames at 60 Hz, requesting the thumbnails of the cells that come into view, either
/// through a `ThumbnailPipeline` (visible requests cancelled when their cell leaves, the next
/// rows prefetched) or through a plain loop of `ImageSource.thumbnail` calls in the order the
/// cells appeared. Benchmarks/cache.sh runs both and prints what each measured.
let package = Package(
    name: "ScrollSimulation",
    dependencies: [.package(name: "Pare", path: "../..")],
    targets: [
        .executableTarget(name: "scroll-simulation", dependencies: [.product(name: "Pare", package: "Pare")]),
    ],
    swiftLanguageModes: [.v6]
)
