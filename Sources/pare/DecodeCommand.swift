import Pare
import PareCore
/// `pare decode IN [--scale 1/8|1/4|1/2|1] -o OUT`: the raw decode, no orientation, no
/// resampling. The format is sniffed from the first bytes, not the file name.
func runDecode(_ raw: [String]) -> Int32 {
    let arguments: Arguments
    do {
        arguments = try Arguments(raw, valued: ["--scale", "--output"], boolean: [], aliases: ["-o": "--output"])
    } catch {
        return usageError(error.message)
    }
    guard arguments.positionals.count == 1, let output = arguments.value("--output") else {
        return usageError("decode needs one input and -o OUT")
    }
    let input = arguments.positionals[0]
    // Read on demand (pread windows), not whole: a decode touches each byte once.
    let source: InputBytes
    var magic = [UInt8](repeating: 0, count: 4)
    do {
        source = try InputBytes(path: input)
        let n = try magic.withUnsafeMutableBytes { buffer throws(CoreError) in try source.read(into: buffer, at: 0) }
        magic.removeLast(4 - n)
    } catch {
        printError("pare: \(input): cannot read the file")
        return 1
    }
    if magic.starts(with: [0xFF, 0xD8]) {
        return decodeJPEGCommand(input: input, source: source, scale: arguments.value("--scale") ?? "1", output: output)
    }
    if magic.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
        guard arguments.value("--scale") == nil || arguments.value("--scale") == "1" else {
            return usageError("--scale applies to JPEG input only")
        }
        return decodePNGCommand(input: input, source: source, output: output)
    }
    printError("pare: \(input): at byte 0: not a JPEG or PNG file")
    return 1
}
