import PareCore
import PareEXIF
import Testing
import TestSupport

/// The one-line messages: the stage, the reason, then "at byte N", for real failures.
@Suite struct EXIFErrorMessageTests {
    @Test func brokenIFDOffsets() throws {
        // IFD0 (Orientation 6) whose next-IFD pointer leads 70,000 bytes out: IFD0 survives.
        var b = TIFFBuilder()
        b.ifd([(0x0112, 3, 1, 6)], next: 70000)
        let m = try EXIFReader.readTIFF(b.bytes, baseOffset: 1000)
        #expect(m.orientation == .right)
        #expect(m.warnings.map(\.description) == ["EXIF: IFD1 lies outside the TIFF block at byte 71000"])
        // An Exif IFD pointer stored as SHORT.
        var wrongType = TIFFBuilder()
        wrongType.ifd([(0x8769, 3, 1, 26)])
        let w = try EXIFReader.readTIFF(wrongType.bytes, baseOffset: 12)
        #expect(w.warnings.map(\.description) == ["EXIF: IFD0 tag 0x8769 IFD pointer has field type 3 at byte 30"])
        // IFD0's own pointer broken: nothing to read, so the error is thrown.
        do {
            _ = try EXIFReader.readTIFF([0x4D, 0x4D, 0, 42, 0, 0, 0x10, 0], baseOffset: 12)
            Issue.record("read a TIFF block whose IFD0 is outside it")
        } catch {
            #expect(error.description == "EXIF: IFD0 lies outside the TIFF block at byte 4108")
        }
    }

    @Test func headerAndLimitMessages() {
        #expect(EXIFError.notTIFF(offset: 12).description == "EXIF: TIFF byte order is neither II nor MM at byte 12")
        #expect(EXIFError.badMagic(offset: 14, value: 41).description == "EXIF: TIFF magic number 41, expected 42, at byte 14")
        #expect(EXIFError.tooManyEntries(ifd: "IFD0", offset: 8, count: 65535, limit: 1024).description
            == "EXIF: IFD0 entry count 65535 exceeds the limit 1024 at byte 8")
        #expect(EXIFError.tooManyIFDs(offset: 392, limit: 64).description
            == "EXIF: IFD count 65 exceeds the limit 64 at byte 392")
        #expect(EXIFError.core(.outOfBounds(offset: 40, needed: 12, available: 4)).description
            == "EXIF: unexpected end of data (12 byte(s) needed, 4 available) at byte 40")
    }
}
