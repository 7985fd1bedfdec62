import Pare

// The README's example, kept here so that CI compiles it.

/// 256-px JPEG thumbnails of uploads, made in parallel; nil for an upload that was refused.
func thumbnails(of uploads: [[UInt8]]) async -> [[UInt8]?] {
    await withTaskGroup(of: (Int, [UInt8]?).self) { group in
        for (i, bytes) in uploads.enumerated() {
            group.addTask {
                do throws(PareError) {
                    let thumbnail = try await ImageSource(bytes: bytes).thumbnail(options: ThumbnailOptions(maxPixelSize: 256))
                    return (i, try ImageEncoding.encode(thumbnail.image, as: .jpeg))
                } catch {
                    switch error.kind {
                    case .damaged, .unsupported: print("upload \(i) is not a usable image: \(error)")
                    case .memoryLimit, .limit: print("upload \(i) is too large: \(error)")
                    case .cancelled: break
                    case .io, .usage: print("upload \(i): \(error)")
                    }
                    return (i, nil)
                }
            }
        }
        var results = [[UInt8]?](repeating: nil, count: uploads.count)
        for await (i, png) in group { results[i] = png }
        return results
    }
}
