import PareCore

/// The `ALPH` chunk (WebP Container Specification, "Alpha"): a header byte (reserved bits,
/// pre-processing, filtering method, compression), then the alpha plane raw or as a lossless
/// stream without its header whose green channel is the alpha, then the filter undone.
/// Pre-processing (level reduction) needs nothing from a decoder: `dwebp` does not dither
/// alpha by default, and neither does this.
enum AlphaChunk {
    /// The alpha plane, `width` × `height`, and how many rows of it were really in the data.
    // SAFETY: `data` holds `count` bytes; the plane holds width × height, and the copies and
    // unfiltering stay within `rows` complete rows of it.
    static func decode(data: UnsafePointer<UInt8>, count: Int, fileOffset: Int, width: Int, height: Int,
                       ledger: MemoryLedger, maxPixels: Int) throws(WebPError) -> (LedgerBuffer<UInt8>, Int) {
        guard count >= 1 else { throw .truncated(what: "ALPH header", offset: fileOffset, needed: 1) }
        let header = data[0]
        let compression = Int(header & 3), filter = Int(header >> 2) & 3
        let preprocessing = Int(header >> 4) & 3, reserved = Int(header >> 6)
        guard compression <= 1, preprocessing <= 1, reserved == 0 else {
            throw .invalidAlpha(offset: fileOffset, reason: "header byte \(header)")
        }
        let plane: LedgerBuffer<UInt8>
        do { plane = try ledger.allocate(UInt8.self, count: width * height, initialValue: 255) } catch {
            throw .core(error)
        }
        var rows = height
        if compression == 0 {
            let available = count - 1
            rows = min(height, available / max(width, 1))
            plane.baseAddress.update(from: data + 1, count: min(available, width * height))
        } else {
            var info = VP8LInfo(width: width, height: height, alphaHint: false)
            let image = try VP8LDecoder.decode(data: data + 1, count: count - 1, fileOffset: fileOffset + 1, width: width,
                                               height: height, hasHeader: false, ledger: ledger, maxPixels: maxPixels,
                                               info: &info)
            rows = image.completeRows
            for i in 0 ..< rows * width {
                plane[i] = UInt8(truncatingIfNeeded: image.pixels[i] >> 8)
            }
        }
        unfilter(plane.baseAddress, width: width, rows: rows, method: filter)
        return (plane, rows)
    }

    @inline(__always)
    static func gradient(_ left: UInt8, _ top: UInt8, _ topLeft: UInt8) -> UInt8 {
        let v = Int(left) + Int(top) - Int(topLeft)
        return UInt8(v < 0 ? 0 : v > 255 ? 255 : v)
    }

    /// Undoes the prediction filter in place (Container §"Alpha", filtering method): each value
    /// was stored minus its prediction from the left (horizontal), above (vertical) or
    /// left + above − above-left clamped (gradient). The first pixel is predicted as 0, the
    /// rest of the first row from the left, the first column from above.
    static func unfilter(_ a: UnsafeMutablePointer<UInt8>, width: Int, rows: Int, method: Int) {
        guard method != 0, rows > 0, width > 0 else { return }
        for x in 1 ..< max(width, 1) { a[x] = a[x] &+ a[x - 1] }
        for y in 1 ..< max(rows, 1) {
            let row = a + y * width, above = row - width
            row[0] = row[0] &+ above[0]
            switch method {
            case 1:
                for x in 1 ..< max(width, 1) { row[x] = row[x] &+ row[x - 1] }
            case 2:
                for x in 1 ..< max(width, 1) { row[x] = row[x] &+ above[x] }
            default:
                for x in 1 ..< max(width, 1) { row[x] = row[x] &+ gradient(row[x - 1], above[x], above[x - 1]) }
            }
        }
    }
}
