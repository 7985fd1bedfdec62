import PareCore

/// One component's decoded samples: a window of rows of its plane at the scaled size.
/// Row 0 of the buffer holds absolute sample row `firstRow`; in streaming use it carries the
/// last row of the previous MCU row, which upsampling needs as context.
struct ComponentBuffer {
    let storage: LedgerBuffer<UInt8>
    let stride: Int
    var firstRow: Int

    @inline(__always)
    func row(_ absolute: Int) -> UnsafeMutablePointer<UInt8> {
        storage.baseAddress + (absolute - firstRow) * stride
    }
}

/// The last stage: for each output row, the component rows it needs are upsampled to the
/// output width (see `Upsampler`), colour-converted (see `ColorConverter`) and handed to the
/// row sink, top to bottom. Rows are produced as soon as every component row they depend on
/// has been decoded.
struct OutputStage {
    let plan: ScalePlan
    let colorSpace: JPEGColorSpace
    let format: PixelFormat
    /// One upsampling row per component.
    let temporary: LedgerBuffer<UInt8>
    let row: LedgerBuffer<UInt8>
    /// The next output row to make; a band decode starts it at its band's first row.
    var nextRow = 0
    /// One past the last output row to make: the image's height, or the end of a band.
    var endRow: Int

    init(plan: ScalePlan, colorSpace: JPEGColorSpace, format: PixelFormat, ledger: MemoryLedger) throws(JPEGError) {
        self.plan = plan
        self.colorSpace = colorSpace
        self.format = format
        self.endRow = plan.outputHeight
        let (tempCount, o1) = plan.upsampledWidth.multipliedReportingOverflow(by: plan.components.count)
        let (rowCount, o2) = plan.outputWidth.multipliedReportingOverflow(by: format.bytesPerPixel)
        guard !o1, !o2 else { throw .core(.sizeOverflow) }
        temporary = try core { () throws(CoreError) in try ledger.allocate(UInt8.self, count: tempCount, initialValue: 0) }
        row = try core { () throws(CoreError) in try ledger.allocate(UInt8.self, count: rowCount, initialValue: 0) }
    }

    /// Whether a four-component frame may go out as `cmyk8` ink amounts: not under Embedded
    /// Swift, which has no colour profiles to read them (so its program carries no such path).
    @inline(__always) static var handsOutInks: Bool {
        #if hasFeature(Embedded)
        return false
        #else
        return true
        #endif
    }

    /// The step after each MCU row of a streamed frame, sequential or progressive: places the
    /// buffers at the row's first sample rows, emits every output row the samples so far
    /// complete (all of them after the last MCU row), and returns true if any was emitted.
    /// `keepContextRows` must follow before the next MCU row is written.
    mutating func emitMCURow<Sink: RowSink>(_ mcuRow: Int, _ buffers: inout [ComponentBuffer],
                                            into sink: inout Sink) throws(JPEGError) -> Bool {
        var available = [Int](repeating: 0, count: buffers.count)
        for c in 0 ..< buffers.count {
            let rows = plan.components[c].rowsPerMCURow
            buffers[c].firstRow = mcuRow * rows - 1
            available[c] = (mcuRow + 1) * rows - 1
        }
        let emittedBefore = nextRow
        try emit(buffers, availableThrough: mcuRow == plan.mcuRows - 1 ? nil : available, into: &sink)
        return nextRow > emittedBefore
    }

    /// Moves each component's last sample row to the top of its buffer, where the upsampler
    /// finds it as the row above the next MCU row.
    func keepContextRows(_ buffers: [ComponentBuffer]) {
        for c in 0 ..< buffers.count {
            let b = buffers[c]
            b.storage.baseAddress.update(from: b.storage.baseAddress + plan.components[c].rowsPerMCURow * b.stride,
                                         count: b.stride)
        }
    }

