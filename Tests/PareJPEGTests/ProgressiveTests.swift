import PareCore
import TestSupport
import Testing
@testable import PareJPEG

/// Progressive (SOF2) decoding beyond the conformance suite (which compares every
/// progressive file of the corpus and of Fixtures/progressive with djpeg at every scale):
/// what the coefficient store keeps, which scans are passed over, where reading stops,
/// damaged and unsupported files.
@Suite struct ProgressiveTests {
    static func decode(_ bytes: [UInt8], scale: JPEGScale, options: JPEGOptions = JPEGOptions())
        throws -> (image: Image, decoder: JPEGDecoder<MemoryByteSource>) {
        var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: options)
        var builder = ImageBuilder(ledger: MemoryLedger())
        try decoder.decode(scale: scale, into: &builder)
        return (try #require(builder.image), decoder)
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        try #require(FileSystem.read(Corpus.fixtures + "/progressive/" + name))
    }

    static func reference(_ stem: String, _ n: Int) throws -> ReferenceImage {
        let png = try #require(FileSystem.read(Corpus.fixtures + "/progressive/\(stem).s\(n).png"))
        return try #require(ReferenceImage.readPNG(png))
    }

    @Test func syntheticFileDecodesToItsLevels() throws {
        let components = [SyntheticJPEG.Component(1, 1)]
        let bytes = SyntheticProgressiveJPEG.make(width: 203, height: 75, components: components)
        let (image, decoder) = try Self.decode(bytes, scale: .eighth)
        #expect(decoder.info.process == .progressive)
        #expect(decoder.warnings.isEmpty)
        #expect(image.width == 26 && image.height == 10)
        for y in 0 ..< image.height {
            for x in 0 ..< image.width {
                #expect(Int(image.pixels[y * image.width + x]) == (x * 5 + y * 3) % 200 + 28)
            }
        }
        // At 1/8 DC is final after its refinement: the AC scans are never reached.
        #expect(decoder.skippedScans == 0)
        #expect(decoder.bytesRead < bytes.count)

        // At full size the AC scan is decoded too; its ±1 coefficients move samples by at most 1.
        let full = try Self.decode(bytes, scale: .full)
        #expect(full.decoder.skippedScans == 0)
        #expect(full.decoder.bytesRead == bytes.count)
        #expect(full.decoder.warnings.isEmpty)
        for y in 0 ..< full.image.height {
            for x in 0 ..< full.image.width {
                let level = (x / 8 * 5 + y / 8 * 3) % 200 + 28
                #expect(abs(Int(full.image.pixels[y * full.image.width + x]) - level) <= 1)
            }
        }
    }

    /// With DC first, a 1/8 decode of a luma-only file needs only the DC scans: the AC scans
    /// are skipped and, once DC is final, nothing more is read.
    @Test func eighthScaleReadsOnlyTheDCScans() throws {
        let bytes = try Self.fixture("px-scans-spectral-gray.jpg")
        let (image, decoder) = try Self.decode(bytes, scale: .eighth)
        let reference = try Self.reference("px-scans-spectral-gray", 8)
        #expect(Comparison.between(image.pixels, reference.samples).identical)
        // Scans: DC, 1-5, 6-20, 21-63; DC is final after the first, so reading stops there.
        #expect(decoder.skippedScans == 0)
        #expect(decoder.bytesRead < bytes.count / 2, "\(decoder.bytesRead) of \(bytes.count)")

        // DC last: the AC scans in between are passed over without decoding.
        let dcLast = try Self.fixture("px-scans-dc-last-420.jpg")
        let result = try Self.decode(dcLast, scale: .eighth)
        #expect(Comparison.between(result.image.pixels, try Self.reference("px-scans-dc-last-420", 8).samples).identical)
        #expect(result.decoder.skippedScans == 2, "luma AC at Al=1 and its refinement")
    }

