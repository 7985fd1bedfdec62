import PareCore
import PareWebP
import PareGIF
import PareTIFF

/// The WebP, GIF and TIFF-image parts of `pare inspect`: what each decoder reads from the
/// headers (`WebPInfo`, `GIFInfo`, `TIFFInfo`), then a decode of the picture into a sink
/// that keeps nothing, so that a file fails when its image data does.
enum InspectContainers {
    /// RIFF chunks (with the frame each sits in), the VP8 frame header or the VP8L
    /// transforms, the ALPH header, and the animation's frame and loop counts.
    static func webp(_ bytes: [UInt8]) -> (JSONValue, String?) {
        report(bytes, format: "webp", as: WebPDecoder<MemoryByteSource>.self) { decoder, object in
            let info = decoder.info
            object.add("width", info.width)
            object.add("height", info.height)
            object.add("coding", info.isLossless ? "lossless (VP8L)" : "lossy (VP8)")
            object.add("hasAlpha", .bool(info.hasAlpha))
            object.add("animated", .bool(info.isAnimated))
            object.add("frames", info.frameCount)
            if info.isAnimated { object.add("loopCount", info.loopCount) }
            object.add("chunks", objects: info.chunks) { c, chunk in
                c.add("type", String(decoding: chunk.fourCCBytes, as: UTF8.self))
                c.add("offset", chunk.offset)
                c.add("size", chunk.size)
                if let frame = chunk.frame { c.add("frame", frame) }
            }
            if let vp8 = info.vp8 {
                var v = JSONObjectBuilder()
                v.add("width", vp8.width)
                v.add("height", vp8.height)
                v.add("firstPartitionBytes", vp8.firstPartitionSize)
                v.add("tokenPartitions", vp8.partitionCount)
                v.add("segmentation", .bool(vp8.segmentationEnabled))
                if vp8.segmentationEnabled {
                    v.add("segmentQuantizers", .array(vp8.segmentQuantizers.map(JSONValue.int)))
                    v.add("segmentFilterLevels", .array(vp8.segmentFilterLevels.map(JSONValue.int)))
                }
                v.add("filter", vp8.simpleFilter ? "simple" : "normal")
                v.add("filterLevel", vp8.filterLevel)
                v.add("sharpness", vp8.sharpness)
                v.add("baseQuantizer", vp8.baseQuantizer)
                object.add("vp8", v.value)
            }
            if let vp8l = info.vp8l {
                var v = JSONObjectBuilder()
                v.add("width", vp8l.width)
                v.add("height", vp8l.height)
                v.add("transforms", .array(vp8l.transforms.map { .string("\($0.kind) (\($0.parameter))") }))
                v.add("colorCacheBits", vp8l.colorCacheBits)
                v.add("metaPrefixBits", vp8l.metaPrefixBits)
                object.add("vp8l", v.value)
            }
            if let alpha = info.alpha {
                object.add("alpha", "compression \(alpha.compression), filter \(alpha.filter), preprocessing \(alpha.preprocessing)")
            }
        }
    }

    /// The logical screen, the first frame's descriptor, every block with its offset, the
    /// frame and loop counts, comments and XMP.
    static func gif(_ bytes: [UInt8]) -> (JSONValue, String?) {
        report(bytes, format: "gif", as: GIFDecoder<MemoryByteSource>.self) { decoder, object in
            let info = decoder.info
            object.add("version", String(decoding: info.version, as: UTF8.self))
            object.add("screenWidth", info.screenWidth)
            object.add("screenHeight", info.screenHeight)
            object.add("globalColors", info.globalColorCount)
            object.add("frames", info.frameCount)
            object.add("loopCount", info.loopCount.map(JSONValue.int) ?? .null)
            object.add("firstFrame", "\(info.frameWidth)×\(info.frameHeight) at (\(info.frameLeft), \(info.frameTop))"
                       + (info.interlaced ? ", interlaced" : "") + (info.localColorCount > 0 ? ", \(info.localColorCount) local colours" : ""))
            object.add("transparentIndex", info.transparentIndex.map(JSONValue.int) ?? .null)
            object.add("comments", .array(info.comments.map { .string(String(decoding: $0, as: UTF8.self)) }))
            object.add("xmpBytes", info.xmp?.count ?? 0)
            object.add("blocks", objects: info.blocks.prefix(1000)) { b, block in
                b.add("kind", "\(block.kind)")
                b.add("offset", block.offset)
                b.add("size", block.size)
                if let frame = block.frame { b.add("frame", frame) }
            }
        }
    }

    /// A report on `bytes` as `format`: the decoder opened with its default options,
    /// `describe` adding what its headers say, then the image decoded into a sink that keeps
    /// nothing. The first failure ends the report as its `error`, and is returned.
    static func report<Decoder: RowDecoder>(
        _ bytes: [UInt8], format: String, as _: Decoder.Type, describe: (Decoder, inout JSONObjectBuilder) -> Void
    ) -> (JSONValue, String?) where Decoder.Source == MemoryByteSource {
        var object = JSONObjectBuilder()
        object.add("format", format)
        object.add("bytes", bytes.count)
        do throws(Decoder.Failure) {
            var decoder = try Decoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: Decoder.Options())
            describe(decoder, &object)
            var sink = DiscardingSink()
            try decoder.decode(into: &sink)
        } catch {
            object.add("error", "\(error)")
            return (object.value, "\(error)")
        }
        object.add("error", .null)
        return (object.value, nil)
    }

    /// The first page's image facts as the TIFF decoder reads them, or why it cannot (a RAW
    /// file's IFD0, a kind of data it does not decode).
    static func tiffImage(_ bytes: [UInt8]) -> JSONValue {
        var object = JSONObjectBuilder()
        let info: TIFFInfo
        do {
            info = try TIFFDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger(), options: TIFFOptions()).info
        } catch {
            object.add("error", "\(error)")
            return object.value
        }
        object.add("width", info.width)
        object.add("height", info.height)
        object.add("bitsPerSample", info.bitsPerSample)
        object.add("samplesPerPixel", info.samplesPerPixel)
        object.add("photometric", info.photometric)
        object.add("compression", info.compression)
        object.add("planarConfiguration", info.planarConfiguration)
        object.add("predictor", info.predictor)
        object.add("alpha", "\(info.alpha)")
        object.add("layout", info.isTiled ? "tiles \(info.segmentWidth)×\(info.segmentHeight)"
                   : "strips of \(info.segmentHeight) rows")
        object.add("segments", info.segments.count)
        object.add("pages", info.pageCount)
        return object.value
    }
}
