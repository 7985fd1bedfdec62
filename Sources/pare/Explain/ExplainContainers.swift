import PareCore
import PareEXIF
import PareWebP
import PareGIF
import PareTIFF

/// The WebP and GIF sections of `pare explain`: the byte map of their chunks or blocks, the
/// header facts, and the picture as decoded.
enum ExplainContainers {
    /// WebP (RIFF container, VP8/VP8L bitstreams): each chunk on the byte map, the frame
    /// header or the lossless transforms, the first frame.
    static func webp(_ bytes: [UInt8], into page: inout ExplainPage) {
        guard let decoded = decode(bytes, as: WebPDecoder<MemoryByteSource>.self, into: &page) else { return }
        let info = decoded.decoder.info
        page.summary = "\(info.width)×\(info.height), " + (info.isLossless ? "lossless" : "lossy")
            + (info.hasAlpha ? " with alpha" : "") + (info.isAnimated ? ", \(info.frameCount) frames" : "")
        page.spans = [ByteSpan(offset: 0, length: 12, label: "RIFF", what: "RIFF header: size and the form type WEBP",
                               kind: "k-marker", section: "chunks")]
            + info.chunks.filter { $0.fourCCBytes != Array("ANMF".utf8) }.map { chunk in
                let name = String(decoding: chunk.fourCCBytes, as: UTF8.self)
                let kind = ["VP8 ", "VP8L", "ALPH"].contains(name) ? "k-idat"
                    : ["EXIF", "XMP ", "ICCP"].contains(name) ? "k-meta" : "k-chunk"
                return ByteSpan(offset: chunk.offset, length: min(8 + chunk.size, bytes.count - chunk.offset), label: name,
                                what: "\(name) chunk, \(chunk.size) bytes" + (chunk.frame.map { ", frame \($0)" } ?? ""),
                                kind: kind, section: "chunks")
            }
        page.section("chunks", "Chunks", intro: "A WebP file is a RIFF container: chunks of a four-letter name, a little-endian size and the data, padded to an even length. A simple file holds one VP8 (lossy) or VP8L (lossless) bitstream; an extended one starts with VP8X, whose flags announce alpha (ALPH), animation (ANIM and one ANMF a frame), and the ICCP, EXIF and XMP metadata chunks.") { html in
            html.table(["offset", "chunk", "bytes", "frame"], info.chunks.prefix(500).map {
                ["\($0.offset)", String(decoding: $0.fourCCBytes, as: UTF8.self), "\($0.size)", $0.frame.map { "\($0)" } ?? ""]
            })
            var facts: [(String, String)] = []
            if let vp8 = info.vp8 {
                facts += [("VP8 frame", "\(vp8.width)×\(vp8.height), first partition \(vp8.firstPartitionSize) bytes"),
                          ("token partitions", "\(vp8.partitionCount)"),
                          ("segments", vp8.segmentationEnabled ? "quantizers \(vp8.segmentQuantizers), filter levels \(vp8.segmentFilterLevels)" : "off"),
                          ("loop filter", "\(vp8.simpleFilter ? "simple" : "normal"), level \(vp8.filterLevel), sharpness \(vp8.sharpness)"),
                          ("base quantizer", "\(vp8.baseQuantizer)")]
            }
            if let vp8l = info.vp8l {
                facts += [("VP8L image", "\(vp8l.width)×\(vp8l.height)"),
                          ("transforms", vp8l.transforms.isEmpty ? "none" : vp8l.transforms.map { "\($0.kind)" }.joined(separator: ", ")),
                          ("colour cache", vp8l.colorCacheBits > 0 ? "\(1 << vp8l.colorCacheBits) entries" : "none")]
            }
            if let alpha = info.alpha {
                facts.append(("ALPH", "compression \(alpha.compression), filter \(alpha.filter), preprocessing \(alpha.preprocessing)"))
            }
            if info.isAnimated { facts.append(("animation", "\(info.frameCount) frames, loop count \(info.loopCount)")) }
            html.facts(facts)
            html.figure(decoded.image.flatMap { ExplainPictures.picture(ExplainPictures.shrink($0), minimumWidth: 1, maximumWidth: 480) },
                        caption: info.isAnimated ? "The first frame on its canvas" : "The picture as decoded")
        }
    }

