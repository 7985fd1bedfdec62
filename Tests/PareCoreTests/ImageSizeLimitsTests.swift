import PareCore
import Testing

@Suite struct ImageSizeLimitsTests {
    static func crossed(_ width: Int, _ height: Int) -> String? {
        ImageSizeLimits.crossed(width: width, height: height, maxWidth: 100, maxHeight: 50, maxPixels: 4000)
            .map { "\($0.what) \($0.value) \($0.limit)" }
    }

    @Test func namesTheFirstLimitCrossed() {
        #expect(Self.crossed(100, 40) == nil)
        #expect(Self.crossed(101, 60) == "width 101 100")
        #expect(Self.crossed(10, 51) == "height 51 50")
        #expect(Self.crossed(100, 41) == "pixel count 4100 4000")
        let overflow = ImageSizeLimits.crossed(width: .max, height: 2, maxWidth: .max, maxHeight: .max, maxPixels: .max)
        #expect(overflow?.what == "pixel count" && overflow?.value == Int.max)
    }
}
