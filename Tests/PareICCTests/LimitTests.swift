import PareCore
@testable import PareICC
import Testing
import TestSupport

/// Every limit of `ICCOptions`, crossed by one built profile (or chunk list) each: the
/// typed error names the limit, and the same input passes with the limit raised.
@Suite struct ICCLimitTests {
    func error(_ bytes: [UInt8], _ options: ICCOptions) -> ICCError? {
        ProfileTests().error(bytes, options: options)
    }

    @Test func maxProfileBytes() {
        let bytes = ProfileBuilder.sRGBLike().build()
        var options = ICCOptions()
        options.maxProfileBytes = bytes.count - 1
        #expect(error(bytes, options) == .profileTooLarge(size: bytes.count, limit: bytes.count - 1))
        options.maxProfileBytes = bytes.count
        #expect(error(bytes, options) == nil)
    }

    @Test func maxTags() {
        var options = ICCOptions()
        options.maxTags = 7
        #expect(error(ProfileBuilder.sRGBLike().build(), options) == .tooManyTags(count: 8, limit: 7))
        options.maxTags = 8
        #expect(error(ProfileBuilder.sRGBLike().build(), options) == nil)
    }

    @Test func maxCurvePoints() {
        var builder = ProfileBuilder.sRGBLike()
        builder.tags[5] = ("rTRC", ProfileBuilder.tableCurve((0 ..< 300).map { UInt16($0 * 219) }))
        var options = ICCOptions()
        options.maxCurvePoints = 299
        guard case .countTooLarge(tag: "rTRC", _, count: 300, limit: 299)? = error(builder.build(), options) else {
            Issue.record("curve over maxCurvePoints accepted")
            return
        }
        options.maxCurvePoints = 300
        #expect(error(builder.build(), options) == nil)
    }

    @Test func maxTextBytesAndRecords() {
        var builder = ProfileBuilder.sRGBLike()
        builder.tags[0] = ("desc", ProfileBuilder.mluc([("enUS", "twelve chars"), ("deDE", "zwölf Zeichen")]))
        var options = ICCOptions()
        options.maxTextRecords = 1
        guard case .countTooLarge(tag: "desc", _, count: 2, limit: 1)? = error(builder.build(), options) else {
            Issue.record("mluc over maxTextRecords accepted")
            return
        }
        options = ICCOptions()
        options.maxTextBytes = 23
        guard case .countTooLarge(tag: "desc", _, count: 24, limit: 23)? = error(builder.build(), options) else {
            Issue.record("text over maxTextBytes accepted")
            return
        }
        options.maxTextBytes = 24
        options.maxTextRecords = 2
        #expect(error(builder.build(), options) == nil)
    }

    @Test func maxFixedMagnitude() {
        var builder = ProfileBuilder.sRGBLike()
        builder.tags[2] = ("rXYZ", ProfileBuilder.xyz(300, 0.2225, 0.0139))
        guard case .absurdValue(tag: "rXYZ", _, raw: Int32(300 * 65536))? = error(builder.build(), ICCOptions()) else {
            Issue.record("colorant over maxFixedMagnitude accepted")
            return
        }
        var options = ICCOptions()
        options.maxFixedMagnitude = 300
        #expect(error(builder.build(), options) == nil)
    }

    @Test func maxChunks() {
        var file: [UInt8] = []
        var locations: [ICCChunkLocation] = []
        for (sequence, data) in [(UInt8(1), [UInt8](1 ... 4)), (2, [5, 6])] {
            let payload = ICCChunkAssembler.identifier + [sequence, 2] + data
            locations.append(ICCChunkLocation(offset: file.count, length: payload.count))
            file += payload
        }
        var options = ICCOptions()
        options.maxChunks = 1
        let (cut, warnings) = ICCChunkAssembler.assemble(locations, in: MemoryByteSource(file), options: options)
        #expect(cut == nil && warnings == [.missingChunk(sequence: 2, count: 2)])
        options.maxChunks = 2
        #expect(ICCChunkAssembler.assemble(locations, in: MemoryByteSource(file), options: options).0 == [1, 2, 3, 4, 5, 6])
    }

    /// A 4-input grid of 9 points with 3 outputs holds 19,683 values.
    @Test func maxCLUTEntries() {
        let lut = ProfileBuilder.lut16(inputs: 4, points: 9) { _ in [0.5, 0.5, 0.5] }
        let bytes = ProfileBuilder.lutProfile("CMYK", pcs: "XYZ ", lut).build()
        var options = ICCOptions()
        options.maxCLUTEntries = 19682
        guard case .countTooLarge(tag: "A2B0", _, count: 19683, limit: 19682)? = error(bytes, options) else {
            Issue.record("CLUT over maxCLUTEntries accepted")
            return
        }
        options.maxCLUTEntries = 19683
        #expect(error(bytes, options) == nil)
        // A hostile grid whose product overflows is refused before anything is sized.
        var mAB = ProfileBuilder.lutAToB(inputs: 4, points: 2, a: ProfileBuilder.para(0, [1]), m: ProfileBuilder.para(0, [1]),
                                         b: ProfileBuilder.para(0, [1]), matrix: [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]) { _ in
            [0, 0, 0]
        }
        let clutAt = Int(ProfileBuilder.readBE32(mAB, 24))
        for i in 0 ..< 4 { mAB[clutAt + i] = 255 }
        guard case .countTooLarge(tag: "A2B0", _, _, limit: 1 << 22)? =
            error(ProfileBuilder.lutProfile("CMYK", pcs: "XYZ ", mAB).build(), ICCOptions()) else {
            Issue.record("huge mAB grid accepted")
            return
        }
    }
}
