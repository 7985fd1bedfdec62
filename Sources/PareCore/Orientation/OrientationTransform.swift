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
                    Self.copyPixels(size.width, from: UnsafeRawPointer(source + origin + v * stepV), step: stepU,
                                    to: UnsafeMutableRawPointer(row.baseAddress!), pixelBytes: pixelBytes)
                }
            }
        }
        return result.image
    }

    /// Copies `count` pixels of `pixelBytes` bytes, `step` bytes apart in the source, to
    /// consecutive pixels: each in one load and store of its size (two for 3 and 6 bytes),
    /// not a call to copy a few bytes.
    @inline(__always)
    static func copyPixels(_ count: Int, from source: UnsafeRawPointer, step: Int, to target: UnsafeMutableRawPointer,
                           pixelBytes: Int) {
        // SAFETY: the caller's `count` pixels lie at `source + k·step` and at
        // `target + k·pixelBytes`, k < count, each `pixelBytes` long.
        @inline(__always) func copy<A: FixedWidthInteger>(_: A.Type) {
            var from = source, to = target
            for _ in 0 ..< count {
                to.storeBytes(of: from.loadUnaligned(as: A.self), as: A.self)
                from += step
                to += pixelBytes
            }
        }
        @inline(__always) func copy<A: FixedWidthInteger, B: FixedWidthInteger>(_: A.Type, then _: B.Type) {
            let second = MemoryLayout<A>.size
            var from = source, to = target
            for _ in 0 ..< count {
                to.storeBytes(of: from.loadUnaligned(as: A.self), as: A.self)
                to.storeBytes(of: from.loadUnaligned(fromByteOffset: second, as: B.self), toByteOffset: second, as: B.self)
                from += step
                to += pixelBytes
            }
        }
        switch pixelBytes {
        case 1: copy(UInt8.self)
        case 2: copy(UInt16.self)
        case 3: copy(UInt16.self, then: UInt8.self)
        case 4: copy(UInt32.self)
        case 6: copy(UInt32.self, then: UInt16.self)
        case 8: copy(UInt64.self)
        default:
            var from = source, to = target
            for _ in 0 ..< count {
                to.copyMemory(from: from, byteCount: pixelBytes)
                from += step
                to += pixelBytes
            }
        }
    }
}
