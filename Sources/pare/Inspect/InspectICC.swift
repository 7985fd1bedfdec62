import Pare
import PareICC

/// The embedded ICC profile for `pare inspect`: the header fields (ICC.1 7.2) and the tag
/// table (7.3) with each tag's type, plus what Pare read from the tags. Found the way
/// thumbnails find it (JPEG APP2 chunks, PNG iCCP, TIFF tag 34675).
enum InspectICC {
    static func report(_ bytes: [UInt8]) -> JSONValue {
        guard let source = try? ImageSource(bytes: bytes), let properties = try? source.properties() else { return .null }
        let colour = properties.colour
        guard let profile = colour.profile else {
            if colour.warnings.isEmpty { return .null }
            var object = JSONObjectBuilder()
            object.add("error", .array(colour.warnings.map { .string("\($0)") }))
            return object.value
        }
        let header = profile.header
        var object = JSONObjectBuilder()
        object.add("bytes", profile.bytes.count)
        object.add("size", header.size)
        object.add("preferredCMM", "\(header.preferredCMM)")
        object.add("version", header.version)
        object.add("profileClass", "\(header.profileClass)")
        object.add("colorSpace", "\(header.colourSpace)")
        object.add("connectionSpace", "\(header.connectionSpace)")
        let d = header.dateTime
        object.add("dateTime", "\(d[0])-\(two(d[1]))-\(two(d[2])) \(two(d[3])):\(two(d[4])):\(two(d[5]))")
        object.add("platform", "\(header.platform)")
        object.add("flags", Int(header.flags))
        object.add("manufacturer", "\(header.manufacturer)")
        object.add("model", "\(header.model)")
        object.add("renderingIntent", header.renderingIntent)
        object.add("illuminant", xyz(header.illuminant))
        object.add("creator", "\(header.creator)")
        object.add("description", profile.description)
        object.add("whitePoint", profile.whitePoint.map(xyz) ?? .null)
        object.add("colourModel", profile.isMatrixTRC ? "matrix/TRC" : profile.isGrayTRC ? "gray TRC"
            : profile.aToB0Type != nil ? "LUT (A2B0)" : "other")
        object.add("tags", objects: profile.tags) { entry, tag in
            entry.add("signature", "\(tag.signature)")
            entry.add("type", tag.type.map { "\($0)" })
            entry.add("offset", tag.offset)
            entry.add("size", tag.size)
        }
        if !colour.warnings.isEmpty { object.add("warnings", .array(colour.warnings.map { .string("\($0)") })) }
        return object.value
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func xyz(_ value: ICCXYZ) -> JSONValue {
        .array([.double(value.x), .double(value.y), .double(value.z)])
    }
}
