import PareCore
import PareWebP
import TestSupport

/// The decoded pixels as RGBA (opaque alpha added to RGB), as `dwebp -pam` writes them.
/// The digest to compare: of the RGBA pixels, or of the RGB bytes for an image decoded as
/// RGB (dwebp writes alpha even where the stream says it has none).
func pixelDigest(_ image: Image) -> String {
    if image.format == .rgba8 { return SHA256.hex(rgbaBytes(image)) }
    var rgb = [UInt8]()
    rgb.reserveCapacity(image.width * image.height * 3)
    let pixels = image.pixels
    for y in 0 ..< image.height {
        rgb.append(contentsOf: pixels[y * image.rowStride ..< y * image.rowStride + image.width * 3])
    }
    return SHA256.hex(rgb)
}

func rgbaBytes(_ image: Image) -> [UInt8] {
    let pixels = image.pixels
    if image.format == .rgba8 && image.rowStride == image.width * 4 { return pixels }
    var out = [UInt8](repeating: 255, count: image.width * image.height * 4)
    let channels = image.format.channels
    for y in 0 ..< image.height {
        for x in 0 ..< image.width {
            let s = y * image.rowStride + x * channels, d = (y * image.width + x) * 4
            for c in 0 ..< min(channels, 4) { out[d + c] = pixels[s + c] }
        }
    }
    return out
}

/// One line of the digest lists: SHA-256 of the RGBA pixels, of their RGB bytes alone, the
/// size and the file name.
struct ExpectedDigest {
    var digest: String
    var rgbDigest: String
    var width: Int
    var height: Int
    var name: String
}

func readDigests(_ path: String) -> [ExpectedDigest] {
    guard let bytes = FileSystem.read(path) else { return [] }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
        let f = line.split(separator: " ")
        guard f.count == 5, let w = Int(f[2]), let h = Int(f[3]) else { return nil }
        return ExpectedDigest(digest: String(f[0]), rgbDigest: String(f[1]), width: w, height: h, name: String(f[4]))
    }
}

func decodeWebP(_ bytes: [UInt8], options: WebPOptions = WebPOptions(),
                ledger: MemoryLedger = MemoryLedger()) throws(WebPError) -> Image {
    try WebPDecoder.decodeImage(bytes, ledger: ledger, options: options)
}

/// A committed fixture's bytes (`Fixtures/webp/`).
func fixture(_ name: String) -> [UInt8] {
    FileSystem.read(Corpus.fixtures + "/webp/" + name) ?? []
}

/// Counts rows and keeps nothing, so that the ledger shows only the decoder's own memory;
/// notes any row that breaks the announced header (order, place, length).
struct CountingSink: RowSink {
    var header: RowStreamHeader?
    var rows: [Int] = []
    var problems: [String] = []
    mutating func begin(_ header: RowStreamHeader) throws(CoreError) {
        if self.header != nil { problems.append("begin twice") }
        self.header = header
    }
    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        guard let header else { return problems.append("row before begin") }
        if placement.y < (rows.last ?? -1) + 1 || placement.y >= header.height { problems.append("row \(placement.y) out of order") }
        if placement.width != header.width || row.count != header.width * header.format.bytesPerPixel {
            problems.append("row \(placement.y): \(row.count) bytes for \(placement.width) pixels of \(header.format)")
        }
        rows.append(placement.y)
    }
}

/// The error a decode throws, or nil when it succeeds.
func decodeError(_ bytes: [UInt8], options: WebPOptions = WebPOptions(),
                 ledger: MemoryLedger = MemoryLedger()) -> WebPError? {
    do {
        _ = try decodeWebP(bytes, options: options, ledger: ledger)
        return nil
    } catch {
        return error
    }
}

/// Little-endian 32-bit bytes.
func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }

/// A RIFF/WEBP file around `chunks` (each fourCC + payload), padded as the container wants.
func riff(_ chunks: [(String, [UInt8])]) -> [UInt8] {
    var body = Array("WEBP".utf8)
    for (name, payload) in chunks {
        body += Array(name.utf8) + le32(payload.count) + payload
        if payload.count & 1 == 1 { body.append(0) }
    }
    return Array("RIFF".utf8) + le32(body.count) + body
}

/// The chunks of a WebP file (top level only).
func webpChunks(_ file: [UInt8]) -> [(String, [UInt8])] {
    var result: [(String, [UInt8])] = []
    var i = 12
    while i + 8 <= file.count {
        let size = Int(file[i + 4]) | Int(file[i + 5]) << 8 | Int(file[i + 6]) << 16 | Int(file[i + 7]) << 24
        let name = String(decoding: file[i ..< i + 4], as: UTF8.self)
        result.append((name, Array(file[i + 8 ..< min(file.count, i + 8 + size)])))
        i += 8 + size + (size & 1)
    }
    return result
}
