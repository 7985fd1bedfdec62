import PareCore
import PareJPEG

/// Where a thumbnail's pixels come from.
public enum ThumbnailSource: Sendable, Equatable {
    /// The EXIF IFD1 thumbnail.
    case exifThumbnail
    /// The MPF image with this index in the MP Entry list (CIPA DC-007).
    case mpfPreview(index: Int)
    /// A camera RAW file's JPEG preview (`RawPreviews`, in the order found).
    case rawPreview(index: Int)
    /// The main image decoded at scale k/8: a JPEG's DCT scale (T.81 A.3.3's 8×8 blocks
    /// reduced to k×k), or a lossy WebP's half size.
    case mainImage(JPEGScale)
    /// The main image of a format that has only its full scale (PNG, GIF, TIFF…).
    case fullImage

    /// The name the command line prints (`--json` field `source`).
    public var name: String {
        switch self {
        case .exifThumbnail: return "exif-thumbnail"
        case .mpfPreview: return "mpf-preview"
        case .rawPreview: return "raw-preview"
        case let .mainImage(scale):
            switch scale {
            case .full: return "full"
            case .half: return "scaled-1/2"
            case .quarter: return "scaled-1/4"
            case .eighth: return "scaled-1/8"
            }
        case .fullImage: return "full"
        }
    }
}

/// The decision: which source, at which DCT scale, and why.
struct SourcePlan {
    var source: ThumbnailSource
    /// For embedded JPEGs, their byte range; nil for the main image.
    var embedded: EmbeddedImageInfo?
    var scale: JPEGScale
    /// The stored size of the source before DCT scaling (its aspect ratio is the output's).
    var width: Int
    var height: Int
    var reason: String
}

/// Chooses the cheapest source that is large enough (the Architecture article, "Cheapest
/// source first": Sources/Pare/Pare.docc/Architecture.md).
///
/// Candidates are the EXIF thumbnail, the MPF previews and the main image; each JPEG one is
/// taken at the smallest DCT scale whose long side is still at least `margin` times the
/// target: twice at 1/4, 1.95 times at 1/8, 1.9 times at 1/2. A reduced IDCT is close to a box filter,
/// which aliases fine detail; leaving the resampler about a factor of two to remove keeps the
/// result within 35 dB of a full-scale decode resampled alike (on the corpus at 256 px:
/// minimum PSNR 31.5 dB with no margin, 31.5 dB with a margin of 1.5, 40.6 dB with 2). 1.9 at
/// 1/2 lets the common 4000-pixel photo make a 1024-pixel thumbnail from its 1/2 decode (the
/// full decode and a resampler working on four times the samples cost about twice as much)
/// for about half a decibel (Benchmarks/scale-margin.sh; figures in Benchmarks/notes/history.md).
/// 1.95 at 1/8 does the same for the 4000-pixel photo's 256-pixel thumbnail (its 500-pixel
/// 1/8 decode instead of the 1/4 one, which costs about half as much again) for under half a
/// decibel. The cost of a
/// candidate is estimated as the compressed bytes that must be entropy-decoded (every
/// scale reads the whole scan) plus the samples it produces; the cheapest wins. Under
/// `auto`, an embedded image qualifies only if the main image is larger than the target (one
/// that is not is decoded itself: an embedded image of its size is a re-rendering, not a
/// saving), its long side reaches the target and its aspect ratio is within 1% of the main
/// image's (letterboxed thumbnails are refused).
/// Under `always`, any embedded image wins over the main image: the smallest one that
/// reaches the target, else the largest. The target is `maxPixelSize`, or the source's own
/// long side when that is smaller: Pare never enlarges.
enum SourceChooser {
    /// How many times the target a DCT scale's long side must be, as a fraction. At 1/2 the
    /// 4×4 transform keeps the lower half of the spectrum, and 1.9 instead of 2 costs about
    /// half a decibel (Benchmarks/scale-margin.sh). At 1/8 the 1×1 transform is the block's
    /// average, and 1.95 instead of 2 costs under half a decibel (`SCALE=1/8` there) while a
    /// 4000-pixel photo's 256-pixel thumbnail comes from its 1/8 decode. At 1/4 nothing below
    /// 2 has been measured, and it keeps 2.
    static func margin(_ scale: JPEGScale) -> (numerator: Int, denominator: Int) {
        switch scale {
        case .half: return (19, 10)
        case .eighth: return (39, 20)
        default: return (2, 1)
        }
    }

    /// The smallest DCT scale at which a JPEG of this stored size still has a long side of
    /// `margin` times `target` (with `filterMargin` false, just `target`).
    static func smallestScale(width: Int, height: Int, reaching target: Int, filterMargin: Bool = true,
                              among scales: [JPEGScale] = [.eighth, .quarter, .half]) -> JPEGScale {
        // A picture less than a block across has every reduced sample mixed with the
        // encoder's padding beyond its edge (1000×1 at 1/2: 32.9 dB from the full decode).
        guard min(width, height) >= 8 else { return .full }
        for scale in scales {
            let k = scale.rawValue
            let long = max((width * k + 7) / 8, (height * k + 7) / 8)
            let margin = filterMargin ? margin(scale) : (numerator: 1, denominator: 1)
            if long * margin.denominator >= margin.numerator * target { return scale }
        }
        return .full
    }

