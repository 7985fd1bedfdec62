import PareCore
import Testing
import TestSupport
@testable import PareJPEG

/// `JPEGDecoder.decodeImage`, the one-call decode: the rows the streaming decode gives.
@Suite struct DecodeImageTests {
    struct Rows: RowSink {
        var bytes: [UInt8] = []
        mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}
        mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) { bytes += row }
    }

    @Test func matchesTheStreamingDecodeAtEveryScale() throws {
        for name in ["fx-photo-300x200-420.jpg", "fx-scene-gray.jpg"] {
            let bytes = try #require(FileSystem.read(Corpus.fixtures + "/jpeg/" + name), "\(name)")
            for scale in JPEGScale.allCases {
                let image = try JPEGDecoder.decodeImage(bytes, scale: scale, ledger: MemoryLedger())
                var decoder = try JPEGDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
                var rows = Rows()
                try decoder.decode(scale: scale, into: &rows)
                let size = decoder.outputSize(at: scale)
                #expect(image.width == size.width && image.height == size.height, "\(name) at \(scale.name)")
                #expect(image.format == decoder.outputFormat)
                #expect(image.pixels == rows.bytes, "\(name) at \(scale.name)")
            }
        }
    }

    @Test func reportsTheDecodersError() {
        #expect(throws: JPEGError.notJPEG(offset: 0)) {
            _ = try JPEGDecoder.decodeImage([0x89, 0x50, 0x4E, 0x47], ledger: MemoryLedger())
        }
    }
}
