import PareCore
@testable import PareICC
import Testing
import TestSupport

/// JPEG APP2 chunk assembly (ICC.1 B.4) and the sRGB conversion's tables against their
/// Double oracle.
@Suite struct ChunkAndConversionTests {
    /// A file of APP2 payloads laid end to end; returns it and where each payload is.
    func chunks(_ parts: [(sequence: UInt8, count: UInt8, data: [UInt8])]) -> (MemoryByteSource, [ICCChunkLocation]) {
        var file: [UInt8] = []
        var locations: [ICCChunkLocation] = []
        for part in parts {
            let payload = ICCChunkAssembler.identifier + [part.sequence, part.count] + part.data
            locations.append(ICCChunkLocation(offset: file.count, length: payload.count))
            file += payload
        }
        return (MemoryByteSource(file), locations)
    }

    @Test func joinsInSequenceOrder() {
        let (source, locations) = chunks([(1, 3, [1, 2]), (2, 3, [3]), (3, 3, [4, 5])])
        let (bytes, warnings) = ICCChunkAssembler.assemble(locations, in: source)
        #expect(bytes == [1, 2, 3, 4, 5])
        #expect(warnings.isEmpty)
    }

    @Test func outOfOrderIsUsedWithAWarning() {
        let (source, locations) = chunks([(2, 2, [3]), (1, 2, [1, 2])])
        let (bytes, warnings) = ICCChunkAssembler.assemble(locations, in: source)
        #expect(bytes == [1, 2, 3])
        #expect(warnings == [.chunk(offset: locations[1].offset, sequence: 1, count: 2, problem: .outOfOrder)])
    }

    @Test func repeatedAndBadlyNumberedChunksAreLeftOut() {
        let (source, locations) = chunks([(1, 2, [1]), (1, 2, [9]), (0, 2, [9]), (3, 2, [9]), (2, 5, [9]), (2, 2, [2])])
        let (bytes, warnings) = ICCChunkAssembler.assemble(locations, in: source)
        #expect(bytes == [1, 2])
        let problems: [ICCError.ChunkProblem?] = warnings.map { warning -> ICCError.ChunkProblem? in
            if case let .chunk(_, _, _, problem) = warning { return problem }
            return nil
        }
        #expect(problems == [.repeated, .sequenceOutOfRange, .sequenceOutOfRange, .countDisagrees])
    }

    @Test func missingChunkDropsTheProfile() {
        let (source, locations) = chunks([(1, 3, [1]), (3, 3, [3])])
        let (bytes, warnings) = ICCChunkAssembler.assemble(locations, in: source)
        #expect(bytes == nil)
        #expect(warnings.last == .missingChunk(sequence: 2, count: 3))
        #expect("\(warnings.last!)" == "ICC: APP2 chunk 2 of 3 is missing; profile dropped")
    }

    @Test func chunksOverTheLimitDropTheProfile() {
        var options = ICCOptions()
        options.maxProfileBytes = 3
        let (source, locations) = chunks([(1, 2, [1, 2]), (2, 2, [3, 4])])
        let (bytes, warnings) = ICCChunkAssembler.assemble(locations, in: source, options: options)
        #expect(bytes == nil)
        #expect(warnings == [.profileTooLarge(size: 4, limit: 3)])
    }

    @Test func sRGBProfileIsTheIdentity() throws {
        let profile = try ICCProfile(bytes: ProfileBuilder.sRGBLike().build())
        let converter = try #require(SRGBConverter(profile: profile))
        #expect(converter.isIdentity)
        let pixels: [UInt8] = [10, 200, 30, 255, 0, 128]
        var image = Image(width: 2, height: 1, format: .rgb8, pixels: pixels)
        #expect(converter.apply(to: &image))
        #expect(image.pixels == pixels)
    }

    /// The tables against the Double oracle over a 17³ grid, for a wide-gamut gamma 1.8
    /// profile (ProPhoto's colorants) and a table curve: at most one code apart.
    @Test func tablesAgreeWithTheOracle() throws {
        var builder = ProfileBuilder.sRGBLike()
        builder.tags[2] = ("rXYZ", ProfileBuilder.xyz(0.7977, 0.2880, 0.0))
        builder.tags[3] = ("gXYZ", ProfileBuilder.xyz(0.1352, 0.7119, 0.0))
        builder.tags[4] = ("bXYZ", ProfileBuilder.xyz(0.0313, 0.0001, 0.8249))
        builder.tags[5] = ("rTRC", ProfileBuilder.gammaCurve(1.8))
        builder.tags[6] = ("gTRC", ProfileBuilder.para(0, [1.8]))
        builder.tags[7] = ("bTRC", ProfileBuilder.tableCurve((0 ..< 1024).map { UInt16($0 * $0 * 65535 / (1023 * 1023)) }))
        let profile = try ICCProfile(bytes: builder.build())
        let converter = try #require(SRGBConverter(profile: profile))
        #expect(!converter.isIdentity)
        var worst = 0
        for r in stride(from: 0, through: 255, by: 16) {
            for g in stride(from: 0, through: 255, by: 16) {
                for b in stride(from: 0, through: 255, by: 16) {
                    let fast = converter.convert(UInt8(r), UInt8(g), UInt8(b))
                    let exact = converter.convertExactly([UInt8(r), UInt8(g), UInt8(b)])
                    worst = max(worst, abs(Int(fast.0) - Int(exact[0])), abs(Int(fast.1) - Int(exact[1])),
                                abs(Int(fast.2) - Int(exact[2])))
                }
            }
        }
        #expect(worst <= 1)
        // The image loop is the per-pixel path.
        let pixels: [UInt8] = [10, 200, 30, 7, 255, 0, 128, 9, 90, 90, 90, 11]
        var image = Image(width: 3, height: 1, format: .rgba8, pixels: pixels)
        #expect(converter.apply(to: &image))
        let converted = image.pixels
        for x in 0 ..< 3 {
            let one = converter.convert(pixels[4 * x], pixels[4 * x + 1], pixels[4 * x + 2])
            let expected: [UInt8] = [one.0, one.1, one.2, pixels[4 * x + 3]]
            #expect(Array(converted[4 * x ..< 4 * x + 4]) == expected)
        }
    }

    /// Gray: kTRC gamma 1.0 is linear Y, so 50% gray becomes sRGB 188 (0.5 encoded).
    @Test func grayConversion() throws {
        var builder = ProfileBuilder()
        builder.colourSpace = "GRAY"
        builder.tags = [("desc", ProfileBuilder.desc("gray")), ("kTRC", ProfileBuilder.gammaCurve(1))]
        let converter = try #require(SRGBConverter(profile: try ICCProfile(bytes: builder.build())))
        #expect(converter.model == .gray)
        #expect(converter.convert(gray: 128) == 188)
        #expect(converter.convertExactly([128]) == [188])
        var image = try Image(width: 1, height: 1, format: .rgb8)
        #expect(!converter.apply(to: &image))
    }

    /// Bradford-adapted sRGB primaries give the colorants sRGB profiles carry (ICC.1 Annex F.3
    /// example values, to the four decimals profiles store).
    @Test func sRGBColorants() {
        let m = ColourPrimaries.sRGB.matrixToPCS
        let expected = [0.4361, 0.3851, 0.1431, 0.2225, 0.7169, 0.0606, 0.0139, 0.0971, 0.7141]
        for i in 0 ..< 9 { #expect(abs(m[i] - expected[i]) < 2e-4, "entry \(i)") }
    }
}
