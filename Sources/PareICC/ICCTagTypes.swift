/// Readers for the tag types Pare uses (ICC.1 clause 10). Each gets the tag's entry and
/// the whole profile (already checked to hold the entry's bytes) and throws a typed error
/// naming the tag and the byte when the data is short, over a limit or unusable.
struct ICCTagData {
    let bytes: [UInt8]
    let entry: ICCTagEntry
    let options: ICCOptions

    /// Every type begins with its signature and four reserved bytes (10.1).
    static let headerSize = 8

    var name: String { "\(entry.signature)" }

    func require(_ needed: Int) throws(ICCError) {
        guard entry.size >= needed else {
            throw .tagTooShort(tag: name, offset: entry.offset, needed: needed, size: entry.size)
        }
    }

    func requireType(_ allowed: [ICCSignature]) throws(ICCError) -> ICCSignature {
        try require(Self.headerSize)
        let type = ICCSignature(rawValue: readUInt32(bytes, entry.offset))
        guard allowed.contains(type) else { throw .wrongTagType(tag: name, type: "\(type)", offset: entry.offset) }
        return type
    }

    /// An s15Fixed16Number at `at` bytes into the tag, within `maxFixedMagnitude`.
    func fixed(_ at: Int) throws(ICCError) -> Double {
        let raw = readFixedRaw(bytes, entry.offset + at)
        let value = Double(raw) / 65536
        guard value.magnitude <= options.maxFixedMagnitude else {
            throw .absurdValue(tag: name, offset: entry.offset + at, raw: raw)
        }
        return value
    }

    /// `XYZType` (10.31): the first XYZNumber.
    func xyz() throws(ICCError) -> ICCXYZ {
        _ = try requireType([.xyzType])
        try require(Self.headerSize + 12)
        return ICCXYZ(try fixed(8), try fixed(12), try fixed(16))
    }

    /// `s15Fixed16ArrayType` (10.22) of exactly `count` numbers: the `chad` matrix, row by row.
    func fixedArray(_ count: Int) throws(ICCError) -> [Double] {
        _ = try requireType([.s15Fixed16ArrayType])
        try require(Self.headerSize + 4 * count)
        var values: [Double] = []
        for i in 0 ..< count { values.append(try fixed(Self.headerSize + 4 * i)) }
        return values
    }

    /// `curveType` (10.6) or `parametricCurveType` (10.18).
    func toneCurve() throws(ICCError) -> ICCToneCurve {
        let type = try requireType([.curveType, .parametricCurveType])
        if type == .curveType {
            try require(12)
            let count = Int(readUInt32(bytes, entry.offset + 8))
            guard count <= options.maxCurvePoints else {
                throw .countTooLarge(tag: name, offset: entry.offset + 8, count: count, limit: options.maxCurvePoints)
            }
            try require(12 + 2 * count)
            switch count {
            case 0: return .identity
            case 1:
                // u8Fixed8Number (4.8).
                return .gamma(Double(readUInt16(bytes, entry.offset + 12)) / 256)
            default:
                return .table((0 ..< count).map { UInt16(readUInt16(bytes, entry.offset + 12 + 2 * $0)) })
            }
        }
        try require(12)
        let function = readUInt16(bytes, entry.offset + 8)
        guard function < ICCToneCurve.parameterCounts.count else {
            throw .unknownFunctionType(tag: name, offset: entry.offset + 8, type: function)
        }
        let count = ICCToneCurve.parameterCounts[function]
        try require(12 + 4 * count)
        var parameters: [Double] = []
        for i in 0 ..< count { parameters.append(try fixed(12 + 4 * i)) }
        // A gamma ≤ 0 has no curve in 0…1 worth the name, and types 1 and 2 divide by a.
        if parameters[0] <= 0 {
            throw .absurdValue(tag: name, offset: entry.offset + 12, raw: readFixedRaw(bytes, entry.offset + 12))
        }
        if (function == 1 || function == 2) && parameters[1] == 0 {
            throw .absurdValue(tag: name, offset: entry.offset + 16, raw: 0)
        }
        return .parametric(function: function, parameters: parameters)
    }

    /// The description: `textDescriptionType` (ICC.1:2001 6.5.17, v2) gives its ASCII part,
    /// `multiLocalizedUnicodeType` (10.15, v4) its en-US record (else the first English one,
    /// else the first), `textType` (10.24) its text.
    func text() throws(ICCError) -> String {
        let type = try requireType([.textDescriptionType, .multiLocalizedUnicodeType, .textType])
        if type == .textType {
            return ascii(from: entry.offset + 8, count: min(entry.size - 8, options.maxTextBytes))
        }
        try require(12)
        let count = Int(readUInt32(bytes, entry.offset + 8))
        if type == .textDescriptionType {
            guard count <= options.maxTextBytes else {
                throw .countTooLarge(tag: name, offset: entry.offset + 8, count: count, limit: options.maxTextBytes)
            }
            try require(12 + count)
            return ascii(from: entry.offset + 12, count: count)
        }
        guard count <= options.maxTextRecords else {
            throw .countTooLarge(tag: name, offset: entry.offset + 8, count: count, limit: options.maxTextRecords)
        }
        try require(16)
        let recordSize = Int(readUInt32(bytes, entry.offset + 12))
        guard recordSize >= 12, recordSize <= 64 else {
            throw .countTooLarge(tag: name, offset: entry.offset + 12, count: recordSize, limit: 64)
        }
        try require(16 + count * recordSize)
        guard count > 0 else { return "" }
        let english = 0x656E // "en"
        var chosen = 0
        for i in 0 ..< count {
            let record = entry.offset + 16 + i * recordSize
            let language = readUInt16(bytes, record), country = readUInt16(bytes, record + 2)
            if language == english && country == 0x5553 { // "US"
                chosen = i
                break
            }
            if language == english && readUInt16(bytes, entry.offset + 16 + chosen * recordSize) != english {
                chosen = i
            }
        }
        let record = entry.offset + 16 + chosen * recordSize
        let length = Int(readUInt32(bytes, record + 4)), offset = Int(readUInt32(bytes, record + 8))
        guard length <= options.maxTextBytes else {
            throw .countTooLarge(tag: name, offset: record + 4, count: length, limit: options.maxTextBytes)
        }
        guard offset <= entry.size, length <= entry.size - offset else {
            throw .tagTooShort(tag: name, offset: entry.offset, needed: offset + length, size: entry.size)
        }
        var units: [UInt16] = []
        units.reserveCapacity(length / 2)
        for i in 0 ..< length / 2 { units.append(UInt16(readUInt16(bytes, entry.offset + offset + 2 * i))) }
        while units.last == 0 { units.removeLast() }
        return String(decoding: units, as: UTF16.self)
    }

    /// 7-bit ASCII up to the first null (4.2); other bytes become "?".
    private func ascii(from start: Int, count: Int) -> String {
        var text = ""
        for i in 0 ..< max(0, count) {
            let byte = bytes[start + i]
            if byte == 0 { break }
            text.unicodeScalars.append(Unicode.Scalar(byte < 0x80 ? byte : 0x3F))
        }
        return text
    }
}
