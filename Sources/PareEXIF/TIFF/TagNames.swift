import PareCore

/// Tag names as ExifTool spells them (TIFF 6.0 §8; Exif 2.32 §4.6.3–4.6.7, Tables 4–8;
/// CIPA DC-007 §5.2.3 for MPF), chosen per IFD because GPS, Interop and MPF reuse numbers.
enum TagNames {
    /// Which list names an IFD's tags: the reader knows it from where the IFD's pointer was
    /// (IFD0's GPS and Interop tags, an MPF segment), so it is passed, not found from the name.
    enum Table: Sendable {
        case main, gps, interop, mpf
    }

    /// The tag's name in an IFD whose tags `table` names. Looked up when asked for, not
    /// stored per entry: a reader that wants only a few values (a thumbnailer, a firmware
    /// build) links no names.
    static func name(for tag: UInt16, in table: Table) -> MessageText? {
        switch table {
        case .gps: return gps(tag)
        case .interop: return interop(tag) ?? main(tag)
        case .mpf: return mpf(tag)
        case .main: return main(tag)
        }
    }

    private static func main(_ tag: UInt16) -> MessageText? {
        switch tag {
        case 0x00FE: return "SubfileType"
        case 0x0100: return "ImageWidth"
        case 0x0101: return "ImageHeight"
        case 0x0102: return "BitsPerSample"
        case 0x0103: return "Compression"
        case 0x0106: return "PhotometricInterpretation"
        case 0x010D: return "DocumentName"
        case 0x010E: return "ImageDescription"
        case 0x010F: return "Make"
        case 0x0110: return "Model"
        case 0x0111: return "StripOffsets"
        case 0x0112: return "Orientation"
        case 0x0115: return "SamplesPerPixel"
        case 0x0116: return "RowsPerStrip"
        case 0x0117: return "StripByteCounts"
        case 0x011A: return "XResolution"
        case 0x011B: return "YResolution"
        case 0x011C: return "PlanarConfiguration"
        case 0x0128: return "ResolutionUnit"
        case 0x012D: return "TransferFunction"
        case 0x0131: return "Software"
        case 0x0132: return "ModifyDate"
        case 0x013B: return "Artist"
        case 0x013C: return "HostComputer"
        case 0x013D: return "Predictor"
        case 0x013E: return "WhitePoint"
        case 0x013F: return "PrimaryChromaticities"
        case 0x0140: return "ColorMap"
        case 0x0142: return "TileWidth"
        case 0x0143: return "TileLength"
        case 0x0144: return "TileOffsets"
        case 0x0145: return "TileByteCounts"
        case 0x014A: return "SubIFD"
        case 0x0152: return "ExtraSamples"
        case 0x0153: return "SampleFormat"
        case 0x0201: return "ThumbnailOffset"
        case 0x0202: return "ThumbnailLength"
        case 0x0211: return "YCbCrCoefficients"
        case 0x0212: return "YCbCrSubSampling"
        case 0x0213: return "YCbCrPositioning"
        case 0x0214: return "ReferenceBlackWhite"
        case 0x02BC: return "ApplicationNotes"
        case 0x8298: return "Copyright"
        case 0x829A: return "ExposureTime"
        case 0x829D: return "FNumber"
        case 0x83BB: return "IPTC-NAA"
        case 0x8649: return "PhotoshopSettings"
        case 0x8769: return "ExifOffset"
        case 0x8773: return "ICC_Profile"
        case 0x8822: return "ExposureProgram"
        case 0x8824: return "SpectralSensitivity"
        case 0x8825: return "GPSInfo"
        case 0x8827: return "ISO"
        case 0x8830: return "SensitivityType"
        case 0x8832: return "RecommendedExposureIndex"
        case 0x9000: return "ExifVersion"
        case 0x9003: return "DateTimeOriginal"
        case 0x9004: return "CreateDate"
        case 0x9010: return "OffsetTime"
        case 0x9011: return "OffsetTimeOriginal"
        case 0x9012: return "OffsetTimeDigitized"
        case 0x9101: return "ComponentsConfiguration"
        case 0x9102: return "CompressedBitsPerPixel"
        case 0x9201: return "ShutterSpeedValue"
        case 0x9202: return "ApertureValue"
        case 0x9203: return "BrightnessValue"
        case 0x9204: return "ExposureCompensation"
        case 0x9205: return "MaxApertureValue"
        case 0x9206: return "SubjectDistance"
        case 0x9207: return "MeteringMode"
        case 0x9208: return "LightSource"
        case 0x9209: return "Flash"
        case 0x920A: return "FocalLength"
        case 0x9214: return "SubjectArea"
        case 0x927C: return "MakerNote"
        case 0x9286: return "UserComment"
        case 0x9290: return "SubSecTime"
        case 0x9291: return "SubSecTimeOriginal"
        case 0x9292: return "SubSecTimeDigitized"
        case 0xA000: return "FlashpixVersion"
        case 0xA001: return "ColorSpace"
        case 0xA002: return "ExifImageWidth"
        case 0xA003: return "ExifImageHeight"
        case 0xA004: return "RelatedSoundFile"
        case 0xA005: return "InteropOffset"
        case 0xA20B: return "FlashEnergy"
        case 0xA20E: return "FocalPlaneXResolution"
        case 0xA20F: return "FocalPlaneYResolution"
        case 0xA210: return "FocalPlaneResolutionUnit"
        case 0xA214: return "SubjectLocation"
        case 0xA215: return "ExposureIndex"
        case 0xA217: return "SensingMethod"
        case 0xA300: return "FileSource"
        case 0xA301: return "SceneType"
        case 0xA302: return "CFAPattern"
        case 0xA401: return "CustomRendered"
        case 0xA402: return "ExposureMode"
        case 0xA403: return "WhiteBalance"
        case 0xA404: return "DigitalZoomRatio"
        case 0xA405: return "FocalLengthIn35mmFormat"
        case 0xA406: return "SceneCaptureType"
        case 0xA407: return "GainControl"
        case 0xA408: return "Contrast"
        case 0xA409: return "Saturation"
        case 0xA40A: return "Sharpness"
        case 0xA40C: return "SubjectDistanceRange"
        case 0xA420: return "ImageUniqueID"
        case 0xA430: return "OwnerName"
        case 0xA431: return "SerialNumber"
        case 0xA432: return "LensInfo"
        case 0xA433: return "LensMake"
        case 0xA434: return "LensModel"
        case 0xA435: return "LensSerialNumber"
        case 0xC4A5: return "PrintIM"
        default: return nil
        }
    }

