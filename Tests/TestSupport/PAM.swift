import PareCore

/// A PAM file (P7) as the corpus references store them.
public struct PAM {
    public var width: Int
    public var height: Int
    public var depth: Int
    public var maxval: Int
    public var samples: [UInt8]

    public init?(_ bytes: [UInt8]) {
        guard bytes.starts(with: Array("P7\n".utf8)),
              let end = Self.find(Array("ENDHDR\n".utf8), in: bytes) else { return nil }
        let text = String(decoding: bytes[3 ..< end], as: UTF8.self)
        var fields: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        guard let w = fields["WIDTH"], let h = fields["HEIGHT"], let d = fields["DEPTH"],
              let m = fields["MAXVAL"] else { return nil }
        width = w; height = h; depth = d; maxval = m
        samples = Array(bytes[(end + 7)...])
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0 ... haystack.count - needle.count where haystack[i ..< i + needle.count].elementsEqual(needle) {
            return i
        }
        return nil
    }
}

/// Expands a decoded image to RGBA at its own sample size, as the references are stored.
public func expandToRGBA(_ image: Image) -> [UInt8] {
    let bytes = image.pixels
    let s = image.format.bytesPerSample
    let channels = image.format.channels
    var out = [UInt8]()
    out.reserveCapacity(image.width * image.height * 4 * s)
    for p in 0 ..< image.width * image.height {
        let base = p * channels * s
        func sample(_ c: Int) -> ArraySlice<UInt8> { bytes[base + c * s ..< base + (c + 1) * s] }
        let opaque = [UInt8](repeating: 255, count: s)
        switch channels {
        case 1: out += sample(0); out += sample(0); out += sample(0); out += opaque
        case 2: out += sample(0); out += sample(0); out += sample(0); out += sample(1)
        case 3: out += sample(0); out += sample(1); out += sample(2); out += opaque
        default: out += sample(0); out += sample(1); out += sample(2); out += sample(3)
        }
    }
    return out
}

