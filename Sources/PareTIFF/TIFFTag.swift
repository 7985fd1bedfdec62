/// The baseline and extension tags the decoder reads (TIFF 6.0 §8 "Baseline Field Reference
/// Guide" and Part 2; ICC in TIFF: tag 34675 from the ICC specification, Annex B.4).
enum TIFFTag {
    static let newSubfileType: UInt16 = 254
    static let imageWidth: UInt16 = 256
    static let imageLength: UInt16 = 257
    static let bitsPerSample: UInt16 = 258
    static let compression: UInt16 = 259
    static let photometric: UInt16 = 262
    static let fillOrder: UInt16 = 266
    static let stripOffsets: UInt16 = 273
    static let orientation: UInt16 = 274
    static let samplesPerPixel: UInt16 = 277
    static let rowsPerStrip: UInt16 = 278
    static let stripByteCounts: UInt16 = 279
    static let planarConfiguration: UInt16 = 284
    static let t4Options: UInt16 = 292
    static let t6Options: UInt16 = 293
    static let predictor: UInt16 = 317
    static let colorMap: UInt16 = 320
    static let tileWidth: UInt16 = 322
    static let tileLength: UInt16 = 323
    static let tileOffsets: UInt16 = 324
    static let tileByteCounts: UInt16 = 325
    static let inkSet: UInt16 = 332
    static let extraSamples: UInt16 = 338
    static let sampleFormat: UInt16 = 339
    static let jpegTables: UInt16 = 347
    static let ycbcrCoefficients: UInt16 = 529
    static let ycbcrSubsampling: UInt16 = 530
    static let referenceBlackWhite: UInt16 = 532
    static let iccProfile: UInt16 = 34675
}

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
