/// TIFF 6.0 §3 (Compression) and its extensions: the values the decoder knows.
enum TIFFCompression {
    static let none = 1
    static let ccittRLE = 2
    static let ccittT4 = 3
    static let ccittT6 = 4
    static let lzw = 5
    static let oldJPEG = 6
    static let jpeg = 7
    static let adobeDeflate = 8
    static let packBits = 32773
    static let deflate = 32946
}

/// TIFF 6.0 PhotometricInterpretation values.
enum TIFFPhotometric {
    static let minIsWhite = 0
    static let minIsBlack = 1
    static let rgb = 2
    static let palette = 3
    static let mask = 4
    static let separated = 5
    static let ycbcr = 6
    static let cieLab = 8
    static let iccLab = 9
    static let ituLab = 10
    static let logL = 32844
    static let logLuv = 32845
}