    /// The plan for a thumbnail whose picture needs a long side of `requestedLongSide`
    /// (`options.maxPixelSize` for a plain thumbnail; more for a cover crop).
    static func plan(properties: ImageProperties, fileSize: Int, options: ThumbnailOptions,
                     requestedLongSide: Int? = nil) -> SourcePlan {
        let requested = requestedLongSide ?? options.maxPixelSize
        let mainWidth = properties.pixelWidth, mainHeight = properties.pixelHeight
        let mainLong = max(mainWidth, mainHeight)
        let target = max(1, min(requested, mainLong))

        var embedded: [EmbeddedImageInfo] = []
        if let thumbnail = properties.exifThumbnail { embedded.append(thumbnail) }
        embedded.append(contentsOf: properties.previews)

        func describe(_ info: EmbeddedImageInfo) -> String {
            switch info.kind {
            case .exifThumbnail: return "EXIF thumbnail \(info.width)×\(info.height)"
            case let .mpfPreview(index): return "MPF image \(index) \(info.width)×\(info.height)"
            case let .rawPreview(index): return "RAW preview \(index) \(info.width)×\(info.height)"
            }
        }
        func source(of info: EmbeddedImageInfo) -> ThumbnailSource {
            switch info.kind {
            case .exifThumbnail: return .exifThumbnail
            case let .mpfPreview(index): return .mpfPreview(index: index)
            case let .rawPreview(index): return .rawPreview(index: index)
            }
        }
        func aspectMatches(_ info: EmbeddedImageInfo) -> Bool {
            guard mainWidth > 0, mainHeight > 0 else { return false }
            // |w/h − W/H| ≤ 1% of W/H, in integers: |w·H − W·h| · 100 ≤ W·h.
            let lhs = abs(Int64(info.width) * Int64(mainHeight) - Int64(mainWidth) * Int64(info.height)) * 100
            return lhs <= Int64(mainWidth) * Int64(info.height)
        }
        func plan(for info: EmbeddedImageInfo, _ reason: String) -> SourcePlan {
            SourcePlan(source: source(of: info), embedded: info,
                       scale: smallestScale(width: info.width, height: info.height, reaching: min(target, max(info.width, info.height))),
                       width: info.width, height: info.height, reason: reason)
        }
        func cost(width: Int, height: Int, scale: JPEGScale, bytes: Int) -> Int {
            let k = scale.rawValue
            return bytes + ((width * k + 7) / 8) * ((height * k + 7) / 8)
        }

        let mainPlan: SourcePlan
        let reduced = properties.reducedScales
        if properties.isRaw {
            mainPlan = SourcePlan(source: .fullImage, embedded: nil, scale: .full, width: mainWidth, height: mainHeight,
                                  reason: "a RAW file without a JPEG preview")
        } else if !reduced.isEmpty {
            let forced = options.forcedJPEGScale.flatMap { $0 == .full || reduced.contains($0) ? $0 : nil }
            let scale = forced ?? smallestScale(width: mainWidth, height: mainHeight, reaching: target, among: reduced)
            let scaled = scale.rawValue
            mainPlan = SourcePlan(source: .mainImage(scale), embedded: nil, scale: scale, width: mainWidth, height: mainHeight,
                                  reason: "main image at \(scaled)/8 (\((mainWidth * scaled + 7) / 8)×\((mainHeight * scaled + 7) / 8)) reaches \(target) px")
        } else {
            mainPlan = SourcePlan(source: .fullImage, embedded: nil, scale: .full, width: mainWidth, height: mainHeight,
                                  reason: "\(properties.format.rawValue.uppercased()) has only its full scale")
        }

        // A RAW file's sensor data is never decoded: its previews are its only sources.
        switch properties.isRaw ? .always : options.embedded {
        case .never:
            return withReason(mainPlan, "embedded images not allowed; " + mainPlan.reason)
        case .always:
            let reaching = embedded.filter { max($0.width, $0.height) >= target }
                .min { $0.width * $0.height < $1.width * $1.height }
            if let chosen = reaching {
                return plan(for: chosen, "\(describe(chosen)) is the smallest embedded image reaching \(target) px")
            }
            if let largest = embedded.max(by: { $0.width * $0.height < $1.width * $1.height }) {
                return plan(for: largest, "\(describe(largest)) is the largest embedded image (none reaches \(target) px)")
            }
            return withReason(mainPlan, "no embedded image; " + mainPlan.reason)
        case .auto:
            var best = mainPlan
            var bestCost = cost(width: mainWidth, height: mainHeight, scale: mainPlan.scale, bytes: fileSize)
            var refusals: [String] = []
            for info in embedded {
                // An embedded image as large as the main image is a re-rendering of it (on an
                // Adobe CMYK file, 23 dB away), and decoding the main image at that size is cheap.
                guard mainLong > requested else {
                    refusals.append("\(describe(info)) is not needed: the main image is not larger than \(requested) px")
                    continue
                }
                guard max(info.width, info.height) >= target else {
                    refusals.append("\(describe(info)) is smaller than \(target) px")
                    continue
                }
                guard aspectMatches(info) else {
                    refusals.append("\(describe(info)) has another aspect ratio (letterboxed?)")
                    continue
                }
                let candidate = plan(for: info, "\(describe(info)) reaches \(target) px and is the cheapest source")
                let candidateCost = cost(width: info.width, height: info.height, scale: candidate.scale, bytes: info.length)
                if candidateCost < bestCost {
                    best = candidate
                    bestCost = candidateCost
                }
            }
            if refusals.isEmpty { return best }
            return withReason(best, best.reason + "; " + refusals.joined(separator: "; "))
        }
    }

    private static func withReason(_ plan: SourcePlan, _ reason: String) -> SourcePlan {
        var plan = plan
        plan.reason = reason
        return plan
    }
}
