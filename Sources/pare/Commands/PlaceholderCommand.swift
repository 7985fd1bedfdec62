import Pare
import PareCore

/// `pare placeholder encode IN [--kind thumbhash|blurhash[:XxY]]` prints the placeholder of IN
/// (from its cheapest source at about 100 pixels, as `thumbnail --placeholder` computes it);
/// `pare placeholder decode HASH -o OUT [--size W|WxH] [--kind ...]` draws a hash back to
/// pixels, in the format OUT's extension names (a server renders placeholders this way).
/// ThumbHash decodes at 32 pixels on its long side unless `--size` says otherwise; BlurHash,
/// which carries no size, at `--size` (default 32×32). The kind is read from the hash (base64
/// whose bytes are as long as their ThumbHash header says is a ThumbHash, anything else a
/// BlurHash) unless `--kind` names it.
func runPlaceholder(_ raw: [String]) -> Int32 {
    let arguments: Arguments
    do {
        arguments = try Arguments(raw, valued: ["--output", "--size", "--kind"], boolean: [], aliases: ["-o": "--output"])
    } catch {
        return usageError(error.message)
    }
    let words = arguments.positionals
    guard words.count == 2, words[0] == "encode" || words[0] == "decode" else {
        return usageError("placeholder needs encode IN or decode HASH -o OUT")
    }
    var kind: PlaceholderKind?
    if let name = arguments.value("--kind") {
        guard let parsed = placeholderKind(name) else { return usageError("--kind takes thumbhash, blurhash or blurhash:XxY") }
        kind = parsed
    }
    if words[0] == "encode" {
        do {
            let placeholder = try ImageSource(path: words[1]).placeholder(kind ?? .thumbHash)
            print(placeholder.text)
            return 0
        } catch {
            return reportInputError(words[1], error)
        }
    }
    let hash = words[1]
    guard let output = arguments.value("--output"), let format = ImageFileFormat(fileName: output) else {
        return usageError("placeholder decode needs -o OUT.png, .jpg or .ppm/.pam")
    }
    var size: (width: Int, height: Int)?
    if let text = arguments.value("--size") {
        let parts = text.split(separator: "x").compactMap { Int($0) }
        guard (parts.count == 1 || parts.count == 2), parts.allSatisfy({ (1 ... 4096).contains($0) }) else {
            return usageError("--size takes N or WxH, 1…4096")
        }
        size = (parts[0], parts.count == 2 ? parts[1] : parts[0])
    }
    let isBlurHash: Bool
    if let kind {
        isBlurHash = kind != .thumbHash
    } else {
        // Both kinds can be written in the same characters: a base64 text whose bytes have
        // the length their ThumbHash header implies is one.
        let bytes = Base64.decode(hash)
        isBlurHash = bytes.map { ThumbHash.expectedLength($0) != $0.count } ?? true
    }
    var image: Image?
    if isBlurHash {
        image = BlurHash.decode(hash, width: size?.width ?? 32, height: size?.height ?? 32)
    } else if let bytes = Base64.decode(hash), var decoded = ThumbHash.decode(bytes) {
        // Lanczos3, the thumbnails' resampler.
        if let size, let resized = try? decoded.resampled(width: size.width, height: size.height, filter: .lanczos3,
                                                         ledger: MemoryLedger()) {
            decoded = resized
        }
        image = decoded
    }
    guard let image else {
        printError("pare: \(hash): not a valid \(isBlurHash ? "BlurHash" : "ThumbHash")")
        return 1
    }
    do {
        guard writeOutput(try ImageEncoding.encode(image, as: format), to: output) else {
            printError("pare: \(output): cannot write the file")
            return 1
        }
    } catch {
        return reportInputError(output, error)
    }
    return 0
}
