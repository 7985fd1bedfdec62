@_spi(Codec) import PareCore

/// The chunk names of the WebP container (WebP Container Specification, "RIFF File Format"),
/// each the four ASCII bytes read big-endian into a word so that they compare as numbers.
enum FourCC {
    static let riff: UInt32 = 0x5249_4646 // "RIFF"
    static let webp: UInt32 = 0x5745_4250 // "WEBP"
    static let vp8: UInt32 = 0x5650_3820 // "VP8 "
    static let vp8l: UInt32 = 0x5650_384C // "VP8L"
    static let vp8x: UInt32 = 0x5650_3858 // "VP8X"
    static let alph: UInt32 = 0x414C_5048 // "ALPH"
    static let anim: UInt32 = 0x414E_494D // "ANIM"
    static let anmf: UInt32 = 0x414E_4D46 // "ANMF"
    static let iccp: UInt32 = 0x4943_4350 // "ICCP"
    static let exif: UInt32 = 0x4558_4946 // "EXIF"
    static let xmp: UInt32 = 0x584D_5020 // "XMP "

    /// The name for messages: the four bytes when they are printable ASCII, else hex.
    static func name(_ code: UInt32) -> MessageText {
        #if hasFeature(Embedded)
        return "0x\(MessageText.hex(code, digits: 8))"
        #else
        var text = ""
        for shift in [24, 16, 8, 0] {
            let byte = UInt8(truncatingIfNeeded: code >> UInt32(shift))
            guard byte >= 0x20, byte < 0x7F else { return "0x\(MessageText.hex(code, digits: 8))" }
            text.unicodeScalars.append(Unicode.Scalar(byte))
        }
        return text
        #endif
    }
}
