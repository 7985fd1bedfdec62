import Pare
import PareCore
import PareEXIF

/// `pare exif IN --json`: the metadata as one JSON object (the fields are listed in the
/// README's "Usage"). The container is sniffed from the first bytes (`ImageFormat`): JPEG
/// (APP1 Exif, APP2 MPF and ICC_PROFILE), PNG (eXIf, iCCP) or TIFF. `iccProfile` is the
/// embedded profile's description, colour space and class signatures (as in the header,
/// "RGB ", "mntr"), version and size, or null.
func runExif(_ raw: [String]) -> Int32 {
    let arguments: Arguments
    do {
        arguments = try Arguments(raw, valued: [], boolean: ["--json"])
    } catch {
        return usageError(error.message)
    }
    guard arguments.positionals.count == 1, arguments.flag("--json") else {
        return usageError("exif needs one input and --json")
    }
    let input = arguments.positionals[0]
    guard let bytes = readInput(input) else {
        printError("pare: \(input): cannot read the file")
        return 1
    }
    guard let format = ImageFormat(sniffing: Array(bytes.prefix(16))) else {
        return reportInputError(input, PareError.unreadable(sniffing: Array(bytes.prefix(16))))
    }
    let source = MemoryByteSource(bytes)
    var json = JSONObjectBuilder()
    do throws(EXIFError) {
        switch format {
        case .jpeg:
            let jpeg = try EXIFReader.readJPEG(source)
            json.add("format", "jpeg")
            describe(jpeg.exif, into: &json)
            json.add("mpf", .array(jpeg.mpf.map(describe)))
            json.add("gainMap", jpeg.gainMap.map(describe) ?? .null)
            json.add("warnings", warningList(jpeg.warnings + (jpeg.exif?.warnings ?? [])))
        case .png:
            json.add("format", "png")
            var metadata: EXIFMetadata?
            if let chunk = exifPayloadFromPNG(bytes) {
                metadata = try EXIFReader.readTIFF(chunk.payload, baseOffset: chunk.offset)
            }
            describe(metadata, into: &json)
            json.add("mpf", .array([]))
            json.add("gainMap", .null)
            json.add("warnings", warningList(metadata?.warnings ?? []))
        case .tiff:
            let metadata = try EXIFReader.readTIFFFile(source)
            json.add("format", "tiff")
            describe(metadata, into: &json, sizeFromIFD0: true)
            json.add("mpf", .array([]))
            json.add("gainMap", .null)
            json.add("warnings", warningList(metadata.warnings))
        case .webp:
            // The EXIF chunk holds a TIFF block (some writers keep JPEG's "Exif\0\0" first).
            json.add("format", format.rawValue)
            var metadata: EXIFMetadata?
            if let chunk = webpExifChunk(bytes) {
                metadata = try EXIFReader.readTIFF(chunk.payload, baseOffset: chunk.offset)
            }
            describe(metadata, into: &json)
            json.add("mpf", .array([]))
            json.add("gainMap", .null)
            json.add("warnings", warningList(metadata?.warnings ?? []))
        case .netpbm, .gif:
            // Netpbm has no place for metadata, GIF none for EXIF.
            json.add("format", format.rawValue)
            describe(nil, into: &json)
            json.add("mpf", .array([]))
            json.add("gainMap", .null)
            json.add("warnings", .array([]))
        }
    } catch {
        return reportInputError(input, error)
    }
    json.add("iccProfile", iccSummary(bytes))
    print(json.value.text)
    return 0
}

/// The embedded profile as `ImageSource` reads it for thumbnails; a JPEG's also when its
/// image data is of a kind Pare does not decode (12-bit, arithmetic coding).
private func iccSummary(_ bytes: [UInt8]) -> JSONValue {
    var profile: ICCProfile?
    if bytes.starts(with: [0xFF, 0xD8]) {
        let source = MemoryByteSource(bytes)
        if let metadata = try? EXIFReader.readJPEG(source) {
            profile = SourceColour.jpeg(metadata, in: source, options: ICCOptions()).profile
        }
    } else if let source = try? ImageSource(bytes: bytes) {
        profile = (try? source.properties())?.iccProfile
    }
    guard let profile else { return .null }
    var object = JSONObjectBuilder()
    object.add("description", profile.description)
    object.add("colorSpace", "\(profile.header.colourSpace)")
    object.add("profileClass", "\(profile.header.profileClass)")
    object.add("version", profile.header.version)
    object.add("bytes", profile.bytes.count)
    return object.value
}