    /// Emits every row whose inputs are available: component c holds rows up to
    /// `availableThrough[c]`, or everything when `availableThrough` is nil.
    mutating func emit<Sink: RowSink>(_ buffers: [ComponentBuffer], availableThrough: [Int]?,
                                      into sink: inout Sink) throws(JPEGError) {
        let width = plan.outputWidth
        while nextRow < endRow {
            let y = nextRow
            if let availableThrough {
                for c in 0 ..< buffers.count where plan.lastRowNeeded(component: c, outputRow: y) > availableThrough[c] {
                    return
                }
            }
            let out = row.baseAddress
            // Each component's row, made once: one call each (a gray frame has one component,
            // a colour one three or four).
            let count = buffers.count
            let a = componentRow(0, y, buffers)
            // One call to the sink for both kinds of row: it is inlined here.
            var made = UnsafeBufferPointer(start: a, count: width)
            if count > 1 {
                let b = componentRow(1, y, buffers), c = componentRow(2, y, buffers)
                if count == 3 {
                    if colorSpace == .rgb {
                        ColorConverter.interleave(a, b, c, count: width, output: out)
                    } else {
                        ColorConverter.yCbCrToRGB(a, b, c, count: width, output: out)
                    }
                } else {
                    let d = componentRow(3, y, buffers)
                    if Self.handsOutInks && format == .cmyk8 {
                        ColorConverter.inkAmounts(a, b, c, d, ycck: colorSpace == .ycck, count: width, output: out)
                    } else if colorSpace == .ycck {
                        ColorConverter.ycckToRGB(a, b, c, d, count: width, output: out)
                    } else {
                        ColorConverter.cmykToRGB(a, b, c, d, count: width, output: out)
                    }
                }
                made = UnsafeBufferPointer(start: out, count: width * format.bytesPerPixel)
            }
            do { try sink.consume(made, at: RowPlacement(y: y, width: width)) } catch { throw .core(error) }
            nextRow += 1
        }
    }

    /// Sends the row emitted last again for every row still to come, for when every one of
    /// them is known to read the same samples (the data ran out; see `JPEGDecoder.decode`).
    /// Call right after `emit`, while its rows are still in `buffers`. Returns how many rows
    /// it sent.
    mutating func repeatLastRow<Sink: RowSink>(_ buffers: [ComponentBuffer], into sink: inout Sink) throws(JPEGError) -> Int {
        guard nextRow > 0 else { return 0 }
        let first = nextRow
        let width = plan.outputWidth
        let last = buffers.count == 1
            ? UnsafeBufferPointer(start: componentRow(0, nextRow - 1, buffers), count: width)
            : UnsafeBufferPointer(start: row.baseAddress, count: width * format.bytesPerPixel)
        while nextRow < plan.outputHeight {
            do { try sink.consume(last, at: RowPlacement(y: nextRow, width: width)) } catch { throw .core(error) }
            nextRow += 1
        }
        return nextRow - first
    }

    /// Component c's samples for output row y, at the output width.
    // Once per row and component, from five places: one copy where code size counts more.
    // `mutating` although it changes nothing but the upsampling row: its callers are, and so it
    // takes the stage by address instead of a copy of it at each call.
    #if hasFeature(Embedded)
    @inline(never)
    #else
    @inline(__always)
    #endif
    private mutating func componentRow(_ c: Int, _ y: Int, _ buffers: [ComponentBuffer]) -> UnsafePointer<UInt8> {
        let p = plan.components[c], buffer = buffers[c]
        let temp = temporary.baseAddress + c * plan.upsampledWidth
        let last = p.height - 1
        switch p.method {
        case .none:
            return UnsafePointer(buffer.row(min(y, last)))
        case .fancyH2V1:
            Upsampler.fancyH2V1(buffer.row(min(y, last)), width: p.width, output: temp)
        case .fancyH1V2, .fancyH2V2:
            let near = min(y >> 1, last)
            let lower = y & 1 == 1
            let far = lower ? min(near + 1, last) : max(near - 1, 0)
            if p.method == .fancyH1V2 {
                Upsampler.fancyH1V2(near: buffer.row(near), far: buffer.row(far), width: p.width, lower: lower, output: temp)
            } else {
                Upsampler.fancyH2V2(near: buffer.row(near), far: buffer.row(far), width: p.width, output: temp)
            }
        case .replicate:
            Upsampler.replicate(buffer.row(min(y / p.verticalFactor, last)), width: p.width, factor: p.horizontalFactor,
                                count: plan.upsampledWidth, output: temp)
        }
        return UnsafePointer(temp)
    }
}
