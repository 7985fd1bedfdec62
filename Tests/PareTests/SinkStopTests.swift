import Testing
import TestSupport
@testable import Pare
import PareCore

/// A sink that refuses a row stops the decode there, in every decoder: the decoder throws
/// `CoreError.sinkStopped` (wrapped in its own error), sends no row after the refused one,
/// and gives back everything its ledger counted.
@Suite struct SinkStopTests {
    /// Takes `accepting` rows, then refuses the next.
    struct StoppingSink: RowSink {
        let accepting: Int
        var received = 0

        mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}

        mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
            received += 1
            if received > accepting { throw .sinkStopped(row: placement.y) }
        }
    }

    /// Refuses in `begin`, as an encoder refuses a size its format cannot hold.
    struct RefusingSink: RowSink {
        var rows = 0
        mutating func begin(_ header: RowStreamHeader) throws(CoreError) { throw .sinkStopped(row: 0) }
        mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
            rows += 1
        }
    }

    static let inputs: [(String, [UInt8], workers: Int)] = {
        func fixture(_ path: String) -> [UInt8] { FileSystem.read(Corpus.fixtures + "/" + path) ?? [] }
        return [
            ("baseline JPEG", SyntheticJPEG.make(width: 320, height: 240), 1),
            ("JPEG on two threads", SyntheticJPEG.make(width: 640, height: 480), 2),
            ("JPEG in restart bands", SyntheticJPEG.make(width: 640, height: 480, restartInterval: 4), 2),
            ("progressive JPEG", SyntheticProgressiveJPEG.make(width: 200, height: 160), 1),
            ("progressive JPEG on two threads", SyntheticProgressiveJPEG.make(width: 200, height: 160), 2),
            ("PNG", SyntheticPNG.make(width: 64, height: 48, channels: 3, interlaced: false), 1),
            ("PNG on two threads", SyntheticPNG.make(width: 640, height: 480, channels: 3, interlaced: false), 2),
            ("interlaced PNG", SyntheticPNG.make(width: 64, height: 48, channels: 4, interlaced: true), 1),
            ("GIF", fixture("gif/im-interlaced.gif"), 1),
            ("lossy WebP", fixture("webp/fx-lossy-sharp.webp"), 1),
            ("lossless WebP", fixture("webp/fx-lossless-z6.webp"), 1),
            ("animated WebP", fixture("webp/fx-anim.webp"), 1),
            ("TIFF", fixture("tiff/gray8-lzw-strips.tif"), 1),
            ("TIFF with JPEG strips", fixture("tiff/jpeg-ycbcr-strips.tif"), 1),
            ("Netpbm", Array("P6\n4 6\n255\n".utf8) + [UInt8](repeating: 90, count: 72), 1),
        ]
    }()

    @Test func aRefusedRowStopsEveryDecoder() throws {
        for (name, bytes, workers) in Self.inputs {
            #expect(!bytes.isEmpty, "\(name): no input")
            let source = try ImageSource(bytes: bytes)
            let ledger = MemoryLedger()
            var sink = StoppingSink(accepting: 3)
            do {
                _ = try source.decodeMainImage(ledger: ledger, workers: workers, into: &sink)
                Issue.record("\(name): the decode ran past a refused row")
            } catch {
                #expect(error.kind == .usage, "\(name): \(error)")
                #expect("\(error)".contains("row sink stopped the decode at row 3"), "\(name): \(error)")
            }
            #expect(sink.received == 4, "\(name): \(sink.received) rows sent, the refused one the fourth")
            #expect(ledger.currentBytes == 0, "\(name): \(ledger.currentBytes) B still held")
        }
    }

    @Test func aSinkThatRefusesInBeginGetsNoRow() throws {
        for (name, bytes, workers) in Self.inputs {
            let ledger = MemoryLedger()
            var sink = RefusingSink()
            #expect(throws: PareError.self, "\(name)") {
                _ = try ImageSource(bytes: bytes).decodeMainImage(ledger: ledger, workers: workers, into: &sink)
            }
            #expect(sink.rows == 0, "\(name)")
            #expect(ledger.currentBytes == 0, "\(name)")
        }
    }
}