    /// GIF (GIF89a): each block on the byte map, the logical screen and the first frame.
    static func gif(_ bytes: [UInt8], into page: inout ExplainPage) {
        guard let decoded = decode(bytes, as: GIFDecoder<MemoryByteSource>.self, into: &page) else { return }
        let info = decoded.decoder.info
        page.summary = "\(info.screenWidth)×\(info.screenHeight), \(info.frameCount) frame\(info.frameCount == 1 ? "" : "s")"
        page.spans = info.blocks.map { block in
            let kind: String
            switch block.kind {
            case .imageData: kind = "k-idat"
            case .globalColorTable, .localColorTable: kind = "k-table"
            case .comment, .application: kind = "k-meta"
            case .header, .trailer: kind = "k-marker"
            default: kind = "k-chunk"
            }
            return ByteSpan(offset: block.offset, length: block.size, label: "\(block.kind)",
                            what: "\(block.kind), \(block.size) bytes" + (block.frame.map { ", frame \($0)" } ?? ""),
                            kind: kind, section: "blocks")
        }
        page.section("blocks", "Blocks", intro: "A GIF is a header, a logical screen descriptor with an optional global colour table, then blocks: extensions (graphic control with transparency and timing, comments, application blocks such as NETSCAPE2.0's loop count and XMP) and images, each an image descriptor, an optional local colour table and LZW-compressed indices in sub-blocks of up to 255 bytes, until the trailer byte 0x3B.") { html in
            html.table(["offset", "block", "bytes", "frame"], info.blocks.prefix(500).map {
                ["\($0.offset)", "\($0.kind)", "\($0.size)", $0.frame.map { "\($0)" } ?? ""]
            })
            html.facts([("version", String(decoding: info.version, as: UTF8.self)),
                        ("logical screen", "\(info.screenWidth)×\(info.screenHeight), \(info.globalColorCount) global colours"),
                        ("first frame", "\(info.frameWidth)×\(info.frameHeight) at (\(info.frameLeft), \(info.frameTop))" + (info.interlaced ? ", interlaced" : "")),
                        ("transparency", info.transparentIndex.map { "index \($0)" } ?? "none"),
                        ("frames", "\(info.frameCount)"), ("loop count", info.loopCount.map { "\($0)" } ?? "none")])
            html.figure(decoded.image.flatMap { ExplainPictures.picture(ExplainPictures.shrink($0), minimumWidth: 1, maximumWidth: 480) },
                        caption: "The first frame on the logical screen")
        }
    }