    /// With no budget for exact sets, every reduced component keeps only its k×k corner: bands
    /// above it that no refinement depends on are skipped at 1/4 and 1/2 too, reading stops
    /// sooner, and the output stays close to djpeg's (exact sets match it bit for bit, see the
    /// conformance suite). A first AC scan with Al > 0 above the corner is still decoded: the
    /// refinement that follows reads a correction bit for each coefficient it made nonzero,
    /// and without them it loses its place (a bad Huffman code, a picture far from djpeg's).
    @Test func cornerStoreSkipsHighBands() throws {
        var options = JPEGOptions()
        options.maxExactCoefficientBytes = 0
        for stem in ["px-420", "px-scans-spectral-gray", "px-q95-photo"] {
            let bytes = try Self.fixture(stem + ".jpg")
            for n in [2, 4] {
                let scale = JPEGScale(rawValue: 8 / n)!
                let corner = try Self.decode(bytes, scale: scale, options: options)
                let exact = try Self.decode(bytes, scale: scale)
                let reference = try Self.reference(stem, n).samples
                let comparison = Comparison.between(corner.image.pixels, reference)
                print("corner store, \(stem) 1/\(n): \(comparison), \(corner.decoder.skippedScans) scans skipped, "
                    + "read \(corner.decoder.bytesRead) of \(bytes.count) bytes")
                #expect(Comparison.between(exact.image.pixels, reference).identical, "\(stem) 1/\(n)")
                #expect(corner.decoder.bytesRead <= exact.decoder.bytesRead)
                #expect(corner.decoder.warnings.isEmpty, "\(stem) 1/\(n): \(corner.decoder.warnings)")
                #expect(comparison.psnr >= 25, "\(stem) 1/\(n): \(comparison)")
            }
        }
        // cjpeg's script sends luma 6-63 (Al=2) before the 1-63 refinements: at 1/4 it is
        // decoded for the refinement's sake, not passed over.
        let quarter = try Self.decode(try Self.fixture("px-420.jpg"), scale: .quarter, options: options)
        #expect(quarter.decoder.warnings.isEmpty)
        #expect(quarter.decoder.skippedScans == 0)
    }

    /// `ProgressiveFidelity.preview` with no budget for exact sets: every component keeps the
    /// scale's k×k corner (2×2 at least) and no AC refinement scan is read, so no nonzero map
    /// is made, more scans are passed over and reading stops sooner than with corners that are
    /// refined. The picture at the reduced scale itself is further from djpeg's than refined
    /// corners are (on these small synthetic pictures, 23–25 dB against 28–33 at 1/2 and 1/4:
    /// 4:2:0 chroma keeps its own resolution instead of the output's, and AC coefficients
    /// lack their last one or two bits), which is why only thumbnails, shrunk further, use it
    /// (see ProgressiveThumbnailTests). With the budget the exact sets need, preview changes
    /// nothing: the output is djpeg's bit for bit.
    @Test func previewStoreReadsFirstScansOnly() throws {
        var corner = JPEGOptions()
        corner.maxExactCoefficientBytes = 0
        var preview = corner
        preview.progressiveFidelity = .preview
        var fitting = JPEGOptions()
        fitting.progressiveFidelity = .preview
        for stem in ["px-420", "px-q95-photo"] {
            let bytes = try Self.fixture(stem + ".jpg")
            for n in [2, 4, 8] {
                let scale = JPEGScale(rawValue: 8 / n)!
                let refined = try Self.decode(bytes, scale: scale, options: corner)
                let quick = try Self.decode(bytes, scale: scale, options: preview)
                let reference = try Self.reference(stem, n).samples
                let comparison = Comparison.between(quick.image.pixels, reference)
                print("preview store, \(stem) 1/\(n): \(comparison) (refined corners: "
                    + "\(Comparison.between(refined.image.pixels, reference))), \(quick.decoder.skippedScans) scans skipped, "
                    + "read \(quick.decoder.bytesRead) of \(bytes.count) bytes")
                #expect(quick.decoder.warnings.isEmpty, "\(stem) 1/\(n): \(quick.decoder.warnings)")
                #expect(quick.decoder.bytesRead <= refined.decoder.bytesRead)
                #expect(comparison.psnr >= (n == 8 ? 35 : 22), "\(stem) 1/\(n): \(comparison)")
                if n < 8 {
                    #expect(quick.decoder.skippedScans > refined.decoder.skippedScans, "\(stem) 1/\(n)")
                }
                let exact = try Self.decode(bytes, scale: scale, options: fitting)
                #expect(Comparison.between(exact.image.pixels, reference).identical, "\(stem) 1/\(n)")
            }
        }
    }

    /// The settled value of a coefficient whose first scan dropped Al bits is the middle of
    /// what they could add (T.81 G.1.2.2's point transform truncates toward zero); zero stays.
    @Test func previewSettlesAtTheMiddleOfTheMissingBits() throws {
        // A 2×2 corner (natural 0, 1, 8, 9 are zig-zag 0, 1, 2, 4) of two blocks.
        let plane = try CoefficientStore.Plane(size: 2, positions: CoefficientStore.Plane.positions(size: 2, exact: false),
                                               blocksWide: 2, blocksHigh: 1, codedWide: 2, codedHigh: 1,
                                               firstScansOnly: true, ledger: MemoryLedger())
        #expect(plane.positions == [0, 1, 8, 9])
        let before: [Int16] = [40, 8, -12, 0, -7, 0, 4, -4]
        for (i, v) in before.enumerated() { plane.values[i] = v }
        plane.bitPosition[0] = 0
        plane.bitPosition[1] = 2 // natural 1: two bits missing, the middle is +2 away from zero
        plane.bitPosition[2] = 1 // natural 8: one bit missing, +1
        plane.bitPosition[4] = 0 // natural 9: final
        plane.settleFirstScans()
        #expect((0 ..< 8).map { plane.values[$0] } == [40, 10, -13, 0, -7, 0, 5, -4])
        #expect(plane.isFinal, "AC coefficients are settled by their first scans")
    }

