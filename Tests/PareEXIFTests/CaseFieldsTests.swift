import PareCore
import PareEXIF
import Testing

/// Each EXIF error's fields for the short form: its own case's name, its values (the IFD's
/// name first), its offset (an Embedded build prints `caseFields.line` as the description).
@Suite struct EXIFCaseFieldsTests {
    static let errors: [EXIFError] = [
        .notTIFF(offset: 12), .badMagic(offset: 14, value: 41), .badBigTIFFHeader(offset: 12, reason: "offset size 4, expected 8"),
        .ifdOutOfBounds(ifd: "IFD1", offset: 71000), .ifdLoop(ifd: "IFD2", offset: 8), .tooManyIFDs(offset: 8, limit: 64),
        .tooManyEntries(ifd: "IFD0", offset: 26, count: 70000, limit: 4096),
        .truncatedIFD(ifd: "Exif", offset: 40, declared: 20, read: 3),
        .unknownFieldType(ifd: "IFD0", tag: 0x0112, offset: 30, type: 14), .valueOutOfBounds(ifd: "GPS", tag: 2, offset: 50),
        .valueTooLarge(ifd: "Exif", tag: 0x927C, offset: 60, limit: 4096),
        .wrongPointerType(ifd: "IFD0", tag: 0x8769, offset: 30, type: 3), .thumbnailOutOfBounds(offset: 100, length: 6880),
        .notJPEG(offset: 0), .truncatedSegment(offset: 2, marker: 0xE1), .strayBytes(offset: 20, count: 3),
        .tooManySegments(offset: 900, limit: 100), .badMPF(offset: 70, reason: "image 2 lies outside the file"),
        .tooManyMPFEntries(offset: 80, count: 300, limit: 256),
        .badGainMap(offset: 90, reason: "ISO 21496-1 denominator 0"),
    ]

    @Test func namesAreTheCases() {
        for error in Self.errors {
            #expect("\(error.caseFields.name)" == Mirror(reflecting: error).children.first?.label)
        }
        #expect(EXIFError.core(.readFailed(offset: 5)).caseFields.line(stage: "EXIF: ") == "EXIF: readFailed at byte 5")
    }

    @Test func lines() {
        let lines = Self.errors.map { $0.caseFields.line(stage: "EXIF: ") }
        #expect(lines[6] == "EXIF: tooManyEntries IFD0 70000 4096 at byte 26")
        #expect(lines[8] == "EXIF: unknownFieldType IFD0 274 14 at byte 30")
        #expect(lines[14] == "EXIF: truncatedSegment 225 at byte 2")
        #expect(lines[17] == "EXIF: badMPF image 2 lies outside the file at byte 70")
        #expect(lines[19] == "EXIF: badGainMap ISO 21496-1 denominator 0 at byte 90")
        #expect("\(Self.errors[19])" == "EXIF: gain map: ISO 21496-1 denominator 0 at byte 90")
    }
}
