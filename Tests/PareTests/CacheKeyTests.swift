import PareCore
import PareICC
import Testing
import TestSupport
@testable import Pare

/// Every field of `ThumbnailOptions` either changes the cache key or is named here as one that
/// cannot change the pixels. A field added to the options without a decision fails
/// `everyFieldIsDecided`; a field said to be keyed that the key ignores fails
/// `everyKeyedFieldChangesTheKey`.
@Suite struct CacheKeyTests {
    /// Fields that change the pixels or the output, each with a change that must change the key.
    static let keyed: [(String, @Sendable (inout ThumbnailOptions) -> Void)] = [
        ("maxPixelSize", { $0.maxPixelSize += 1 }),
        ("embedded", { $0.embedded = .never }),
        ("applyOrientation", { $0.applyOrientation.toggle() }),
        ("filter", { $0.filter = .triangle }),
        ("jpeg", { $0.jpeg.strict.toggle() }),
        ("png", { $0.png.strict.toggle() }),
        ("webp", { $0.webp.strict.toggle() }),
        ("gif", { $0.gif.strict.toggle() }),
        ("tiff", { $0.tiff.strict.toggle() }),
        ("colour", { $0.colour = .sRGB }),
        ("gainMap", { $0.gainMap = .keep }),
        ("cmykProfile", { $0.cmykProfile = try? ICCProfile(bytes: ProfileBuilder.sRGBLike().build()) }),
        ("forcedJPEGScale", { $0.forcedJPEGScale = .half }),
        ("box", { $0.box = ThumbnailBox(width: 256, height: 100) }),
        ("fit", { $0.fit = .cover }),
        ("crop", { $0.crop = .entropy }),
        ("enlarge", { $0.enlarge = true }),
        ("background", { $0.background = .black }),
    ]

    /// Fields that cannot change the pixels, and why.
    static let unkeyed: [String: String] = [
        "memoryLimit": "a limit: a thumbnail that fits is the same under any limit, one that does not is an error",
        "exif": "limits on metadata far above what cameras write",
        "icc": "limits on profiles far above what real profiles need",
        "decodeWorkers": "threads: every worker count gives the same pixels (ParallelDecodeTests)",
    ]

    @Test func everyFieldIsDecided() {
        let fields = Set(Mirror(reflecting: ThumbnailOptions(maxPixelSize: 256)).children.compactMap(\.label))
        let decided = Set(Self.keyed.map(\.0)).union(Self.unkeyed.keys)
        #expect(fields.subtracting(decided).isEmpty, "fields with no decision: \(fields.subtracting(decided).sorted())")
        #expect(decided.subtracting(fields).isEmpty, "decisions about no field: \(decided.subtracting(fields).sorted())")
    }

    @Test func everyKeyedFieldChangesTheKey() {
        let base = ThumbnailOptions(maxPixelSize: 256)
        for (name, change) in Self.keyed {
            var changed = base
            change(&changed)
            #expect(changed.pixelKey != base.pixelKey, "\(name) does not change the key")
        }
    }
}
