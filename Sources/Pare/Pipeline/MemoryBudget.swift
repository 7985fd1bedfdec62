import PareCore
import PareJPEG

/// How a `ThumbnailPipeline` keeps the memory of all its jobs under one budget.
///
/// Each decode runs against a `MemoryLedger` of its own whose limit is a reservation taken
/// from the budget before the decode starts (a `PriorityGate` over bytes). The ledger
/// refuses any allocation past its limit, so no job can hold more than it reserved, and
/// the reservations in flight never add up to more than the budget: the sum of the
/// in-flight ledgers is bounded by construction, with no lock taken per allocation.
///
/// The reservation is an estimate from the headers (`JobCost`). When a job needs more
/// (a progressive JPEG keeps its coefficients, an interlaced PNG its whole image), its
/// ledger refuses the allocation, the job gives back everything and its reservation, and
/// runs again with twice the reservation, waiting until that much is free. A job that is
/// refused even the whole budget fails with `PareError.memoryBudgetExceeded`. A job whose
/// reservation does not fit now waits, in priority order, until other jobs finish.
///
/// The disk cache's writes reserve too: a fresh thumbnail is encoded for the cache after its
/// waiters have it, against a reservation of its own (`estimate(encoding:)`).
///
/// What the budget does not count: reading the headers for the estimate (one 64 KiB window,
/// before the reservation), and finished thumbnails, which leave the budget when their job
/// ends and are counted by the memory cache's cost limit (and held by the callers).
enum JobCost {
    /// The smallest reservation: the input window, tables and a few rows.
    static let minimum = 256 * 1024

    /// A first reservation for decoding `source` with `options`: the decoder's rows at the
    /// chosen DCT scale, the resampler's rows and the output, with room to spare. Errors
    /// reading the headers give the minimum: the decode will report them.
    static func estimate(source: ImageSource, options: ThumbnailOptions) -> Int {
        guard options.maxPixelSize > 0 || options.box != nil,
              let properties = try? source.properties(options: options) else { return minimum }
        let plan = SourceChooser.plan(properties: properties, fileSize: source.input.count, options: options)
        let scale = options.forcedJPEGScale ?? plan.scale
        let decodedWidth = (plan.width * scale.blockSize + 7) / 8
        let long = max(plan.width, plan.height, 1)
        let outLong = min(options.maxPixelSize, long)
        var outWidth = max(1, plan.width * outLong / long), outHeight = max(1, plan.height * outLong / long)
        if let box = options.box {
            // A box sizes the output instead; a cover crop placed by content resamples the
            // whole picture at the cover scale first.
            let geometry = ThumbnailGeometry(pictureWidth: max(1, plan.width), pictureHeight: max(1, plan.height),
                                             box: box, fit: options.fit, enlarge: options.enlarge)
            outWidth = max(geometry.canvasWidth, geometry.coverWidth)
            outHeight = max(geometry.canvasHeight, geometry.coverHeight)
        }
        // Two MCU rows of up to 16 lines of three 8-bit components, upsampled and converted,
        // plus the resampler's float window and the output image twice (orientation copies).
        let rows = decodedWidth.multipliedReportingOverflow(by: 96)
        let output = (outWidth * outHeight).multipliedReportingOverflow(by: 8)
        guard !rows.overflow, !output.overflow else { return Int.max / 2 }
        return minimum + rows.partialValue + output.partialValue + outWidth * 4 * 4 * 32
    }

    /// A reservation for encoding `image` for the disk cache: the file (at most the pixels
    /// again), a gain map's, and the PNG writer's deflate state (under half a mebibyte).
    static func estimate(encoding image: Image) -> Int {
        minimum + 512 * 1024 + image.pixels.count * 2
    }

    /// A reservation for decoding a disk-cache entry: its payload, the image, the codec's
    /// state (the inflater's window, or a JPEG's MCU rows).
    static func estimate(entry: DiskCacheEntry) -> Int {
        minimum + entry.payload.count + entry.width * entry.height * 4 + entry.width * 64
    }
}

extension PareError {
    /// True if a `MemoryLedger` refused an allocation (whatever stage asked for it: the
    /// codecs' refusals arrive lifted out as `.memoryLimit`).
    var isLedgerLimit: Bool {
        if case .memoryLimit = self { return true }
        return false
    }
}
