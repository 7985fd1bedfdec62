/// The orientation stage, applied last on the small output (the Architecture article,
/// Sources/Pare/Pare.docc/Architecture.md, "Orientation"): turns a stored picture upright as
/// its EXIF Orientation (TIFF 6.0 tag 0x0112, Exif 2.32 §4.6.4) says.
extension Orientation {
    /// The upright picture. `.up` returns `image` itself; every other orientation makes a new
    /// image, `orientedSize` in size, counted by `ledger` while it is made (see `ImageBuffer`).
    ///
    /// For upright pixel (u, v) of a stored W × H image, the stored pixel read is:
    /// 2 mirror: (W−1−u, v); 3 rotate 180°: (W−1−u, H−1−v); 4 flip: (u, H−1−v);
    /// 5 transpose: (v, u); 6 rotate 90° clockwise: (v, H−1−u);
    /// 7 transverse: (W−1−v, H−1−u); 8 rotate 90° counter-clockwise: (W−1−v, u).
    public func apply(to image: Image, ledger: MemoryLedger) throws(CoreError) -> Image {
        if self == .up { return image }
        let size = orientedSize(width: image.width, height: image.height)
        let result = try ImageBuffer(width: size.width, height: size.height, format: image.format, ledger: ledger)
        let pixelBytes = image.format.bytesPerPixel
        let w = image.width, h = image.height
        // Walking the stored picture: each step of u (along an upright row) and of v (down the
        // upright picture) moves the source pointer by a fixed number of bytes.
        let right = pixelBytes, down = image.rowStride
        let (origin, stepU, stepV): (Int, Int, Int)
        switch self {
        case .up: (origin, stepU, stepV) = (0, right, down)
        case .upMirrored: (origin, stepU, stepV) = ((w - 1) * right, -right, down)
        case .down: (origin, stepU, stepV) = ((w - 1) * right + (h - 1) * down, -right, -down)
        case .downMirrored: (origin, stepU, stepV) = ((h - 1) * down, right, -down)
        case .leftMirrored: (origin, stepU, stepV) = (0, down, right)
        case .right: (origin, stepU, stepV) = ((h - 1) * down, -down, right)
        case .rightMirrored: (origin, stepU, stepV) = ((w - 1) * right + (h - 1) * down, -down, -right)
        case .left: (origin, stepU, stepV) = ((w - 1) * right, down, -right)
        }
        guard w > 0, h > 0 else { return result.image }
        image.withUnsafePixels { pixels in
            let source = pixels.baseAddress!
            for v in 0 ..< size.height {
                result.withMutableRow(v) { row in
                    // SAFETY: the steps above walk the stored picture's w × h pixels only, and
                    // the upright row holds size.width pixels.
                    StridedCopy.copy(size.width, bytes: pixelBytes, from: UnsafeRawPointer(source + origin + v * stepV),
                                     step: stepU, to: UnsafeMutableRawPointer(row.baseAddress!), step: pixelBytes)
                }
            }
        }
        return result.image
    }
}
