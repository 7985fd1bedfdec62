import PareCore
import PareJPEG
import Testing

/// Each JPEG error's and warning's fields for the short form: its own case's name, its
/// values, its offset (an Embedded build prints `caseFields.line` as the description).
@Suite struct JPEGCaseFieldsTests {
    static let errors: [JPEGError] = [
        .notJPEG(offset: 0), .unsupported(process: .arithmeticSequential, offset: 71),
        .unsupportedFeature(feature: "12-bit samples", offset: 4), .invalidSegment(marker: 0xC4, offset: 20, reason: "table class 2 id 0"),
        .invalidHuffmanTable(offset: 5726, reason: "over-subscribed at code length 16"),
        .missingTable(kind: "DC Huffman", id: 3, offset: 145), .missingScan(offset: 300), .unexpectedMarker(marker: 0xD9, offset: 8),
        .limitExceeded(what: "pixel count", value: 2_147_483_647, limit: 268_435_456, offset: 89),
    ]
    static let warnings: [JPEGWarning] = [
        .truncated(scan: 1, offset: 23039), .extraneousBytes(count: 3, marker: 0xDA, offset: 400),
        .restartResync(expected: 0xD0, found: 0xF7, offset: 23039), .invalidHuffmanCode(scan: 2, offset: 9),
        .componentNotCoded(id: 3, offset: 1000), .unknownAdobeTransform(value: 7, offset: 30),
    ]

    @Test func namesAreTheCases() {
        for error in Self.errors {
            #expect("\(error.caseFields.name)" == Mirror(reflecting: error).children.first?.label)
        }
        for warning in Self.warnings {
            #expect("\(warning.caseFields.name)" == Mirror(reflecting: warning).children.first?.label)
            #expect(warning.caseFields.offset == warning.offset)
            // A strict decode's error is the warning it refused.
            #expect(JPEGError.strict(warning).caseFields.line(stage: "JPEG: ") == warning.caseFields.line(stage: "JPEG: "))
        }
    }

    @Test func lines() {
        let lines = Self.errors.map { $0.caseFields.line(stage: "JPEG: ") }
        #expect(lines[3] == "JPEG: invalidSegment DHT table class 2 id 0 at byte 20")
        #expect(lines[4] == "JPEG: invalidHuffmanTable over-subscribed at code length 16 at byte 5726")
        #expect(lines[5] == "JPEG: missingTable DC Huffman 3 at byte 145")
        #expect(lines[8] == "JPEG: limitExceeded pixel count 2147483647 268435456 at byte 89")
        #expect(Self.warnings[1].caseFields.line(stage: "JPEG: ") == "JPEG: extraneousBytes SOS 3 at byte 400")
        #expect(Self.warnings[2].caseFields.line(stage: "JPEG: ") == "JPEG: restartResync RST0 0xFFF7 at byte 23039")
        let core = JPEGError.core(.limitExceeded(requested: 3216, inUse: 4082, limit: 5000))
        #expect(core.caseFields.line(stage: "JPEG: ") == "JPEG: limitExceeded 3216 4082 5000")
    }
}
