@_spi(Codec) import PareCore

/// The frame header (T.81 B.2.2, Figure B.3) the decoder works from: the SOFn segment as
/// written (`init(parsing:marker:)` below: size, precision and the components with their
/// sampling factors and quantisation table selectors), checked for decoding by
/// `init(_:marker:options:)`.
extension JPEGFrameRecord {
    /// Hmax and Vmax (T.81 A.1.1).
    /// (Sampling factors are at least 1, so 1 is where the largest starts.)
    var maxHorizontal: Int { components.reduce(1) { max($0, $1.horizontal) } }
    var maxVertical: Int { components.reduce(1) { max($0, $1.vertical) } }

    /// Checks a frame header, as `JPEGFrameRecord(parsing:marker:)` read it, for decoding.
    /// Only 8-bit sequential and progressive Huffman frames pass: other processes throw
    /// `unsupported` naming themselves, other precisions and DNL-defined heights throw
    /// `unsupportedFeature`, and sizes over the options' limits throw `limitExceeded`.
    init(_ bytes: [UInt8], marker: FoundMarker, options: JPEGOptions) throws(JPEGError) {
        let offset = marker.offset
        guard let process = JPEGProcess(marker: marker.code) else {
            throw .unexpectedMarker(marker: marker.code, offset: offset)
        }
        guard process.isSupported else { throw .unsupported(process: process, offset: offset) }
        if bytes.count >= 6, bytes[0] != 8 {
            throw .unsupportedFeature(feature: "\(bytes[0])-bit samples", offset: offset)
        }
        let record = try JPEGFrameRecord(parsing: bytes, marker: marker)
        let width = record.width, height = record.height, count = record.components.count
        guard height > 0 else {
            throw .unsupportedFeature(feature: "height defined by DNL (T.81 B.2.5)", offset: offset)
        }
        guard width > 0 else { throw .invalidSegment(marker: marker.code, offset: offset, reason: "width is 0") }
        if let crossed = ImageSizeLimits.crossed(width: width, height: height, maxWidth: options.maxDimension,
                                                 maxHeight: options.maxDimension, maxPixels: options.maxPixels) {
            throw .limitExceeded(what: crossed.what, value: crossed.value, limit: crossed.limit, offset: offset)
        }
        guard count == 1 || count == 3 || count == 4 else {
            throw .unsupportedFeature(feature: "\(count) components", offset: offset)
        }
        self = record
    }

    /// An SOFn segment as written (T.81 B.2.2, Figure B.3), whatever the process: only the
    /// layout is checked (the length matches Nf, sampling factors 1…4, Tq 0…3; T.87 allows
    /// Tq 0 only but it is unused there). `init(_:marker:options:)` checks what decoding
    /// needs on top.
    init(parsing bytes: [UInt8], marker: FoundMarker) throws(JPEGError) {
        func invalid(_ reason: MessageText) -> JPEGError {
            .invalidSegment(marker: marker.code, offset: marker.offset, reason: reason)
        }
        guard let process = JPEGProcess(marker: marker.code) else {
            throw .unexpectedMarker(marker: marker.code, offset: marker.offset)
        }
        guard bytes.count >= 6 else { throw invalid("too short") }
        let count = Int(bytes[5])
        guard count >= 1 else { throw invalid("no components") }
        guard bytes.count == 6 + 3 * count else { throw invalid("length does not match \(count) components") }
        let components = try JPEGComponentInfo.frameComponents(bytes, count: count, invalid: invalid)
        self.init(process: process, precision: Int(bytes[0]), height: Int(bytes[1]) << 8 | Int(bytes[2]),
                  width: Int(bytes[3]) << 8 | Int(bytes[4]), components: components)
    }
}

extension JPEGComponentInfo {
    /// The component specifications of an SOFn segment (T.81 B.2.2: Ci, Hi, Vi, Tqi), whose
    /// length the caller has matched to `count`: sampling factors 1…4, tables 0…3.
    static func frameComponents(_ bytes: [UInt8], count: Int,
                                invalid: (MessageText) -> JPEGError) throws(JPEGError) -> [JPEGComponentInfo] {
        var components: [JPEGComponentInfo] = []
        for i in 0 ..< count {
            let base = 6 + 3 * i
            let h = Int(bytes[base + 1] >> 4), v = Int(bytes[base + 1] & 15), tq = Int(bytes[base + 2])
            guard (1 ... 4).contains(h), (1 ... 4).contains(v) else {
                throw invalid("component \(bytes[base]) has sampling factors \(h)x\(v)")
            }
            guard tq <= 3 else { throw invalid("component \(bytes[base]) uses quantisation table \(tq)") }
            components.append(JPEGComponentInfo(id: Int(bytes[base]), horizontal: h, vertical: v, quantizationTable: tq))
        }
        return components
    }
}