    @Test(.requiresCorpus) func truncatedFilesDecodeWhatTheyHave() throws {
        let root = Corpus.path
        let half = try #require(FileSystem.read(root + "/jpeg/malformed/made-truncated50-ljt-testimgp.jpg"))
        let (image, decoder) = try Self.decode(half, scale: .full)
        #expect(image.width == 227 && image.height == 149)
        #expect(decoder.warnings.contains { if case .truncated = $0 { return true } else { return false } })
        // The first half of the file carries the DC scans: the picture is there, not gray.
        let whole = try #require(FileSystem.read(root + "/jpeg/conformance/ljt-testimgp.jpg"))
        let complete = try Self.decode(whole, scale: .full).image
        #expect(Comparison.between(image.pixels, complete.pixels).psnr >= 20)

        var strict = JPEGOptions()
        strict.strict = true
        #expect(throws: JPEGError.self) { try Self.decode(half, scale: .full, options: strict) }
    }

    @Test(.requiresCorpus) func arithmeticAndTwelveBitStayUnsupported() throws {
        let root = Corpus.path
        for name in ["js-progarith-32x32x8_ycbcr.jpg", "js-prog-32x32x12_ycbcr.jpg", "js-prog-8x8x12_grayscale_gray.jpg"] {
            let bytes = try #require(FileSystem.read(root + "/jpeg/unsupported/" + name))
            do {
                _ = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
                Issue.record("\(name) accepted")
            } catch .unsupported(process: .arithmeticProgressive, _) {
            } catch .unsupportedFeature(let feature, _) {
                #expect(feature == "12-bit samples", "\(name)")
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
    }

    @Test func badProgressionParametersAreErrors() throws {
        var bytes = try Self.fixture("px-scans-spectral-gray.jpg")
        // The second SOS (luma 1-5): make it claim Ah = 3 with Al = 0.
        var sos: [Int] = []
        for i in 0 ..< bytes.count - 1 where bytes[i] == 0xFF && bytes[i + 1] == 0xDA { sos.append(i) }
        let second = try #require(sos.dropFirst().first)
        let length = Int(bytes[second + 2]) << 8 | Int(bytes[second + 3])
        bytes[second + 2 + length - 1] = 0x30
        #expect(throws: JPEGError.invalidSegment(marker: 0xDA, offset: second,
                                                 reason: "progression parameters Ss=1 Se=5 Ah=3 Al=0 for 1 components")) {
            try Self.decode(bytes, scale: .full)
        }
    }
    /// Block smoothing's estimate avoids a 64-bit division; it must equal the direct formula,
    /// ⌊(Q00·|Σ| + 128·Q) / (256·Q)⌋ with Σ's sign, capped below 2^Al, at the extremes of its
    /// inputs: DC values of ±2^15 under the largest kernel, 16-bit quantisers.
    @Test func smoothingEstimateEqualsTheDirectFormula() {
        let dcs: [[Int]] = [
            [Int](repeating: 0, count: 25), [Int](repeating: -32768, count: 25), [Int](repeating: 32767, count: 25),
            (0 ..< 25).map { $0 % 2 == 0 ? 32767 : -32768 }, (0 ..< 25).map { ($0 * 7919) % 4001 - 2000 },
            (0 ..< 25).map { $0 == 12 ? 1 : 0 },
        ]
        let quantizers = [1, 2, 3, 7, 16, 255, 256, 1000, 32767, 65535]
        for kernels in [BlockSmoothing.dcOnly, BlockSmoothing.withAC] {
            for kernel in 0 ..< kernels.count / 25 {
                for dc in dcs {
                    for q00 in quantizers {
                        for q in quantizers {
                            for al in [-1, 0, 1, 5, 13] {
                                var sum: Int64 = 0
                                for i in 0 ..< 25 { sum += Int64(kernels[kernel * 25 + i]) * Int64(dc[i]) }
                                let numerator = Int64(q00) * sum
                                var magnitude = (Int64(q) * 128 + abs(numerator)) / (Int64(q) * 256)
                                if al > 0 && magnitude >= Int64(1) << al { magnitude = (Int64(1) << al) - 1 }
                                let expected = Int16(truncatingIfNeeded: numerator < 0 ? -magnitude : magnitude)
                                let got = Int16(truncatingIfNeeded: BlockSmoothing.estimate(kernels, kernel, dc, q00, q,
                                                                                            cap: al))
                                #expect(got == expected, "kernel \(kernel) q00 \(q00) q \(q) al \(al)")
                            }
                        }
                    }
                }
            }
        }
    }
}
