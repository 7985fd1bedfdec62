import PareCore
import PareEXIF
@_spi(Explain) import PareJPEG

/// The JPEG part of `pare inspect`: the marker walk of `JPEGStructure` (T.81 Annex B), with
/// the Exif IFDs and MPF entries of `EXIFReader` added to their APP1 and APP2 segments.
enum InspectJPEG {
    /// The report, and the reason when the structure is broken.
    static func report(_ bytes: [UInt8]) -> (JSONValue, String?) {
        let source = MemoryByteSource(bytes)
        let structure = JPEGStructure.walk(source, ledger: MemoryLedger())
        let metadata = try? EXIFReader.readJPEG(source)

        var object = JSONObjectBuilder()
        object.add("format", "jpeg")
        object.add("bytes", bytes.count)
        if let frame = structure.frames.first {
            var summary = JSONObjectBuilder()
            summary.add("process", frame.process.name)
            summary.add("width", frame.width)
            summary.add("height", frame.height)
            summary.add("precision", frame.precision)
            summary.add("components", frame.components.count)
            summary.add("sampling", frame.components.map { "\($0.horizontal)x\($0.vertical)" }.joined(separator: " "))
            summary.add("scans", structure.scans.count)
            summary.add("estimatedQuality", JPEGQualityEstimate.estimate(JPEGQualityEstimate.tablesInForce(structure))?.quality)
            object.add("summary", summary.value)
        }
        var exifShown = false
        object.add("markers", .array(structure.markers.map { marker in
            var item = self.marker(marker)
            if case let .application(app) = marker.content, let metadata {
                if app.kind == .exif, !exifShown, marker.offset == metadata.exifSegmentOffset, let exif = metadata.exif {
                    exifShown = true
                    item.add("exif", InspectEXIF.report(exif))
                }
                if app.kind == .mpf, marker.offset == metadata.mpfSegmentOffset {
                    item.add("mpfEntries", .array(metadata.mpf.map { mpfEntry($0, gainMap: metadata.gainMap) }))
                }
            }
            return item.value
        }))
        object.add("trailingBytes", structure.trailingBytes)
        object.add("gainMap", metadata?.gainMap.map(describe) ?? .null)
        var warnings: [JSONValue] = structure.warnings.map { .string("\($0)") }
        warnings += (metadata?.warnings ?? []).map { .string("\($0)") }
        warnings += (metadata?.exif?.warnings ?? []).map { .string("\($0)") }
        object.add("warnings", .array(warnings))
        let failure = structure.failure.map { "\($0)" }
        object.add("error", failure)
        return (object.value, failure)
    }

    static func marker(_ marker: JPEGMarkerRecord) -> JSONObjectBuilder {
        var item = JSONObjectBuilder()
        item.add("marker", marker.name)
        item.add("code", "0xFF" + String(InspectEXIF.hex8(marker.marker).dropFirst(2)))
        item.add("offset", marker.offset)
        if let length = marker.length { item.add("length", length) }
        switch marker.content {
        case .none:
            break
        case let .frame(frame):
            item.add("process", frame.process.name)
            item.add("precision", frame.precision)
            item.add("width", frame.width)
            item.add("height", frame.height)
            item.add("components", objects: frame.components) { c, component in
                c.add("id", component.id)
                c.add("sampling", "\(component.horizontal)x\(component.vertical)")
                c.add("quantizationTable", component.quantizationTable)
            }
        case let .quantizationTables(tables):
            item.add("tables", objects: tables) { t, table in
                t.add("id", table.id)
                t.add("bits", table.bits)
                t.add("values", .array((0 ..< 8).map { row in
                    .array((0 ..< 8).map { .int(Int(table.values[row * 8 + $0])) })
                }))
            }
        case let .huffmanTables(tables):
            item.add("tables", objects: tables) { t, table in
                t.add("class", table.tableClass == 0 ? "DC" : "AC")
                t.add("id", table.id)
                t.add("symbols", table.symbols.count)
                t.add("codeLengthCounts", .array(table.counts.map { .int($0) }))
            }
        case let .restartInterval(interval):
            item.add("restartInterval", interval)
        case let .scan(scan):
            item.add("scan", scan.number)
            item.add("components", objects: scan.components) { c, component in
                c.add("id", component.id)
                c.add("dcTable", component.dcTable)
                c.add("acTable", component.acTable)
            }
            item.add("Ss", scan.band.spectralStart)
            item.add("Se", scan.band.spectralEnd)
            item.add("Ah", scan.band.approximationHigh)
            item.add("Al", scan.band.approximationLow)
            item.add("restartInterval", scan.restartInterval)
            item.add("restartMarkers", scan.restartMarkers)
            item.add("dataOffset", scan.dataOffset)
            item.add("dataLength", scan.dataLength)
        case let .application(app):
            application(app, into: &item)
        case let .comment(text):
            item.add("text", InspectEXIF.abbreviated(String(decoding: text, as: UTF8.self), limit: 1000))
        }
        return item
    }