/// The common fields; absent metadata reads as orientation 1 and nulls. The pixel size is
/// the Exif one (PixelXDimension/PixelYDimension), except in a TIFF file, where IFD0's
/// ImageWidth/ImageLength give the main image's size (ExifTool's ImageSize), the Exif ones
/// only when IFD0 has none.
private func describe(_ metadata: EXIFMetadata?, into json: inout JSONObjectBuilder, sizeFromIFD0: Bool = false) {
    json.add("byteOrder", metadata.map { $0.byteOrder == .littleEndian ? "II" : "MM" })
    json.add("orientation", metadata?.orientation.rawValue ?? 1)
    json.add("rawOrientation", metadata?.rawOrientation)
    json.add("make", metadata?.make)
    json.add("model", metadata?.model)
    json.add("software", metadata?.software)
    json.add("dateTime", metadata?.dateTime)
    json.add("dateTimeOriginal", metadata?.dateTimeOriginal)
    var width = metadata?.pixelWidth, height = metadata?.pixelHeight
    if sizeFromIFD0, let ifd0Width = metadata?.imageWidth, let ifd0Height = metadata?.imageHeight {
        (width, height) = (ifd0Width, ifd0Height)
    }
    json.add("pixelWidth", width)
    json.add("pixelHeight", height)
    if let gps = metadata?.gps {
        var object = JSONObjectBuilder()
        object.add("latitude", gps.latitude)
        object.add("longitude", gps.longitude)
        object.add("altitude", gps.altitude)
        json.add("gps", object.value)
    } else {
        json.add("gps", .null)
    }
    if let thumbnail = metadata?.thumbnail {
        json.add("thumbnail", InspectEXIF.json(thumbnail))
    } else {
        json.add("thumbnail", .null)
    }
    var ifds = JSONObjectBuilder()
    for ifd in metadata?.ifds ?? [] {
        var tags = JSONObjectBuilder()
        for entry in ifd.entries {
            tags.add(entry.name ?? hexTag(entry.tag), value(entry))
        }
        ifds.add(ifd.name, tags.value)
    }
    json.add("ifds", ifds.value)
}

private func describe(_ entry: MPFEntry) -> JSONValue {
    var object = JSONObjectBuilder()
    object.add("type", entry.kind.name)
    object.add("typeCode", Int(entry.typeCode))
    object.add("offset", entry.offset)
    object.add("length", entry.length)
    object.add("width", entry.width)
    object.add("height", entry.height)
    return object.value
}

/// A gain map: where it is, which standard marks it, and its values (log2 where the
/// standard's are: min/max boost and HDR capacity), as `GainMapMetadata` names them.
func describe(_ gainMap: GainMapInfo) -> JSONValue {
    var object = JSONObjectBuilder()
    object.add("standard", gainMap.standard.name)
    object.add("mpfIndex", gainMap.mpfIndex)
    object.add("offset", gainMap.offset)
    object.add("length", gainMap.length)
    object.add("width", gainMap.width)
    object.add("height", gainMap.height)
    object.add("xmp", gainMap.hasXMPMetadata)
    object.add("iso21496", gainMap.hasISOMetadata)
    if let metadata = gainMap.metadata {
        func list(_ values: [Double]) -> JSONValue {
            values.count == 1 ? .double(values[0]) : .array(values.map { .double($0) })
        }
        object.add("version", metadata.version)
        object.add("gainMapMin", list(metadata.gainMapMin))
        object.add("gainMapMax", list(metadata.gainMapMax))
        object.add("gamma", list(metadata.gamma))
        object.add("offsetSDR", list(metadata.offsetSDR))
        object.add("offsetHDR", list(metadata.offsetHDR))
        object.add("hdrCapacityMin", metadata.hdrCapacityMin)
        object.add("hdrCapacityMax", metadata.hdrCapacityMax)
        object.add("baseRenditionIsHDR", metadata.baseRenditionIsHDR)
    }
    return object.value
}

/// An entry's value: ASCII as a string, one number as a number, several as a list, and
/// long opaque values only by size.
private func value(_ entry: IFDEntry) -> JSONValue {
    guard let bytes = entry.value, let type = entry.fieldType else { return .null }
    if type == .ascii { return .string(entry.string ?? "") }
    if type == .undefined || (type == .byte && bytes.count > 16) {
        return bytes.count <= 16 ? .array(bytes.map { .int(Int($0)) }) : .string("(\(bytes.count) bytes)")
    }
    if entry.valueCount > 64 { return .string("(\(entry.valueCount) values)") }
    let numbers = (0 ..< entry.valueCount).map { index -> JSONValue in
        if type.isInteger, let n = entry.integer(at: index) { return .int(Int(n)) }
        return entry.double(at: index).map { .double($0) } ?? .null
    }
    return numbers.count == 1 ? numbers[0] : .array(numbers)
}

private func warningList(_ warnings: [EXIFError]) -> JSONValue {
    .array(warnings.map { .string("\($0)") })
}

private func hexTag(_ tag: UInt16) -> String {
    let digits = String(tag, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
}
