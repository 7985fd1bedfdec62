/// The TIFF tags read in this package, by number: TIFF 6.0 §8 "Baseline Field Reference
/// Guide" and Part 2, TIFF-PM6 (SubIFDs), Exif 2.32 §4.6.3 (the Exif IFD pointer, the maker
/// note), DNG 1.7 §6, ICC in TIFF (34675, ICC specification Annex B.4), and Panasonic's
/// RW2 preview: one table for the RAW preview scan and PareTIFF's decoder.
@_spi(TIFF)
public enum TIFFTag {
    public static let panasonicJpgFromRaw: UInt16 = 46
    public static let newSubfileType: UInt16 = 254
    public static let imageWidth: UInt16 = 256
    public static let imageLength: UInt16 = 257
    public static let bitsPerSample: UInt16 = 258
    public static let compression: UInt16 = 259
    public static let photometric: UInt16 = 262
    public static let fillOrder: UInt16 = 266
    public static let make: UInt16 = 271
    public static let stripOffsets: UInt16 = 273
    public static let orientation: UInt16 = 274
    public static let samplesPerPixel: UInt16 = 277
    public static let rowsPerStrip: UInt16 = 278
    public static let stripByteCounts: UInt16 = 279
    public static let planarConfiguration: UInt16 = 284
    public static let t4Options: UInt16 = 292
    public static let t6Options: UInt16 = 293
    public static let predictor: UInt16 = 317
    public static let colorMap: UInt16 = 320
    public static let tileWidth: UInt16 = 322
    public static let tileLength: UInt16 = 323
    public static let tileOffsets: UInt16 = 324
    public static let tileByteCounts: UInt16 = 325
    public static let subIFDs: UInt16 = 330
    public static let inkSet: UInt16 = 332
    public static let extraSamples: UInt16 = 338
    public static let sampleFormat: UInt16 = 339
    public static let jpegTables: UInt16 = 347
    public static let jpegInterchangeFormat: UInt16 = 513
    public static let jpegInterchangeFormatLength: UInt16 = 514
    public static let ycbcrCoefficients: UInt16 = 529
    public static let ycbcrSubsampling: UInt16 = 530
    public static let referenceBlackWhite: UInt16 = 532
    public static let exifIFD: UInt16 = 34665
    public static let iccProfile: UInt16 = 34675
    public static let makerNote: UInt16 = 37500
    public static let dngVersion: UInt16 = 50706
}
