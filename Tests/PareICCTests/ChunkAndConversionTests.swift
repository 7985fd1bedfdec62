import PareCore
@testable import PareICC
import Testing
import TestSupport

/// JPEG APP2 chunk assembly (ICC.1 B.4), the sRGB shortcut and sRGB's colorants (the
/// conversion's tables are `RowConversionTests`).
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

    /// An sRGB profile is recognised as the identity (so rows pass untouched, see
    /// `ConvertingSinkTests`); its tables are within one code of it anyway.
    @Test func sRGBProfileIsTheIdentity() throws {
        let profile = try ICCProfile(bytes: ProfileBuilder.sRGBLike().build())
        let converter = try #require(SRGBConverter(profile: profile))
        #expect(converter.isIdentity)
        let pixels: [UInt8] = [10, 200, 30, 255, 0, 128]
        let out = converter.convert(pixels, format: .rgb8)
        for i in 0 ..< 6 { #expect(abs(Int(out[i]) - Int(pixels[i])) <= 1) }
    }

    /// Bradford-adapted sRGB primaries give the colorants sRGB profiles carry (ICC.1 Annex F.3
    /// example values, to the four decimals profiles store).
    @Test func sRGBColorants() {
        let m = ColourPrimaries.sRGB.matrixToPCS
        let expected = [0.4361, 0.3851, 0.1431, 0.2225, 0.7169, 0.0606, 0.0139, 0.0971, 0.7141]
        for i in 0 ..< 9 { #expect(abs(m[i] - expected[i]) < 2e-4, "entry \(i)") }
    }
}
