import PareCore
import PareEXIF

/// `pare exif IN --json`: the metadata as one JSON object (see DESIGN.md). The container
/// is sniffed from the first bytes: JPEG (APP1 Exif, APP2 MPF), PNG (eXIf) or TIFF.
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
    let source = MemoryByteSource(bytes)
    var json = ExifJSONObject()
    do throws(EXIFError) {
        if bytes.starts(with: [0xFF, 0xD8]) {
            let jpeg = try EXIFReader.readJPEG(source)
            json.add("format", string: "jpeg")
            describe(jpeg.exif, into: &json)
            json.add("mpf", raw: "[" + jpeg.mpf.map(describe).joined(separator: ",") + "]")
            json.add("warnings", raw: warningList(jpeg.warnings + (jpeg.exif?.warnings ?? [])))
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            json.add("format", string: "png")
            var metadata: EXIFMetadata?
            if let chunk = exifPayloadFromPNG(bytes) {
                metadata = try EXIFReader.readTIFF(chunk.payload, baseOffset: chunk.offset)
            }
            describe(metadata, into: &json)
            json.add("mpf", raw: "[]")
            json.add("warnings", raw: warningList(metadata?.warnings ?? []))
        } else if bytes.starts(with: [0x49, 0x49]) || bytes.starts(with: [0x4D, 0x4D]) {
            let metadata = try EXIFReader.readTIFFFile(source)
            json.add("format", string: "tiff")
            describe(metadata, into: &json)
            json.add("mpf", raw: "[]")
            json.add("warnings", raw: warningList(metadata.warnings))
        } else {
            printError("pare: \(input): at byte 0: not a JPEG, PNG or TIFF file")
            return 1
        }
    } catch {
        return reportInputError(input, error)
    }
    print(json.text)
    return 0
}

/// The common fields; absent metadata reads as orientation 1 and nulls.
private func describe(_ metadata: EXIFMetadata?, into json: inout ExifJSONObject) {
    json.add("byteOrder", string: metadata.map { $0.byteOrder == .littleEndian ? "II" : "MM" })
    json.add("orientation", number: metadata?.orientation.rawValue ?? 1)
    json.add("rawOrientation", number: metadata?.rawOrientation)
    json.add("make", string: metadata?.make)
    json.add("model", string: metadata?.model)
    json.add("software", string: metadata?.software)
    json.add("dateTime", string: metadata?.dateTime)
    json.add("dateTimeOriginal", string: metadata?.dateTimeOriginal)
    json.add("pixelWidth", number: metadata?.pixelWidth)
    json.add("pixelHeight", number: metadata?.pixelHeight)
    if let gps = metadata?.gps {
        var object = ExifJSONObject()
        object.add("latitude", double: gps.latitude)
        object.add("longitude", double: gps.longitude)
        object.add("altitude", double: gps.altitude)
        json.add("gps", raw: object.text)
    } else {
        json.add("gps", raw: "null")
    }
    if let thumbnail = metadata?.thumbnail {
        var object = ExifJSONObject()
        object.add("offset", number: thumbnail.offset)
        object.add("length", number: thumbnail.length)
        object.add("width", number: thumbnail.width)
        object.add("height", number: thumbnail.height)
        object.add("encoding", string: thumbnail.encoding == .jpeg ? "jpeg" : "uncompressed")
        json.add("thumbnail", raw: object.text)
    } else {
        json.add("thumbnail", raw: "null")
    }
    var ifds = ExifJSONObject()
    for ifd in metadata?.ifds ?? [] {
        var tags = ExifJSONObject()
        for entry in ifd.entries {
            tags.add(entry.name ?? hexTag(entry.tag), raw: value(entry))
        }
        ifds.add(ifd.name, raw: tags.text)
    }
    json.add("ifds", raw: ifds.text)
}

private func describe(_ entry: MPFEntry) -> String {
    var object = ExifJSONObject()
    object.add("type", string: entry.kind.name)
    object.add("typeCode", number: Int(entry.typeCode))
    object.add("offset", number: entry.offset)
    object.add("length", number: entry.length)
    object.add("width", number: entry.width)
    object.add("height", number: entry.height)
    return object.text
}

/// An entry's value: ASCII as a string, one number as a number, several as a list, and
/// long opaque values only by size.
private func value(_ entry: IFDEntry) -> String {
    guard let bytes = entry.value, let type = entry.fieldType else { return "null" }
    if type == .ascii { return exifJSONString(entry.string ?? "") }
    if type == .undefined || (type == .byte && bytes.count > 16) {
        return bytes.count <= 16 ? "[" + bytes.map { "\($0)" }.joined(separator: ",") + "]"
                                 : exifJSONString("(\(bytes.count) bytes)")
    }
    let shown = min(entry.valueCount, 64)
    let numbers = (0 ..< shown).map { index -> String in
        if type.isInteger, let n = entry.integer(at: index) { return "\(n)" }
        if let d = entry.double(at: index), d.isFinite { return "\(d)" }
        return "null"
    }
    if entry.valueCount > shown { return exifJSONString("(\(entry.valueCount) values)") }
    return numbers.count == 1 ? numbers[0] : "[" + numbers.joined(separator: ",") + "]"
}

private func warningList(_ warnings: [EXIFError]) -> String {
    "[" + warnings.map { exifJSONString("\($0)") }.joined(separator: ",") + "]"
}

private func hexTag(_ tag: UInt16) -> String {
    let digits = String(tag, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
}

/// A JSON string literal (RFC 8259 §7): quotes, backslashes and control characters escaped.
private func exifJSONString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            let digits = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// Builds one JSON object key by key, in insertion order.
private struct ExifJSONObject {
    private var members: [String] = []

    mutating func add(_ key: String, raw: String) {
        members.append(exifJSONString(key) + ":" + raw)
    }

    mutating func add(_ key: String, string: String?) {
        add(key, raw: string.map(exifJSONString) ?? "null")
    }

    mutating func add(_ key: String, number: Int?) {
        add(key, raw: number.map { "\($0)" } ?? "null")
    }

    mutating func add(_ key: String, double: Double?) {
        add(key, raw: double.flatMap { $0.isFinite ? "\($0)" : nil } ?? "null")
    }

    var text: String { "{" + members.joined(separator: ",") + "}" }
}
