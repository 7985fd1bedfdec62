import PareCore
import PareEXIF
import ParePNG

/// The PNG part of `pare inspect`: the chunk walk of `PNGStructure`, then a full decode by
/// `PNGDecoder` for the metadata it keeps and for the checks only pixels reveal (palette
/// indices); a file fails when either does.
enum InspectPNG {
    static func report(_ bytes: [UInt8]) -> (JSONValue, String?) {
        let source = MemoryByteSource(bytes)
        let structure = PNGStructure.walk(source, ledger: MemoryLedger())
        var failure = structure.failure.map { "\($0)" }

        var metadata: PNGMetadata?
        do throws(PNGError) {
            var decoder = try PNGDecoder(source: source, ledger: MemoryLedger())
            var sink = DiscardingSink()
            do throws(PNGError) {
                try decoder.decode(into: &sink)
            } catch {
                if failure == nil { failure = "\(error)" }
            }
            metadata = decoder.metadata
        } catch {
            if failure == nil { failure = "\(error)" }
        }

        var object = JSONObjectBuilder()
        object.add("format", "png")
        object.add("bytes", bytes.count)
        if let header = structure.header {
            var ihdr = JSONObjectBuilder()
            ihdr.add("width", header.width)
            ihdr.add("height", header.height)
            ihdr.add("bitDepth", header.bitDepth)
            let colorNames = [0: "gray", 2: "RGB", 3: "palette", 4: "gray+alpha", 6: "RGBA"]
            ihdr.add("colorType", "\(header.colorType) (\(colorNames[header.colorType] ?? "?"))")
            ihdr.add("channels", header.channels)
            ihdr.add("bitsPerPixel", header.bitsPerPixel)
            ihdr.add("interlace", header.interlaced ? "Adam7" : "none")
            object.add("ihdr", ihdr.value)
        }
        object.add("paletteEntries", structure.paletteEntries)
        object.add("chunks", objects: structure.chunks) { c, chunk in
            c.add("type", chunk.type)
            c.add("offset", chunk.offset)
            c.add("length", chunk.length)
            c.add("crc", chunk.crcMatches ? "ok" : "bad")
            c.add("critical", chunk.isCritical)
        }
        if structure.unlistedChunks > 0 { object.add("unlistedChunks", structure.unlistedChunks) }
        if let zlib = structure.zlib {
            var z = JSONObjectBuilder()
            z.add("cmf", InspectEXIF.hex8(zlib.cmf))
            z.add("flg", InspectEXIF.hex8(zlib.flg))
            z.add("method", zlib.method == 8 ? "8 (deflate)" : "\(zlib.method)")
            z.add("windowSize", zlib.windowSize)
            z.add("levelHint", "\(zlib.levelHint) (" + ["fastest", "fast", "default", "maximum"][zlib.levelHint] + ")")
            z.add("presetDictionary", zlib.presetDictionary)
            z.add("headerCheck", zlib.checkMatches ? "ok" : "bad")
            z.add("compressedBytes", structure.compressedBytes)
            z.add("inflatedBytes", structure.inflatedBytes)
            z.add("streamComplete", structure.streamComplete)
            object.add("zlib", z.value)
        }
        var filters = JSONObjectBuilder()
        for (name, count) in zip(["none", "sub", "up", "average", "paeth"], structure.filterCounts) {
            filters.add(name, count)
        }
        filters.add("scanlines", structure.scanlines)
        object.add("filters", filters.value)
        if let metadata { object.add("metadata", self.metadata(metadata, structure: structure)) }
        object.add("trailingBytes", structure.trailingBytes)
        object.add("error", failure)
        return (object.value, failure)
    }

    static func metadata(_ metadata: PNGMetadata, structure: PNGStructure) -> JSONValue {
        var object = JSONObjectBuilder()
        object.add("gAMA", metadata.gamma.map { .string("\($0)/100000") } ?? .null)
        if let c = metadata.chromaticities {
            var chrm = JSONObjectBuilder()
            chrm.add("white", .array([.int(c.whiteX), .int(c.whiteY)]))
            chrm.add("red", .array([.int(c.redX), .int(c.redY)]))
            chrm.add("green", .array([.int(c.greenX), .int(c.greenY)]))
            chrm.add("blue", .array([.int(c.blueX), .int(c.blueY)]))
            object.add("cHRM", chrm.value)
        }
        let intents = ["perceptual", "relative colorimetric", "saturation", "absolute colorimetric"]
        object.add("sRGB", metadata.srgbIntent.map { "\($0) (\(intents[safe: $0] ?? "?"))" })
        if let icc = metadata.iccProfile {
            var profile = JSONObjectBuilder()
            profile.add("name", icc.name)
            profile.add("compressedBytes", icc.compressed.count)
            object.add("iCCP", profile.value)
        }
        if let p = metadata.physical {
            var phys = JSONObjectBuilder()
            phys.add("x", p.pixelsPerUnitX)
            phys.add("y", p.pixelsPerUnitY)
            phys.add("unit", p.unit == 1 ? "metre" : "aspect ratio only")
            object.add("pHYs", phys.value)
        }
        object.add("tRNS", metadata.hasTransparency)
        object.add("texts", objects: metadata.texts) { t, text in
            t.add("keyword", text.keyword)
            t.add("value", InspectEXIF.abbreviated(text.value))
            if !text.languageTag.isEmpty { t.add("language", text.languageTag) }
        }
        let count = { (type: String) in structure.chunks.filter { $0.type == type }.count }
        if let animation = metadata.animation {
            var a = JSONObjectBuilder()
            a.add("frames", animation.frameCount)
            a.add("plays", animation.playCount)
            a.add("fcTL", count("fcTL"))
            a.add("fdAT", count("fdAT"))
            object.add("acTL", a.value)
        }
        if let exif = metadata.exif, let offset = metadata.exifOffset {
            do throws(EXIFError) {
                object.add("eXIf", InspectEXIF.report(try EXIFReader.readTIFF(exif, baseOffset: offset)))
            } catch {
                object.add("eXIf", .string("unreadable: \(error)"))
            }
        }
        object.add("skippedChunks", objects: metadata.skipped) { s, skip in
            s.add("type", skip.type)
            s.add("offset", skip.offset)
            s.add("reason", skip.reason)
        }
        return object.value
    }
}

/// A sink that only lets the decoder run to the end.
struct DiscardingSink: RowSink {
    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}
    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {}
}
