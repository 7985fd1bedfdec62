import PareCore

/// YCbCr samples stored without JPEG (TIFF 6.0 §21) turned into RGB: the stored codes
/// scaled by ReferenceBlackWhite to Y in 0…255 and Cb, Cr in −127…127, then
/// R = Y + (2 − 2·LumaRed)·Cr, B = Y + (2 − 2·LumaBlue)·Cb,
/// G = (Y − LumaBlue·B − LumaRed·R) / LumaGreen, rounded and clamped. Subsampled chroma
/// reaches it already spread over its block's pixels (RowAssembler).
struct YCbCrConversion {
    let lumaRed: Float, lumaGreen: Float, lumaBlue: Float
    /// ReferenceBlackWhite: black and white codes of Y, Cb, Cr.
    let reference: [Float]

    static let defaultCoefficients: [Float] = [0.299, 0.587, 0.114]
    static let defaultReference: [Float] = [0, 255, 128, 255, 128, 255]

    init(coefficients: [Float], reference: [Float]) {
        lumaRed = coefficients[0]
        lumaGreen = coefficients[1] != 0 ? coefficients[1] : 0.587
        lumaBlue = coefficients[2]
        self.reference = reference
    }

    private func scaled(_ code: UInt8, _ component: Int, range: Float) -> Float {
        let black = reference[2 * component], white = reference[2 * component + 1]
        let span = white - black != 0 ? white - black : 1
        return (Float(code) - black) * range / span
    }

    /// The RGB of one stored pixel.
    func rgb(_ y: UInt8, _ cb: UInt8, _ cr: UInt8) -> (UInt8, UInt8, UInt8) {
        let luma = scaled(y, 0, range: 255)
        let blue = scaled(cb, 1, range: 127), red = scaled(cr, 2, range: 127)
        let r = luma + (2 - 2 * lumaRed) * red
        let b = luma + (2 - 2 * lumaBlue) * blue
        let g = (luma - lumaBlue * b - lumaRed * r) / lumaGreen
        return (Self.clamp(r), Self.clamp(g), Self.clamp(b))
    }

    private static func clamp(_ v: Float) -> UInt8 {
        let rounded = (v + 0.5).rounded(.down)
        return rounded <= 0 ? 0 : rounded >= 255 ? 255 : UInt8(rounded)
    }
}
