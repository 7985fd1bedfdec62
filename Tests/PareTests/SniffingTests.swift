import Testing
import TestSupport
@testable import Pare

/// Formats Pare knows but does not decode are named in the refusal, not called "not an
/// image"; anything else is `unknownFormat`.
@Suite struct SniffingTests {
    static let cases: [(String, [UInt8])] = [
        ("HEIF", Array("\0\0\0\u{18}ftypheic\0\0\0\0mif1heic".utf8)),
        ("HEIF", Array("\0\0\0\u{18}ftypmif1\0\0\0\0mif1heic".utf8)),
        ("AVIF", Array("\0\0\0\u{1C}ftypavif\0\0\0\0avifmif1miaf".utf8)),
        ("JPEG XL", [0xFF, 0x0A, 0xFA, 0x7F, 0x00, 0x00]),
        ("JPEG XL", [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A, 0, 0, 0, 0]),
        ("JPEG 2000", [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A, 0, 0, 0, 0x14]),
        ("JPEG 2000", [0xFF, 0x4F, 0xFF, 0x51, 0x00, 0x2F]),
        ("BMP", [0x42, 0x4D, 0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 0x28, 0]),
    ]

    @Test func knownFormatsAreNamed() {
        for (name, bytes) in Self.cases {
            let padded = bytes + [UInt8](repeating: 0, count: 32)
            #expect(throws: PareError.unsupported("\(name) image: not supported"), "\(name)") {
                try ImageSource(bytes: padded)
            }
        }
    }

    @Test func othersAreUnknown() {
        for bytes in [Array("hello, not a picture".utf8), [0x00, 0x00, 0x00, 0x18] + Array("ftypisom".utf8) + [0, 0, 0, 0],
                      Array("BM".utf8), Array("RIFF\0\0\0\0WAVE".utf8)] {
            #expect(throws: PareError.unknownFormat) { try ImageSource(bytes: bytes + [0]) }
        }
    }
}