    /// TIFF: the header, each IFD and each value stored outside its entry (as the metadata
    /// section lists them), then the first page's strips or tiles on the byte map, and the
    /// page's layout and picture as the decoder reads them.
    static func tiff(_ bytes: [UInt8], into page: inout ExplainPage) {
        ExplainMetadata.explainTIFF(bytes, into: &page)
        guard let decoded = decode(bytes, as: TIFFDecoder<MemoryByteSource>.self, options: TIFFOptions(), into: &page)
        else { return }
        let info = decoded.decoder.info
        let name = info.isTiled ? "tile" : "strip"
        // A page of thousands of strips would bury the byte map: the first 512 each, the rest
        // as one part.
        let shown = info.segments.prefix(512)
        page.spans += shown.enumerated().map { index, segment in
            ByteSpan(offset: segment.offset, length: segment.count, label: "\(name) \(index)",
                     what: "\(name) \(index): \(segment.count) compressed bytes", kind: "k-idat", section: "image")
        }
        if info.segments.count > shown.count, let first = info.segments.dropFirst(shown.count).map(\.offset).min(),
           let end = info.segments.dropFirst(shown.count).map({ $0.offset + $0.count }).max() {
            page.spans.append(ByteSpan(offset: first, length: end - first, label: "\(name)s",
                                       what: "\(info.segments.count - shown.count) more \(name)s", kind: "k-idat",
                                       section: "image"))
        }
        page.summary = "\(info.width)×\(info.height), " + (page.summary.isEmpty ? "" : page.summary + ", ")
            + "\(info.segments.count) \(name)\(info.segments.count == 1 ? "" : "s")"
        page.section("image", "Image data", intro: "TIFF 6.0 §3, §15: the first page's pixels are cut into strips (bands of whole rows) or tiles (rectangles), each compressed on its own and found through the StripOffsets and StripByteCounts (TileOffsets, TileByteCounts) entries; every one is decoded and its rows unpacked from their bit depth and planes, then read as PhotometricInterpretation says.") { html in
            html.facts([("size", "\(info.width)×\(info.height)"),
                        ("samples", "\(info.samplesPerPixel) a pixel, \(info.bitsPerSample) bits each"
                            + (info.planarConfiguration == 2 ? ", one plane per sample" : ", interleaved")),
                        ("photometric", "\(info.photometric) (\(photometricName(info.photometric)))"),
                        ("compression", "\(info.compression) (\(compressionName(info.compression)))"
                            + (info.predictor == 2 ? ", horizontal predictor" : "")),
                        ("alpha", "\(info.alpha)"),
                        ("layout", info.isTiled ? "\(info.segments.count) tiles of \(info.segmentWidth)×\(info.segmentHeight)"
                            : "\(info.segments.count) strips of \(info.segmentHeight) rows"),
                        ("pages", "\(info.pageCount)")])
            html.table(["\(name)", "offset", "bytes"], info.segments.prefix(64).enumerated().map { index, segment in
                ["\(index)", "\(segment.offset)", "\(segment.count)"]
            })
            html.figure(decoded.image.flatMap { ExplainPictures.picture(ExplainPictures.shrink($0), minimumWidth: 1, maximumWidth: 480) },
                        caption: "The first page as decoded")
        }
    }

    /// TIFF 6.0 §8, TIFF Technical Note 2 and the registered values: what a Compression value names.
    static func compressionName(_ value: Int) -> String {
        switch value {
        case 1: return "none"
        case 2: return "CCITT modified Huffman RLE"
        case 3: return "CCITT T.4 (Group 3 fax)"
        case 4: return "CCITT T.6 (Group 4 fax)"
        case 5: return "LZW"
        case 6: return "old-style JPEG"
        case 7: return "JPEG"
        case 8, 32946: return "Deflate"
        case 32773: return "PackBits"
        default: return "unregistered"
        }
    }

    /// TIFF 6.0 §8: what a PhotometricInterpretation value names.
    static func photometricName(_ value: Int) -> String {
        switch value {
        case 0: return "min-is-white"
        case 1: return "min-is-black"
        case 2: return "RGB"
        case 3: return "palette"
        case 4: return "transparency mask"
        case 5: return "separated (CMYK)"
        case 6: return "YCbCr"
        case 8, 9, 10: return "CIE L*a*b*"
        default: return "other"
        }
    }

    /// The decoder opened on `bytes` with `options` and its image decoded whole: nil when
    /// the headers cannot be read; else the decoder and what the decode delivered, all of the
    /// picture or the rows before the damage. Each failure is noted on the page.
    static func decode<Decoder: RowDecoder>(
        _ bytes: [UInt8], as _: Decoder.Type, options: Decoder.Options = Decoder.Options(), into page: inout ExplainPage
    ) -> (decoder: Decoder, image: Image?)? where Decoder.Source == MemoryByteSource {
        let ledger = MemoryLedger()
        var decoder: Decoder
        do throws(Decoder.Failure) {
            decoder = try Decoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
        } catch {
            page.fail("\(error)")
            return nil
        }
        var builder = ImageBuilder(ledger: ledger)
        do throws(Decoder.Failure) {
            try decoder.decode(into: &builder)
        } catch {
            page.fail("\(error)")
        }
        return (decoder, builder.image)
    }
}
