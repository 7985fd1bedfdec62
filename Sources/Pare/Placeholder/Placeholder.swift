import PareCore

/// Which placeholder to make: the short hash a feed or a photo grid sends ahead of a
/// thumbnail and draws blurred until the thumbnail arrives.
public enum PlaceholderKind: Sendable, Equatable {
    /// ThumbHash: about 25 bytes, the aspect ratio and alpha included (`ThumbHash`).
    case thumbHash
    /// BlurHash with `x`×`y` components (1…9 each; 4×3 by default) (`BlurHash`).
    case blurHash(x: Int = 4, y: Int = 3)
}

/// A placeholder and the picture it was computed from.
public struct Placeholder: Sendable, Equatable {
    public var kind: PlaceholderKind
    /// ThumbHash's bytes in base64 (RFC 4648 §4, padded), or the BlurHash string.
    public var text: String
    /// The picture's size the hash was computed on (at most 100 pixels on its long side).
    public var width: Int
    public var height: Int
}

extension ImageSource {
    /// The placeholder of this picture, computed from its cheapest source at about 100 pixels
    /// (the EXIF thumbnail, or a DC-only decode of the main image: `thumbnail` with
    /// `maxPixelSize` 100), upright, in sRGB, of the whole picture. `options` give the limits
    /// and the orientation switch; their size, box and colour handling are the placeholder's
    /// own.
    public func placeholder(_ kind: PlaceholderKind, options: ThumbnailOptions = ThumbnailOptions(maxPixelSize: 100),
                            ledger: MemoryLedger? = nil) throws(PareError) -> Placeholder {
        var options = options
        options.maxPixelSize = ThumbHash.maxSide
        options.box = nil
        options.fit = .inside
        options.colour = .sRGB
        options.gainMap = .drop
        let thumbnail = try self.thumbnail(options: options, ledger: ledger ?? MemoryLedger(limit: options.memoryLimit))
        return try Placeholder(kind, of: thumbnail.image)
    }
}

extension Thumbnail {
    /// The placeholder of this thumbnail's own pixels, as its cell shows them (a cover crop
    /// gives the crop's), without decoding anything: the pixels are resampled (Lanczos3)
    /// to at most 100 on the long side first where they are larger. What
    /// `ThumbnailPipeline` leaves behind when it lets a visible thumbnail go.
    public func placeholder(_ kind: PlaceholderKind) throws(PareError) -> Placeholder {
        var pixels = image
        let side = ThumbHash.maxSide
        if pixels.width > side || pixels.height > side {
            let wide = pixels.width >= pixels.height
            let width = wide ? side : max(1, (pixels.width * side + pixels.height / 2) / pixels.height)
            let height = wide ? max(1, (pixels.height * side + pixels.width / 2) / pixels.width) : side
            do {
                pixels = try pixels.resampled(width: width, height: height, filter: .lanczos3, ledger: MemoryLedger())
            } catch {
                throw PareError(error)
            }
        }
        return try Placeholder(kind, of: pixels)
    }
}

extension Placeholder {
    /// The placeholder of `image` (8-bit gray, gray+alpha, RGB or RGBA; at most 100×100 for
    /// ThumbHash).
    public init(_ kind: PlaceholderKind, of image: Image) throws(PareError) {
        let rgba = Self.rgba(image)
        let text: String?
        switch kind {
        case .thumbHash:
            text = ThumbHash.encode(width: image.width, height: image.height, rgba: rgba).map(Base64.encode)
        case let .blurHash(x, y):
            var rgb: [UInt8] = []
            rgb.reserveCapacity(image.width * image.height * 3)
            for i in stride(from: 0, to: rgba.count, by: 4) { rgb += rgba[i ..< i + 3] }
            text = BlurHash.encode(width: image.width, height: image.height, rgb: rgb, x: x, y: y)
        }
        guard let text else {
            throw .invalidArgument("no \(kind) placeholder of a \(image.width)×\(image.height) \(image.format) picture")
        }
        self.init(kind: kind, text: text, width: image.width, height: image.height)
    }

    /// The picture's pixels as RGBA8 (the high byte of 16-bit samples).
    static func rgba(_ image: Image) -> [UInt8] {
        let format = image.format, channels = format.channels, step = format.bytesPerSample
        var out = [UInt8](repeating: 255, count: image.width * image.height * 4)
        for y in 0 ..< image.height {
            image.withRow(y) { row in
                for x in 0 ..< image.width {
                    let at = (y * image.width + x) * 4
                    func sample(_ c: Int) -> UInt8 { row[(x * channels + c) * step] }
                    switch channels {
                    case 1, 2:
                        out[at] = sample(0); out[at + 1] = sample(0); out[at + 2] = sample(0)
                        if channels == 2 { out[at + 3] = sample(1) }
                    default:
                        out[at] = sample(0); out[at + 1] = sample(1); out[at + 2] = sample(2)
                        if channels == 4 { out[at + 3] = sample(3) }
                    }
                }
            }
        }
        return out
    }
}

/// RFC 4648 base64, the standard alphabet with padding: how ThumbHash bytes travel in JSON.
public enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = Int(bytes[i]), b1 = i + 1 < bytes.count ? Int(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? Int(bytes[i + 2]) : 0
            let n = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[n >> 18 & 63])
            out.append(alphabet[n >> 12 & 63])
            out.append(i + 1 < bytes.count ? alphabet[n >> 6 & 63] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[n & 63] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a base64 text (padding optional); nil for a character outside the alphabet.
    public static func decode(_ text: String) -> [UInt8]? {
        var bits = 0, count = 0
        var out: [UInt8] = []
        for c in text.utf8 where c != UInt8(ascii: "=") {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            bits = bits << 6 | v
            count += 6
            if count >= 8 {
                count -= 8
                out.append(UInt8(bits >> count & 255))
            }
        }
        return out
    }
}