    private static func gps(_ tag: UInt16) -> MessageText? {
        switch tag {
        case 0x0000: return "GPSVersionID"
        case 0x0001: return "GPSLatitudeRef"
        case 0x0002: return "GPSLatitude"
        case 0x0003: return "GPSLongitudeRef"
        case 0x0004: return "GPSLongitude"
        case 0x0005: return "GPSAltitudeRef"
        case 0x0006: return "GPSAltitude"
        case 0x0007: return "GPSTimeStamp"
        case 0x0008: return "GPSSatellites"
        case 0x0009: return "GPSStatus"
        case 0x000A: return "GPSMeasureMode"
        case 0x000B: return "GPSDOP"
        case 0x000C: return "GPSSpeedRef"
        case 0x000D: return "GPSSpeed"
        case 0x000E: return "GPSTrackRef"
        case 0x000F: return "GPSTrack"
        case 0x0010: return "GPSImgDirectionRef"
        case 0x0011: return "GPSImgDirection"
        case 0x0012: return "GPSMapDatum"
        case 0x001B: return "GPSProcessingMethod"
        case 0x001D: return "GPSDateStamp"
        case 0x001E: return "GPSDifferential"
        default: return nil
        }
    }

    private static func interop(_ tag: UInt16) -> MessageText? {
        switch tag {
        case 0x0001: return "InteropIndex"
        case 0x0002: return "InteropVersion"
        case 0x1001: return "RelatedImageWidth"
        case 0x1002: return "RelatedImageHeight"
        default: return nil
        }
    }

    private static func mpf(_ tag: UInt16) -> MessageText? {
        switch tag {
        case 0xB000: return "MPFVersion"
        case 0xB001: return "NumberOfImages"
        case 0xB002: return "MPImageList"
        case 0xB003: return "ImageUIDList"
        case 0xB004: return "TotalFrames"
        default: return nil
        }
    }
}