    static func application(_ app: JPEGApplicationRecord, into item: inout JSONObjectBuilder) {
        let kinds: [JPEGSegmentKind: String] = [.jfif: "JFIF", .jfxx: "JFXX", .exif: "Exif", .xmp: "XMP",
                                                .icc: "ICC profile", .mpf: "MPF", .adobe: "Adobe", .other: "other"]
        item.add("kind", kinds[app.kind] ?? "other")
        item.add("identifier", InspectEXIF.abbreviated(app.identifier, limit: 64))
        switch app.details {
        case .none:
            break
        case let .jfif(major, minor, units, xDensity, yDensity, thumbnailWidth, thumbnailHeight):
            item.add("version", "\(major).\(minor < 10 ? "0" : "")\(minor)")
            item.add("units", ["aspect ratio only", "dots per inch", "dots per cm"][safe: units] ?? "unit \(units)")
            item.add("xDensity", xDensity)
            item.add("yDensity", yDensity)
            item.add("thumbnail", "\(thumbnailWidth)x\(thumbnailHeight)")
        case let .jfxx(code):
            let names = [0x10: "JPEG thumbnail", 0x11: "1-byte palette thumbnail", 0x13: "3-byte RGB thumbnail"]
            item.add("extension", names[code] ?? "code \(code)")
        case let .exif(tiffHeaderOffset, byteOrder):
            item.add("tiffHeaderOffset", tiffHeaderOffset)
            item.add("byteOrder", byteOrder.isEmpty ? "invalid" : byteOrder)
        case let .xmp(packetOffset, packetLength):
            item.add("packetOffset", packetOffset)
            item.add("packetLength", packetLength)
        case let .icc(sequence, count, profileBytes):
            item.add("chunk", "\(sequence) of \(count)")
            item.add("profileBytes", profileBytes)
        case let .mpf(headerOffset):
            item.add("headerOffset", headerOffset)
        case let .adobe(version, flags0, flags1, transform):
            item.add("version", version)
            item.add("flags0", flags0)
            item.add("flags1", flags1)
            let names = ["none (RGB or CMYK)", "YCbCr", "YCCK"]
            item.add("transform", "\(transform): " + (names[safe: transform] ?? "unknown"))
        }
    }

    /// An MP entry; the one that holds the gain map says so (its MPF type is "undefined").
    static func mpfEntry(_ entry: MPFEntry, gainMap: GainMapInfo?) -> JSONValue {
        var object = JSONObjectBuilder()
        object.add("image", entry.index)
        object.add("type", entry.kind.name)
        if entry.index == gainMap?.mpfIndex, let gainMap { object.add("role", "gain map (\(gainMap.standard.name))") }
        object.add("offset", entry.offset)
        object.add("length", entry.length)
        object.add("width", entry.width)
        object.add("height", entry.height)
        return object.value
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
