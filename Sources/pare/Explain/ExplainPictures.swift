import PareCore
import PareJPEG
import ParePNG

/// The pictures of an explain page: decoded images shrunk to the page's size by the
/// thumbnail pipeline's `Resampler`, encoded by `PNGEncoder` and written as data URIs
/// (RFC 2397, base64 of RFC 4648 §4).
enum ExplainPictures {
    /// The widest picture the page shows; larger ones are shrunk to it.
    static let pageWidth = 420

    /// An encoded picture shown at `display` × its height, enlarged without smoothing when
    /// it is smaller than `minimumWidth` (blocks and pixels stay visible).
    static func picture(_ image: Image, minimumWidth: Int = 160, maximumWidth: Int = pageWidth) -> ExplainPicture? {
        guard image.width > 0, image.height > 0 else { return nil }
        let encoder = PNGEncoder(ledger: MemoryLedger())
        guard let png = try? encoder.encode(image) else { return nil }
        var width = min(image.width, maximumWidth)
        var pixelated = false
        if image.width < minimumWidth {
            let factor = max(1, minimumWidth / image.width)
            width = min(image.width * factor, maximumWidth)
            pixelated = true
        }
        let height = max(1, (image.height * width + image.width / 2) / image.width)
        return ExplainPicture(dataURI: "data:image/png;base64," + base64(png), displayWidth: width,
                              displayHeight: height, pixelated: pixelated, pngBytes: png.count)
    }

    /// An encoded picture shown exactly `displayWidth` wide: shrunk first when larger,
    /// enlarged without smoothing when smaller, so that pictures of different sizes can be
    /// compared side by side at one scale.
    static func picture(_ image: Image, displayWidth: Int) -> ExplainPicture? {
        guard var picture = picture(shrink(image, maximumWidth: displayWidth), minimumWidth: 1,
                                    maximumWidth: displayWidth) else { return nil }
        if picture.displayWidth < displayWidth {
            picture.pixelated = true
            picture.displayHeight = max(1, (picture.displayHeight * displayWidth + picture.displayWidth / 2) / picture.displayWidth)
            picture.displayWidth = displayWidth
        }
        return picture
    }

    /// A one-channel plane as a gray picture.
    static func gray(width: Int, height: Int, samples: [UInt8], maximumWidth: Int = pageWidth) -> Image? {
        guard width > 0, height > 0, samples.count >= width * height,
              var image = try? Image(width: width, height: height, format: .gray8) else { return nil }
        for y in 0 ..< height {
            image.withMutableRow(y) { row in for x in 0 ..< width { row[x] = samples[y * width + x] } }
        }
        return shrink(image, maximumWidth: maximumWidth)
    }

    /// The image at most `maximumWidth` wide (and as tall as that keeps the aspect), by the
    /// triangle filter; unchanged when already that small.
    static func shrink(_ image: Image, maximumWidth: Int = pageWidth) -> Image {
        guard image.width > maximumWidth else { return image }
        let (width, height) = fitted(image.width, image.height, maximumWidth)
        return (try? image.resampled(width: width, height: height, filter: .triangle, ledger: MemoryLedger())) ?? image
    }

    static func fitted(_ width: Int, _ height: Int, _ maximumWidth: Int) -> (Int, Int) {
        guard width > maximumWidth else { return (width, height) }
        return (maximumWidth, max(1, (height * maximumWidth + width / 2) / width))
    }

    /// Decodes a JPEG at `scale` straight into a picture at most `maximumWidth` wide: the
    /// decoder's rows go through the resampler, so the full-size image is never held.
    static func decodeJPEG(_ bytes: [UInt8], scale: JPEGScale, maximumWidth: Int = pageWidth,
                           options: JPEGOptions = JPEGOptions()) -> (image: Image?, error: String?, bytesRead: Int) {
        let ledger = MemoryLedger()
        do throws(JPEGError) {
            var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: ledger, options: options)
            let size = decoder.outputSize(at: scale)
            let (width, height) = fitted(size.width, size.height, maximumWidth)
            var resampler = Resampler(outputWidth: width, outputHeight: height, filter: .triangle, ledger: ledger,
                                      downstream: ImageBuilder(ledger: ledger))
            try decoder.decode(scale: scale, into: &resampler)
            do { try resampler.finish() } catch { throw .core(error) }
            return (resampler.downstream.image, nil, decoder.bytesRead)
        } catch {
            return (nil, "\(error)", 0)
        }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// RFC 4648 §4 base64 with padding.
    static func base64(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let n = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            out += [alphabet[n >> 18], alphabet[(n >> 12) & 63], alphabet[(n >> 6) & 63], alphabet[n & 63]]
            i += 3
        }
        let left = bytes.count - i
        if left == 1 {
            let n = Int(bytes[i]) << 16
            out += [alphabet[n >> 18], alphabet[(n >> 12) & 63], UInt8(ascii: "="), UInt8(ascii: "=")]
        } else if left == 2 {
            let n = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8
            out += [alphabet[n >> 18], alphabet[(n >> 12) & 63], alphabet[(n >> 6) & 63], UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
