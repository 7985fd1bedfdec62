import PareCore
import TestSupport
import Testing
@testable import PareJPEG

/// Every baseline and progressive JPEG of the corpus (jpeg/conformance and all of exif/) and of Fixtures/,
/// decoded at 1/1, 1/2, 1/4 and 1/8 and compared with the djpeg references
/// (`<stem>.s<N>.png`) sample for sample: every one must be bit-exact. Each run counts the references it compared, so that a run that finds
/// files but compares nothing fails.
@Suite struct ConformanceTests {
    struct Source {
        var path: String
        var referenceFolder: String
    }

    /// jpeg/conformance and every folder of exif/, with the references in jpeg/ref.
    static func corpusSources() -> [Source] {
        let root = Corpus.path
        var result: [Source] = []
        for name in FileSystem.list(root + "/jpeg/conformance") where name.hasSuffix(".jpg") {
            result.append(Source(path: root + "/jpeg/conformance/" + name, referenceFolder: root + "/jpeg/ref"))
        }
        for folder in FileSystem.list(root + "/exif") where FileSystem.isDirectory(root + "/exif/" + folder) {
            for name in FileSystem.list(root + "/exif/" + folder) where name.hasSuffix(".jpg") {
                result.append(Source(path: root + "/exif/\(folder)/" + name, referenceFolder: root + "/jpeg/ref"))
            }
        }
        return result
    }

    /// The JPEGs of Fixtures/, each with its references beside it.
    static func fixtureSources() -> [Source] {
        var result: [Source] = []
        for folder in ["jpeg", "exif", "progressive"] {
            let directory = Corpus.fixtures + "/" + folder
            guard FileSystem.isDirectory(directory) else { continue }
            for name in FileSystem.list(directory) where name.hasSuffix(".jpg") && !name.hasSuffix(".thumb.jpg") {
                result.append(Source(path: directory + "/" + name, referenceFolder: directory))
            }
        }
        return result
    }

    /// What a run over a set of files did, per scale denominator.
    struct Tally {
        var files = 0
        var unsupported: [String] = []
        var failures: [String] = []
        /// References found for the files that decoded, and how many of them were compared.
        var references = [Int: Int](), compared = [Int: Int](), exact = [Int: Int]()
        var minimumPSNR = [Int: Double]()
    }

    /// Decodes every source at each scale that has a reference and compares.
    static func compare(_ sources: [Source], label: String) throws -> Tally {
        var tally = Tally()
        for source in sources {
            let bytes = try #require(FileSystem.read(source.path))
            let name = String(source.path.split(separator: "/").last!)
            let stem = String(name.dropLast(4))
            var decoder: JPEGDecoder<MemoryByteSource>
            do {
                decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
            } catch .unsupported {
                tally.unsupported.append(name)
                continue
            } catch {
                tally.failures.append("\(name): \(error)")
                continue
            }
            tally.files += 1
            for n in [1, 2, 4, 8] {
                let path = "\(source.referenceFolder)/\(stem).s\(n).png"
                guard FileSystem.exists(path) else { continue }
                tally.references[n, default: 0] += 1
                let png = try #require(FileSystem.read(path))
                let reference = try #require(ReferenceImage.readPNG(png), "\(path)")
                let scale = JPEGScale(rawValue: 8 / n)!
                var builder = ImageBuilder(ledger: MemoryLedger())
                do {
                    try decoder.decode(scale: scale, into: &builder)
                } catch {
                    tally.failures.append("\(name) 1/\(n): \(error)")
                    continue
                }
                let image = try #require(builder.image)
                let size = decoder.outputSize(at: scale)
                guard image.width == reference.width, image.height == reference.height,
                      size.width == reference.width, size.height == reference.height,
                      image.format.channels == reference.channels else {
                    tally.failures.append("\(name) 1/\(n): \(image.width)x\(image.height)x\(image.format.channels), "
                        + "reference \(reference.width)x\(reference.height)x\(reference.channels)")
                    continue
                }
                let comparison = Comparison.between(image.pixels, reference.samples)
                tally.compared[n, default: 0] += 1
                if comparison.identical { tally.exact[n, default: 0] += 1 }
                tally.minimumPSNR[n] = min(tally.minimumPSNR[n] ?? .infinity, comparison.psnr)
                // Bit-exact with djpeg at every scale: `==` on the samples. A file that is
                // not is a failure, listed with its PSNR.
                if image.pixels != reference.samples { tally.failures.append("\(name) 1/\(n): not bit-exact, \(comparison)") }
            }
        }
        print("JPEG conformance (\(label)): \(tally.files) files decoded, \(tally.unsupported.count) skipped as unsupported")
        for n in [1, 2, 4, 8] {
            let psnr = tally.minimumPSNR[n].map { $0.isInfinite ? "inf" : String(Int($0 * 100) / 100) } ?? "-"
            print("  scale 1/\(n): \(tally.compared[n] ?? 0) of \(tally.references[n] ?? 0) references compared, "
                + "\(tally.exact[n] ?? 0) bit-exact, minimum PSNR \(psnr) dB")
        }
        return tally
    }

