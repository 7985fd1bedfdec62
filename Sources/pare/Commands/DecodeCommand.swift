import Pare
import PareCore
import PareJPEG

/// `pare decode IN [--scale 1/8|1/4|1/2|1] -o OUT`: the raw decode, no orientation, no
/// resampling. The format is sniffed from the first bytes (`ImageFormat`), not the file name.
/// The output is opened before decoding, so that a place that cannot be written is blamed
/// as itself and not as the input.
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
    guard let scale = JPEGScale(name: arguments.value("--scale") ?? "1") else {
        return usageError("--scale must be 1/8, 1/4, 1/2 or 1")
    }
    let input = arguments.positionals[0]
    // Read on demand (pread windows), not whole: a decode touches each byte once.
    let source: InputBytes
    do {
        source = try InputBytes(path: input)
    } catch {
        printError("pare: \(input): cannot read the file")
        return 1
    }
    let format: ImageFormat
    do {
        format = try ImageSource(input: source).format
    } catch {
        return reportInputError(input, error)
    }
    switch format {
    case .jpeg: break
    case .png, .netpbm, .webp, .gif, .tiff:
        guard scale == .full else { return usageError("--scale applies to JPEG input only") }
    }
    let file = OutputFile(path: output)
    guard file.open() else {
        printError("pare: \(output): cannot open the file for writing")
        return 1
    }
    let status = format == .jpeg ? decodeJPEG(input: input, source: source, scale: scale, into: file)
        : decodeToPAM(input: input, source: source, into: file)
    guard status == 0 else {
        file.abandon()
        return status
    }
    return commitOutput(file)
}
