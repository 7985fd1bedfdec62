/// The size limits a decoder checks a header's image size against before it sizes anything
/// from it: the width, the height and their product, the pixel count (a product past `Int`
/// counts as `Int.max`). Each codec's options hold the figures; this is the one check.
public enum ImageSizeLimits {
    /// The first limit `width` × `height` crosses, as the decoders' errors name it ("width",
    /// "height", "pixel count"), with the value and the limit; nil within all three.
    public static func crossed(width: Int, height: Int, maxWidth: Int, maxHeight: Int,
                               maxPixels: Int) -> (what: MessageText, value: Int, limit: Int)? {
        if width > maxWidth { return ("width", width, maxWidth) }
        if height > maxHeight { return ("height", height, maxHeight) }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels { return ("pixel count", overflow ? Int.max : pixels, maxPixels) }
        return nil
    }
}
