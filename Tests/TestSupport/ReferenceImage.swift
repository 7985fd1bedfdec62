import CZlib
#if canImport(Glibc)
import Glibc
#endif

/// A reference picture read for comparison: 8-bit samples, interleaved.
public struct ReferenceImage: Equatable {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var samples: [UInt8]

    public init(width: Int, height: Int, channels: Int, samples: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.samples = samples
    }

    /// Reads the corpus's reference PNGs: non-interlaced, 8-bit gray or RGB, as Pillow
    /// writes them. This is a deliberately small, independent reader so that JPEG tests do
    /// not depend on the decoder under test in ParePNG.
    public static func readPNG(_ bytes: [UInt8]) -> ReferenceImage? {
        guard bytes.count > 8, bytes[0 ..< 8].elementsEqual([137, 80, 78, 71, 13, 10, 26, 10]) else { return nil }
        var offset = 8
        var width = 0, height = 0, channels = 0
        var compressed: [UInt8] = []
        func be32(_ i: Int) -> Int { Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]) }
        while offset + 8 <= bytes.count {
            let length = be32(offset)
            let type = String(decoding: bytes[offset + 4 ..< offset + 8], as: UTF8.self)
            let data = offset + 8
            guard data + length + 4 <= bytes.count else { return nil }
            switch type {
            case "IHDR":
                width = be32(data)
                height = be32(data + 4)
                guard bytes[data + 8] == 8, bytes[data + 12] == 0 else { return nil }
                switch bytes[data + 9] {
                case 0: channels = 1
                case 2: channels = 3
                default: return nil
                }
            case "IDAT":
                compressed.append(contentsOf: bytes[data ..< data + length])
            default:
                break
            }
            offset = data + length + 4
        }
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        var rawLength = uLongf(raw.count)
        let status = uncompress(&raw, &rawLength, compressed, uLong(compressed.count))
        guard status == Z_OK, Int(rawLength) == raw.count else { return nil }
        var samples = [UInt8](repeating: 0, count: height * stride)
        for y in 0 ..< height {
            let filter = raw[y * (stride + 1)]
            for x in 0 ..< stride {
                let value = Int(raw[y * (stride + 1) + 1 + x])
                let a = x >= channels ? Int(samples[y * stride + x - channels]) : 0
                let b = y > 0 ? Int(samples[(y - 1) * stride + x]) : 0
                let c = (x >= channels && y > 0) ? Int(samples[(y - 1) * stride + x - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
                default: return nil
                }
                samples[y * stride + x] = UInt8(truncatingIfNeeded: value + predictor)
            }
        }
        return ReferenceImage(width: width, height: height, channels: channels, samples: samples)
    }

    /// Reads binary PNM (P5 gray or P6 RGB, maxval 255), as `djpeg -pnm` writes.
    public static func readPNM(_ bytes: [UInt8]) -> ReferenceImage? {
        var index = 0
        func token() -> Int? {
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "#") {
                    while index < bytes.count && bytes[index] != 10 { index += 1 }
                } else if bytes[index] == 32 || (bytes[index] >= 9 && bytes[index] <= 13) {
                    index += 1
                } else { break }
            }
            var value = 0, digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57, digits < 9 {
                value = value * 10 + Int(bytes[index] - 48)
                index += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "P") else { return nil }
        let channels: Int
        switch bytes[1] {
        case UInt8(ascii: "5"): channels = 1
        case UInt8(ascii: "6"): channels = 3
        default: return nil
        }
        index = 2
        guard let width = token(), let height = token(), let maxval = token(), maxval == 255 else { return nil }
        index += 1
        let count = width * height * channels
        guard bytes.count - index >= count else { return nil }
        return ReferenceImage(width: width, height: height, channels: channels,
                              samples: Array(bytes[index ..< index + count]))
    }
}

/// How close two same-sized images are.
public struct Comparison: CustomStringConvertible {
    public var psnr: Double
    public var maxDifference: Int
    /// Fraction of samples differing by at most 1.
    public var withinOne: Double
    public var identical: Bool

    public var description: String {
        "PSNR \(psnr.isInfinite ? "inf" : String(Int(psnr * 100) / 100)) dB, max diff \(maxDifference), within 1: \(withinOne)"
    }

    /// Compares two sample arrays of the same length.
    public static func between(_ a: [UInt8], _ b: [UInt8]) -> Comparison {
        precondition(a.count == b.count, "compared images differ in size")
        var squared = 0.0
        var maxDiff = 0
        var close = 0
        for i in 0 ..< a.count {
            let d = abs(Int(a[i]) - Int(b[i]))
            squared += Double(d * d)
            if d > maxDiff { maxDiff = d }
            if d <= 1 { close += 1 }
        }
        let mse = a.isEmpty ? 0 : squared / Double(a.count)
        let psnr = mse == 0 ? Double.infinity : 10 * log10(255 * 255 / mse)
        return Comparison(psnr: psnr, maxDifference: maxDiff,
                          withinOne: a.isEmpty ? 1 : Double(close) / Double(a.count), identical: maxDiff == 0)
    }
}
