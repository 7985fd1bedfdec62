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
    guard let bytes = readInput(input) else {
        printError("pare: \(input): cannot read the file")
        return 1
    }
    if bytes.starts(with: [0xFF, 0xD8]) {
        return decodeJPEGCommand(input: input, bytes: bytes, scale: arguments.value("--scale") ?? "1", output: output)
    }
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
        guard arguments.value("--scale") == nil || arguments.value("--scale") == "1" else {
            return usageError("--scale applies to JPEG input only")
        }
        return decodePNGCommand(input: input, bytes: bytes, output: output)
    }
    printError("pare: \(input): at byte 0: not a JPEG or PNG file")
    return 1
}