    @Test(.requiresCorpus) func corpusDecodesLikeDjpegAtEveryScale() throws {
        let tally = try Self.compare(Self.corpusSources(), label: "corpus")
        #expect(tally.failures.isEmpty, "\(tally.failures)")
        // Every reference of a supported file was compared, and the counts are pinned: a file or
        // reference that goes missing, or a file that stops decoding, fails here.
        #expect(tally.compared == tally.references)
        #expect(tally.files == 234)
        #expect(tally.unsupported.isEmpty)
        #expect(tally.compared == [1: 164, 2: 164, 4: 195, 8: 195])
        #expect(tally.exact == [1: 164, 2: 164, 4: 195, 8: 195])
    }

    @Test func fixturesDecodeLikeDjpegAtEveryScale() throws {
        let tally = try Self.compare(Self.fixtureSources(), label: "Fixtures")
        #expect(tally.failures.isEmpty, "\(tally.failures)")
        #expect(tally.compared == tally.references)
        #expect(tally.unsupported.isEmpty)
        #expect(tally.files == 92)
        #expect(tally.compared == [1: 92, 2: 92, 4: 92, 8: 92])
        #expect(tally.exact == [1: 92, 2: 92, 4: 92, 8: 92])
    }

    @Test(.requiresCorpus) func readsHeaders() throws {
        let root = Corpus.path
        let bytes = try #require(FileSystem.read(root + "/exif/cameras/Canon_EOS_D60.jpg"))
        let decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
        #expect(decoder.info.process == .baseline)
        #expect(decoder.info.colorSpace == .yCbCr)
        #expect(decoder.info.restartInterval == 111)
        #expect(decoder.info.components.map { $0.horizontal * 10 + $0.vertical } == [22, 11, 11])
        #expect(decoder.info.segments.first?.kind == .jfif)
        #expect(decoder.info.segments.first?.offset == 2)
        #expect(decoder.info.segments.contains { $0.kind == .exif })
        #expect(decoder.outputFormat == .rgb8)

        let ycckBytes = try #require(FileSystem.read(root + "/jpeg/conformance/jd-ycck.jpg"))
        let cmyk = try JPEGDecoder(source: MemoryByteSource(ycckBytes), ledger: MemoryLedger())
        #expect(cmyk.info.colorSpace == .ycck)
        #expect(cmyk.info.segments.contains { $0.kind == .adobe })

        let progressive = try #require(FileSystem.read(root + "/jpeg/conformance/ljt-testimgp.jpg"))
        let decoder2 = try JPEGDecoder(source: MemoryByteSource(progressive), ledger: MemoryLedger())
        #expect(decoder2.info.process == .progressive)

        let arithmetic = try #require(FileSystem.read(root + "/jpeg/unsupported/js-progarith-32x32x8_ycbcr.jpg"))
        do {
            _ = try JPEGDecoder(source: MemoryByteSource(arithmetic), ledger: MemoryLedger())
            Issue.record("arithmetic progressive file accepted")
        } catch {
            guard case .unsupported(process: .arithmeticProgressive, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(error.description.hasPrefix("JPEG: unsupported coding process: progressive arithmetic (SOF10) at byte "))
        }
    }

    @Test func outputSizesFollowDjpeg() throws {
        let bytes = SyntheticJPEG.make(width: 17, height: 33)
        let decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
        #expect(decoder.outputSize(at: .full) == (17, 33))
        #expect(decoder.outputSize(at: .half) == (9, 17))
        #expect(decoder.outputSize(at: .quarter) == (5, 9))
        #expect(decoder.outputSize(at: .eighth) == (3, 5))
    }
}
