/// The seven passes of Adam7 interlacing (PNG 3rd ed. §8.2, Figure 8.1): where each pass's
/// pixels sit in the image. Pass p covers columns `xOrigin + i·xStep` of rows
/// `yOrigin + j·yStep`.
@_spi(Explain)
public struct Adam7Pass: Sendable {
    public let xOrigin: Int, yOrigin: Int, xStep: Int, yStep: Int

    public static let passes: [Adam7Pass] = [
        Adam7Pass(xOrigin: 0, yOrigin: 0, xStep: 8, yStep: 8),
        Adam7Pass(xOrigin: 4, yOrigin: 0, xStep: 8, yStep: 8),
        Adam7Pass(xOrigin: 0, yOrigin: 4, xStep: 4, yStep: 8),
        Adam7Pass(xOrigin: 2, yOrigin: 0, xStep: 4, yStep: 4),
        Adam7Pass(xOrigin: 0, yOrigin: 2, xStep: 2, yStep: 4),
        Adam7Pass(xOrigin: 1, yOrigin: 0, xStep: 2, yStep: 2),
        Adam7Pass(xOrigin: 0, yOrigin: 1, xStep: 1, yStep: 2),
    ]

    /// The whole image as one pass: how a non-interlaced image is read.
    static let sequential = Adam7Pass(xOrigin: 0, yOrigin: 0, xStep: 1, yStep: 1)

    /// Pixels per row of this pass in an image `width` wide (0 when the pass is empty).
    public func width(of width: Int) -> Int {
        width > xOrigin ? (width - xOrigin + xStep - 1) / xStep : 0
    }

    /// Rows of this pass in an image `height` high.
    public func height(of height: Int) -> Int {
        height > yOrigin ? (height - yOrigin + yStep - 1) / yStep : 0
    }
}

/// The order in which filtered scanlines follow one another in the inflated image data
/// (PNG 3rd ed. §7.2, §8.2): pass by pass, top to bottom, empty passes left out. Each
/// scanline is a filter-type byte and the row's bytes. The inflating stage and the
/// reconstructing stage walk it with a `ScanlineOrder.Cursor` each, so that they can run
/// apart (the Pare module puts them on two threads) and still agree on every row.
@_spi(Stages)
public struct ScanlineOrder: Sendable {
    struct Pass: Sendable {
        let pass: Adam7Pass
        /// Pixels per row of the pass.
        let width: Int
        /// Bytes per row of the pass, without the filter byte.
        let rowBytes: Int
        let height: Int
    }

    let passes: [Pass]
    /// Scanlines in the whole image data.
    public let count: Int
    /// Bytes of a full-width scanline with its filter byte: room for any scanline of any pass.
    public let maxLineBytes: Int

    /// The caller has checked that `width × 64` does not overflow (the widest pixel).
    init(header: PNGHeader) {
        let bitsPerPixel = header.bitsPerPixel
        var passes: [Pass] = []
        var count = 0
        for pass in header.interlaced ? Adam7Pass.passes : [Adam7Pass.sequential] {
            let width = pass.width(of: header.width), height = pass.height(of: header.height)
            guard width > 0 && height > 0 else { continue }
            passes.append(Pass(pass: pass, width: width, rowBytes: (width * bitsPerPixel + 7) / 8, height: height))
            count += height
        }
        self.passes = passes
        self.count = count
        maxLineBytes = (header.width * bitsPerPixel + 7) / 8 + 1
    }

    /// A position in the order: the next scanline's pass and row within it.
    struct Cursor {
        private(set) var passIndex = 0
        private(set) var row = 0

        /// Moves past one scanline.
        mutating func advance(in order: ScanlineOrder) {
            row += 1
            if row == order.passes[passIndex].height {
                row = 0
                passIndex += 1
            }
        }
    }
}
