import Pare

/// Thumbnails of every file named on the command line, made in a task group, kept by an
/// actor and shown by a main-actor model; each written out as a PNG.

/// Where finished thumbnails are kept across tasks.
actor ThumbnailStore {
    private var thumbnails: [String: Thumbnail] = [:]

    func keep(_ thumbnail: Thumbnail, for name: String) { thumbnails[name] = thumbnail }
    var count: Int { thumbnails.count }
}

/// What a user interface would bind to.
@MainActor final class GridModel {
    var cells: [Thumbnail] = []
    var failures: [String: PareError] = [:]

    func show(_ thumbnail: Thumbnail) { cells.append(thumbnail) }
}

/// What to tell the user, by the kind of failure, whatever the format.
func explain(_ error: PareError) -> String {
    switch error.kind {
    case .memoryLimit: return "too large for the memory allowed"
    case .limit: return "larger than allowed"
    case .damaged: return "damaged"
    case .unsupported: return "not a supported image"
    case .io: return "unreadable"
    case .usage: return "bad request"
    case .cancelled: return "cancelled"
    }
}

/// Every public type a user needs is in scope through `import Pare` alone.
func namesInScope() {
    let _: JPEGDecoder<MemoryByteSource>.Type = JPEGDecoder<MemoryByteSource>.self
    let _: PNGDecoder<MemoryByteSource>.Type = PNGDecoder<MemoryByteSource>.self
    let _: PNGEncoder.Type = PNGEncoder.self
    let _: JPEGEncoder<ByteArraySink>.Type = JPEGEncoder<ByteArraySink>.self
    let _: (JPEGEncoderOptions, JPEGEncodingError) = (JPEGEncoderOptions(quality: 85), .invalidOption("example"))
    let _: JPEGError = .notJPEG(offset: 0)
    let _: PNGError = .badSignature
    let _: EXIFError = .notTIFF(offset: 0)
    let _: (JPEGOptions, PNGOptions, EXIFOptions, JPEGScale) = (JPEGOptions(), PNGOptions(), EXIFOptions(), .eighth)
}

/// `main` runs on the main actor, as the model does.
@main enum LibraryUse {
    static func main() async {
        namesInScope()
        let paths = Array(CommandLine.arguments.dropFirst())
        let model = GridModel()
        let store = ThumbnailStore()
        let options = ThumbnailOptions(maxPixelSize: 256)

        await withTaskGroup(of: (String, Result<Thumbnail, PareError>).self) { group in
            for path in paths {
                group.addTask {
                    do throws(PareError) {
                        let thumbnail = try await ImageSource(path: path).thumbnail(options: options)
                        return (path, .success(thumbnail))
                    } catch {
                        return (path, .failure(error))
                    }
                }
            }
            for await (path, result) in group {
                switch result {
                case let .success(thumbnail):
                    await store.keep(thumbnail, for: path)
                    model.show(thumbnail)
                case let .failure(error):
                    model.failures[path] = error
                    print("\(path): \(explain(error)) (\(error))")
                }
            }
        }

        // Bytes already in memory, and a task group whose children return `Thumbnail` itself.
        let tiny = try? PNGEncoder(ledger: MemoryLedger()).encode(try Image(width: 4, height: 2, format: .rgb8))
        let bytes = tiny ?? []
        let fromBytes = try? await withThrowingTaskGroup(of: Thumbnail.self) { group in
            group.addTask { try await ImageSource(bytes: bytes).thumbnail(options: ThumbnailOptions(maxPixelSize: 2)) }
            var made: [Thumbnail] = []
            for try await thumbnail in group { made.append(thumbnail) }
            return made
        }
        let encoded = fromBytes.flatMap { try? PNGEncoder(ledger: MemoryLedger()).encode($0[0].image) }

        // Errors are values: compared with ==.
        do {
            _ = try ImageSource(bytes: [0x47, 0x49, 0x46])
        } catch {
            print("GIF refused: \(error == .unknownFormat)")
        }
        print("\(await store.count) stored, \(model.cells.count) shown, from bytes: \(encoded?.count ?? 0) PNG bytes")
    }
}
