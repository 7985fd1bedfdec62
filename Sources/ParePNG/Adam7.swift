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
