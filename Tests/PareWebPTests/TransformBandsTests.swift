import PareCore
@testable import PareWebP
import Testing
import TestSupport

/// `TransformBands` (the transforms undone 16 rows at a time as the pixels decode) against
/// the whole-image undoing that alpha planes still take (`VP8LDecoder.decode`, its oracle):
/// the same pixels on every lossless file whose image is at least two bands tall.
@Suite struct TransformBandsTests {
    /// The VP8L payload of a simple lossless file ("RIFF" size "WEBP" "VP8L" size payload).
    static func payload(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count > 20, Array(bytes[12 ..< 16]) == Array("VP8L".utf8) else { return nil }
        let size = Int(bytes[16]) | Int(bytes[17]) << 8 | Int(bytes[18]) << 16 | Int(bytes[19]) << 24
        return Array(bytes[20 ..< min(bytes.count, 20 + size)])
    }

    /// The whole-image decode's pixels as the RGB(A) bytes `decode` hands out.
    static func wholeImage(_ payload: [UInt8], hasAlpha: Bool) throws -> [UInt8] {
        var info = try VP8LDecoder.parseHeader(Array(payload.prefix(5)), fileOffset: 20)
        let width = info.width, height = info.height
        let image = try payload.withUnsafeBufferPointer { data throws(WebPError) in
            try VP8LDecoder.decode(data: data.baseAddress!, count: data.count, fileOffset: 20, width: width,
                                   height: height, hasHeader: true, ledger: MemoryLedger(), maxPixels: 1 << 26,
                                   info: &info)
        }
        var bytes: [UInt8] = []
        for i in 0 ..< image.completeRows * width {
            let p = image.pixels[i]
            bytes += [UInt8(truncatingIfNeeded: p >> 16), UInt8(truncatingIfNeeded: p >> 8), UInt8(truncatingIfNeeded: p)]
            if hasAlpha { bytes.append(UInt8(truncatingIfNeeded: p >> 24)) }
        }
        return bytes
    }

    static func files() -> [(String, [UInt8])] {
        var folders = [Corpus.fixtures + "/webp"]
        if let made = Corpus.made("webp") { folders.append(made) }
        return folders.flatMap { folder in
            FileSystem.list(folder).filter { $0.hasSuffix(".webp") }.sorted().compactMap { name in
                FileSystem.read(folder + "/" + name).map { (name, $0) }
            }
        }
    }

    @Test func bandsMatchTheWholeImage() throws {
        var compared = 0, transformKinds = Set<Int>()
        for (name, bytes) in Self.files() where bytes.count < 400_000 {
            guard let payload = Self.payload(bytes) else { continue }
            var decoder = try WebPDecoder(source: MemoryByteSource(bytes), ledger: MemoryLedger())
            guard decoder.info.isLossless, decoder.info.height > TransformBands.bandRows else { continue }
            var rows = RowBytes()
            try decoder.decode(into: &rows)
            let whole = try Self.wholeImage(payload, hasAlpha: decoder.outputFormat.channels == 4)
            #expect(rows.bytes == whole, "\(name)")
            for kind in decoder.info.vp8l?.transformKinds ?? [] { transformKinds.insert(kind.rawValue) }
            compared += 1
        }
        #expect(compared >= 5)
        // Predictor, cross-colour, subtract-green and colour indexing each met in some file.
        #expect(transformKinds == [0, 1, 2, 3])
    }

    /// `addPredictions` (a block's run, the mode chosen once) against `predict` pixel by
    /// pixel, for all sixteen mode values, on rows of random pixels.
    @Test func predictionRunsMatchThePlainPredictor() {
        var generator = SplitMix(state: 7)
        let width = 37
        for mode in 0 ..< 16 {
            // The row above, then the row of residuals.
            var fast = (0 ..< 2 * width).map { _ in UInt32(truncatingIfNeeded: generator.next()) }
            var plain = fast
            fast.withUnsafeMutableBufferPointer { pixels in
                let row = pixels.baseAddress! + width
                LosslessTransform.addPredictions(mode, row, 1 ..< width, width: width)
            }
            plain.withUnsafeMutableBufferPointer { pixels in
                let row = pixels.baseAddress! + width
                for x in 1 ..< width {
                    let p = LosslessTransform.predict(mode, l: row[x - 1], t: row[x - width], tr: row[x - width + 1],
                                                      tl: row[x - width - 1])
                    row[x] = LosslessTransform.addPixels(row[x], p)
                }
            }
            #expect(fast == plain, "mode \(mode)")
        }
    }

    /// A file cut in its pixels: the whole bands and the rows after them that were decoded
    /// whole, as the whole-image decode's complete rows.
    @Test func cutFileGivesItsCompleteRows() throws {
        let bytes = fixture("fx-lossless-z9.webp")
        let cut = Array(bytes.prefix(bytes.count * 3 / 4))
        var options = WebPOptions()
        options.strict = false
        var decoder = try WebPDecoder(source: MemoryByteSource(cut), ledger: MemoryLedger(), options: options)
        var rows = RowBytes()
        try decoder.decode(into: &rows)
        let whole = try Self.wholeImage(Self.payload(cut)!, hasAlpha: decoder.outputFormat.channels == 4)
        #expect(rows.bytes == whole)
        #expect(rows.ys == Array(0 ..< whole.count / (decoder.info.width * decoder.outputFormat.channels)))
        #expect(decoder.warnings.count == 1)
    }
}

/// Every row's bytes in the order they came, and their row numbers.
struct RowBytes: RowSink {
    var bytes: [UInt8] = []
    var ys: [Int] = []
    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {}
    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        bytes += row
        ys.append(placement.y)
    }
}
