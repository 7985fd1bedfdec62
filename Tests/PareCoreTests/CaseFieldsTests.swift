import PareCore
import Testing

/// The short form of errors and warnings (`CaseFields.line`), which an Embedded build prints
/// as their `description`: the name, the text, the numbers, then the offset.
@Suite struct CaseFieldsTests {
    @Test func lineHasNameTextNumbersAndOffset() {
        let fields = CaseFields("tooManyEntries", text: "IFD0", 70000, 4096, at: 26)
        #expect(fields.line(stage: "EXIF: ") == "EXIF: tooManyEntries IFD0 70000 4096 at byte 26")
        #expect(fields.numbers == [70000, 4096])
        #expect(fields.offset == 26)
        #expect(CaseFields("notJPEG", at: 0).line(stage: "JPEG: ") == "JPEG: notJPEG at byte 0")
        #expect(CaseFields("sizeOverflow").line(stage: "") == "sizeOverflow")
        #expect(CaseFields("sizeOverflow").offset == nil)
        #expect(CaseFields("value", -3, at: 5).line(stage: "") == "value -3 at byte 5")
    }

    @Test func coreErrors() {
        #expect(CoreError.outOfBounds(offset: 1534, needed: 2, available: 0).caseFields.line(stage: "JPEG: ")
            == "JPEG: outOfBounds 2 0 at byte 1534")
        // The ledger's refusal belongs to no place in the file.
        let refusal = CoreError.limitExceeded(requested: 3216, inUse: 4082, limit: 5000).caseFields
        #expect(refusal.line(stage: "JPEG: ") == "JPEG: limitExceeded 3216 4082 5000")
        #expect(refusal.offset == nil)
        #expect(CoreError.readFailed(offset: 9).caseFields.line(stage: "") == "readFailed at byte 9")
        #expect(CoreError.cancelled.caseFields.line(stage: "") == "cancelled")
        for error in [CoreError.outOfBounds(offset: 0, needed: 1, available: 0), .limitExceeded(requested: 1, inUse: 0, limit: 0),
                      .readFailed(offset: 0)] {
            #expect("\(error.caseFields.name)" == Mirror(reflecting: error).children.first?.label)
        }
    }
}
