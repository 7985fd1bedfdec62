import Testing
@testable import PareCore
import TestSupport

/// Counts the rows it receives and keeps nothing: lets the ledger see the resampler alone.
private struct CountingSink: RowSink {
    var header: RowStreamHeader?
    var rows = 0
    var checksum = 0

    mutating func begin(_ header: RowStreamHeader) throws(CoreError) { self.header = header }

    mutating func consume(_ row: UnsafeBufferPointer<UInt8>, at placement: RowPlacement) throws(CoreError) {
        rows += 1
        checksum &+= Int(row[0]) &* (placement.y + 1)
    }
}

/// A small deterministic generator, so that "random" test pictures are the same every run.
private struct Noise {
    var state: UInt32
    mutating func next() -> UInt8 {
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}

private let allFilters: [ResamplingFilter] = [.lanczos3, .triangle, .area]

/// Resamples `pixels` (rows top to bottom, no padding) through a `Resampler` into an image.
private func resample(_ pixels: [UInt8], width: Int, height: Int, format: PixelFormat,
                      to outWidth: Int, _ outHeight: Int, filter: ResamplingFilter,
                      ledger: MemoryLedger = MemoryLedger(), plain: Bool = false, box: Bool = true,
                      rows: Int? = nil) throws -> Image {
    var resampler = Resampler(outputWidth: outWidth, outputHeight: outHeight, filter: filter, ledger: ledger,
                              downstream: ImageBuilder(ledger: ledger))
    resampler.usesPlainEngine = plain
    resampler.usesBoxShrink = box
    try resampler.begin(RowStreamHeader(width: width, height: height, format: format))
    let stride = width * format.bytesPerPixel
    try pixels.withUnsafeBufferPointer { (all) throws(CoreError) in
        for y in 0 ..< (rows ?? height) {
            try resampler.consume(UnsafeBufferPointer(rebasing: all[y * stride ..< (y + 1) * stride]),
                              at: RowPlacement(y: y, width: width))
        }
    }
    try resampler.finish()
    return try #require(resampler.downstream.image)
}

/// The same, but delivering the picture as Adam7 passes (PNG specification §8.2).
private func resampleInterlaced(_ pixels: [UInt8], width: Int, height: Int, format: PixelFormat,
                                to outWidth: Int, _ outHeight: Int) throws -> Image {
    let ledger = MemoryLedger()
    var resampler = Resampler(outputWidth: outWidth, outputHeight: outHeight, filter: .lanczos3, ledger: ledger,
                              downstream: ImageBuilder(ledger: ledger))
    try resampler.begin(RowStreamHeader(width: width, height: height, format: format, interlaced: true))
    let bpp = format.bytesPerPixel
    let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    for (x0, y0, dx, dy) in passes {
        for y in stride(from: y0, to: height, by: dy) {
            var row: [UInt8] = []
            for x in stride(from: x0, to: width, by: dx) {
                row += pixels[(y * width + x) * bpp ..< (y * width + x + 1) * bpp]
            }
            guard !row.isEmpty else { continue }
            try row.withUnsafeBufferPointer { (row) throws(CoreError) in
                try resampler.consume(row, at: RowPlacement(y: y, xOrigin: x0, xStep: dx, width: row.count / bpp))
            }
        }
    }
    try resampler.finish()
    return try #require(resampler.downstream.image)
}

@Suite struct ResamplerTests {
    /// The kernels are partitions of unity: away from the edges the raw weights of an output
    /// pixel sum to the stretch (the window covers `stretch` input pixels per unit of kernel),
    /// so the normalisation only corrects the edges and the discretisation.
    /// A shift moves every output's window and weights by that many input pixels: a 2×
    /// reduction shifted by one input pixel equals the unshifted one of the input moved left
    /// by one (away from the edges, where the window is clamped).
    @Test func shiftMovesThePlacement() {
        for filter in [ResamplingFilter.lanczos3, .area] {
            let plain = ResamplingAxis(inputCount: 64, outputCount: 32, filter: filter)
            let shifted = ResamplingAxis(inputCount: 64, outputCount: 32, filter: filter, shift: 1)
            for j in 4 ..< 28 {
                #expect(shifted.window(j).first == plain.window(j).first + 1 && shifted.window(j).last == plain.window(j).last + 1)
                for x in plain.window(j).first ... plain.window(j).last {
                    #expect(abs(shifted.weight(j, x + 1) - plain.weight(j, x)) < 1e-12, "\(filter) \(j) \(x)")
                }
            }
        }
    }

    @Test func weightsSumToOne() {
        for filter in allFilters {
            for (input, output) in [(1000, 100), (640, 256), (97, 13), (50, 50), (10, 37), (3, 64)] {
                let axis = ResamplingAxis(inputCount: input, outputCount: output, filter: filter)
                let stretch = max(1, axis.scale)
                for j in 0 ..< output {
                    let window = axis.window(j)
                    #expect(window.first >= 0 && window.last < input && window.first <= window.last)
                    var sum = 0.0
                    for x in window.first ... window.last { sum += axis.weight(j, x) }
                    let centre = (Double(j) + 0.5) * axis.scale
                    let interior = centre - axis.radius >= 0 && centre + axis.radius <= Double(input)
                    if filter == .area {
                        #expect(abs(sum - axis.scale) < 1e-9, "\(filter) \(input)→\(output) j=\(j)")
                    } else if interior {
                        #expect(abs(sum / stretch - 1) < 0.02, "\(filter) \(input)→\(output) j=\(j): \(sum)")
                    } else {
                        #expect(sum > 0)
                    }
                }
            }
        }
    }

    /// The ring of open output rows (and the interlaced column table) is sized by
    /// `maxOutputsPerInput`: no input row may ever feed more output rows than that.
    @Test func openRowBoundHolds() {
        for filter in allFilters {
            for input in [1, 2, 3, 7, 10, 33, 100, 257, 1000] {
                for output in [1, 2, 3, 5, 16, 64, 99, 256, 1000] {
                    let axis = ResamplingAxis(inputCount: input, outputCount: output, filter: filter)
                    let windows = (0 ..< output).map(axis.window)
                    for y in 0 ..< input {
                        let open = windows.filter { $0.first <= y && $0.last >= y }.count
                        #expect(open <= axis.maxOutputsPerInput, "\(filter) \(input)→\(output) y=\(y)")
                        if filter == .area {
                            let cells = axis.outputsCovering(y)
                            #expect(cells.last - cells.first + 1 <= axis.maxOutputsPerInput)
                            #expect(cells.first == windows.firstIndex { $0.last >= y })
                        }
                    }
                }
            }
        }
    }

    /// The fixed-point engine (vertical pass first, 16-bit lanes) against the plain one
    /// (horizontal first, Float): the same sums in another order and another arithmetic, so
    /// within one level at every sample, for every filter and layout, shrinking, enlarging and
    /// mixed, on noise (the worst case for rounding) and on a picture with hard edges (the worst
    /// case for ringing). Formats with alpha go through the plain engine on both sides.
    @Test func fixedPointEngineAgreesWithPlainEngine() throws {
        var noise = Noise(state: 4242)
        let sizes = [(301, 211, 154, 108), (97, 61, 33, 29), (40, 30, 97, 71), (64, 48, 64, 20), (13, 200, 40, 9),
                     (1, 17, 3, 5), (250, 1, 7, 1)]
        var differing = 0, total = 0
        for filter in allFilters {
            for format in [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8, .rgb16] {
                for (w, h, ow, oh) in sizes {
                    for edges in [false, true] {
                        let bpp = format.bytesPerPixel
                        var pixels = [UInt8](repeating: 0, count: w * h * bpp)
                        for i in 0 ..< pixels.count {
                            let x = i / bpp % w, y = i / (w * bpp)
                            pixels[i] = edges ? ((x / 5 + y / 7) % 2 == 0 ? 250 : 3) : noise.next()
                        }
                        let fast = try resample(pixels, width: w, height: h, format: format, to: ow, oh, filter: filter)
                        let plain = try resample(pixels, width: w, height: h, format: format, to: ow, oh, filter: filter,
                                                 plain: true)
                        let a = fast.pixels, b = plain.pixels
                        #expect(a.count == b.count)
                        let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
                        #expect(worst <= 1, "\(filter) \(format) \(w)×\(h)→\(ow)×\(oh): differs by \(worst)")
                        differing += zip(a, b).filter { $0 != $1 }.count
                        total += a.count
                    }
                }
            }
        }
        // Off by one only where a sum lands within the rounding of a half: Q14 weights and a
        // Q6 intermediate row against Float (0.21% of these samples).
        #expect(differing * 1000 < total * 3, "\(differing) of \(total) samples differ")
    }

    /// Rows skipped in the middle and a stream cut short are filled by repeating the last row
    /// that came, the same way in both engines (the fixed-point one keeps rows in groups of
    /// four, so a repeated row may have to come from the group before).
    @Test func enginesFillGapsAlike() throws {
        var noise = Noise(state: 99)
        for (w, h, ow, oh) in [(37, 41, 11, 9), (20, 25, 4, 5), (16, 9, 40, 30)] {
            for format in [PixelFormat.gray8, .rgb8] {
                let pixels = (0 ..< w * h * format.bytesPerPixel).map { _ in noise.next() }
                var images: [Image] = []
                for plain in [false, true] {
                    let ledger = MemoryLedger()
                    var resampler = Resampler(outputWidth: ow, outputHeight: oh, filter: .lanczos3, ledger: ledger,
                                              downstream: ImageBuilder(ledger: ledger))
                    resampler.usesPlainEngine = plain
                    try resampler.begin(RowStreamHeader(width: w, height: h, format: format))
                    let stride = w * format.bytesPerPixel
                    try pixels.withUnsafeBufferPointer { (all) throws(CoreError) in
                        // Rows 3, 4, 9…12 and everything after 2h/3 never come.
                        for y in 0 ..< 2 * h / 3 where !(3 ... 4).contains(y) && !(9 ... 12).contains(y) {
                            try resampler.consume(UnsafeBufferPointer(rebasing: all[y * stride ..< (y + 1) * stride]),
                                              at: RowPlacement(y: y, width: w))
                        }
                    }
                    try resampler.finish()
                    images.append(try #require(resampler.downstream.image))
                }
                let worst = zip(images[0].pixels, images[1].pixels).map { abs(Int($0) - Int($1)) }.max() ?? 99
                #expect(images[0].pixels.count == ow * oh * format.channels && worst <= 1, "\(format) \(w)×\(h)")
            }
        }
    }

    /// The comparison above holds the fixed-point engine to the plain one only if it runs:
    /// it takes every opaque layout, 8- and 16-bit, at every filter and ratio used there, and
    /// leaves alpha to the plain engine.
    @Test func fixedPointEngineTakesOpaquePictures() {
        for filter in allFilters {
            for (w, h, ow, oh) in [(301, 211, 154, 108), (40, 30, 97, 71), (4000, 3000, 1024, 768), (1, 17, 3, 5)] {
                for format in [PixelFormat.gray8, .rgb8, .gray16, .rgb16, .grayAlpha8, .rgba8] {
                    let geometry = ResamplingGeometry(input: RowStreamHeader(width: w, height: h, format: format),
                                                      outputWidth: ow, outputHeight: oh, filter: filter)
                    #expect(FixedPointResampler.fits(geometry) == !format.hasAlpha, "\(filter) \(format) \(w)×\(h)")
                }
            }
        }
    }

    @Test func sinPiIsAccurate() {
        #expect(sinPi(0) == 0 && sinPi(1) == 0 && sinPi(2) == 0 && sinPi(-3) == 0)
        #expect(abs(sinPi(0.5) - 1) < 1e-12)
        #expect(abs(sinPi(1.0 / 6) - 0.5) < 1e-12)
        #expect(abs(sinPi(-2.25) + 0.70710678118654752) < 1e-12)
    }

    @Test func constantImageStaysConstant() throws {
        let cases: [(PixelFormat, [UInt8])] = [
            (.gray8, [77]), (.grayAlpha8, [200, 90]), (.rgb8, [12, 130, 250]), (.rgba8, [40, 180, 220, 128]),
        ]
        let sizes = [(37, 23, 5, 4), (10, 10, 10, 10), (7, 5, 19, 13), (100, 3, 9, 2), (1, 1, 3, 2), (64, 48, 32, 24)]
        for filter in allFilters {
            for (format, pixel) in cases {
                for (w, h, ow, oh) in sizes {
                    let pixels = Array([[UInt8]](repeating: pixel, count: w * h).joined())
                    let image = try resample(pixels, width: w, height: h, format: format, to: ow, oh, filter: filter)
                    #expect(image.width == ow && image.height == oh && image.format == format)
                    #expect(image.pixels == Array([[UInt8]](repeating: pixel, count: ow * oh).joined()),
                            "\(filter) \(format) \(w)×\(h)→\(ow)×\(oh)")
                }
            }
        }
    }

    @Test func areaHalvingIsTheTwoByTwoMean() throws {
        var noise = Noise(state: 7)
        let (w, h) = (6, 4)
        let pixels = (0 ..< w * h * 3).map { _ in noise.next() }
        let image = try resample(pixels, width: w, height: h, format: .rgb8, to: 3, 2, filter: .area)
        var expected: [UInt8] = []
        for y in 0 ..< 2 {
            for x in 0 ..< 3 {
                for c in 0 ..< 3 {
                    var sum = 0
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        sum += Int(pixels[((2 * y + dy) * w + 2 * x + dx) * 3 + c])
                    }
                    expected.append(UInt8((sum + 2) / 4))
                }
            }
        }
        #expect(image.pixels == expected)
    }

    /// Area shrinking by a fraction weights the pixels the cell edges cut: 3 → 2 gives
    /// (a + b/2)/1.5 and (b/2 + c)/1.5.
    @Test func areaUsesFractionalCoverage() throws {
        let image = try resample([30, 90, 150], width: 3, height: 1, format: .gray8, to: 2, 1, filter: .area)
        #expect(image.pixels == [50, 130])
    }

    @Test func identitySizeKeepsEveryPixel() throws {
        var noise = Noise(state: 99)
        let pixels = (0 ..< 13 * 9 * 4).map { _ in noise.next() | 1 }
        for filter in allFilters {
            // Opaque alpha, so that premultiplying is exactly reversible.
            var opaque = pixels
            for i in stride(from: 3, to: opaque.count, by: 4) { opaque[i] = 255 }
            let image = try resample(opaque, width: 13, height: 9, format: .rgba8, to: 13, 9, filter: filter)
            #expect(image.pixels == opaque, "\(filter)")
        }
    }

    /// A linear ramp is reproduced by every filter away from the edges: pixel x holds 4x + 1,
    /// so output i (centre at input 4i + 1.5 in pixel indices) should be 16i + 7.
    @Test func lanczosFollowsASmoothGradient() throws {
        let (w, h) = (64, 8)
        var pixels: [UInt8] = []
        for _ in 0 ..< h { for x in 0 ..< w { pixels.append(UInt8(4 * x + 1)) } }
        for filter in allFilters {
            let image = try resample(pixels, width: w, height: h, format: .gray8, to: 16, 2, filter: filter)
            for y in 0 ..< 2 {
                for i in 3 ..< 13 {   // outputs whose window lies inside the picture
                    let value = Int(image.row(y)[i])
                    #expect(abs(value - (16 * i + 7)) <= 1, "\(filter) x=\(i): \(value)")
                }
            }
        }
        // Enlarging a ramp by 4 interpolates it: output i sits at input (i + 0.5)/4 − 0.5.
        let small = (0 ..< 16).map { UInt8(16 * $0) }
        let big = try resample(small, width: 16, height: 1, format: .gray8, to: 64, 1, filter: .lanczos3)
        for i in 12 ..< 52 {
            let expected = 16 * ((Double(i) + 0.5) / 4 - 0.5)
            #expect(abs(Double(big.row(0)[i]) - expected) <= 1, "x=\(i)")
        }
    }

    /// Opaque red beside transparent black: filtered naively, the black would bleed in and
    /// darken the red; premultiplied, every pixel that has any alpha stays pure red.
    @Test func alphaEdgesDoNotDarken() throws {
        let (w, h) = (12, 6)
        var pixels: [UInt8] = []
        for _ in 0 ..< h {
            for x in 0 ..< w { pixels += x < 5 ? [255, 0, 0, 255] : [0, 0, 0, 0] }
        }
        for filter in allFilters {
            for (ow, oh) in [(5, 3), (4, 2), (7, 6), (25, 9)] {
                let image = try resample(pixels, width: w, height: h, format: .rgba8, to: ow, oh, filter: filter)
                var sawEdge = false
                for y in 0 ..< oh {
                    let row = image.row(y)
                    for x in 0 ..< ow where row[4 * x + 3] > 0 {
                        #expect(row[4 * x] == 255 && row[4 * x + 1] == 0 && row[4 * x + 2] == 0,
                                "\(filter) \(ow)×\(oh) at \(x),\(y): \(Array(row[4 * x ..< 4 * x + 4]))")
                        if row[4 * x + 3] < 255 { sawEdge = true }
                    }
                }
                #expect(sawEdge, "\(filter) \(ow)×\(oh) has a partly transparent edge")
            }
        }
        let interlaced = try resampleInterlaced(pixels, width: w, height: h, format: .rgba8, to: 5, 3)
        for x in 0 ..< 5 where interlaced.row(1)[4 * x + 3] > 0 {
            #expect(interlaced.row(1)[4 * x] == 255)
        }
    }

    /// Shrinking W × H: the ledger's peak is the same for two heights (rows are fed one at a
    /// time, nothing holds the input), stays under the bound documented on `Resampler`, and
    /// the process heap agrees with the ledger.
    @Test func memoryDoesNotGrowWithInputHeight() throws {
        let (w, ow, oh) = (600, 64, 48)
        var peaks: [Int] = []
        for h in [400, 1600] {
            for filter in allFilters {
                let ledger = MemoryLedger()
                let (sink, heap) = try HeapMeter.peakGrowth(ledger: ledger) { () throws -> CountingSink in
                    var resampler = Resampler(outputWidth: ow, outputHeight: oh, filter: filter, ledger: ledger,
                                              downstream: CountingSink())
                    try resampler.begin(RowStreamHeader(width: w, height: h, format: .rgb8))
                    var row = [UInt8](repeating: 0, count: w * 3)
                    for y in 0 ..< h {
                        for i in 0 ..< row.count { row[i] = UInt8(truncatingIfNeeded: i &+ y) }
                        try row.withUnsafeBufferPointer { (row) throws(CoreError) in try resampler.consume(row, at: RowPlacement(y: y, width: w)) }
                    }
                    try resampler.finish()
                    return resampler.downstream
                }
                #expect(sink.rows == oh)
                let sx = Double(w) / Double(ow), sy = Double(h) / Double(oh)
                let radius = filter.support * max(1, sx)
                let taps = filter == .area ? Int(sx.rounded(.up)) + 1 : Int(2 * radius) + 1
                // The fixed-point engine's bound (on `Resampler`): groups of four input rows.
                let span = filter == .area ? 1 : 2 * filter.support * max(1, sy) + 1
                let open = Int((span + 3) / sy) + 2
                let (padded, taps8) = ((w * 3 + 7) & ~7, (taps + 7) & ~7)
                let bound = 4 * padded * (open + 3) + 2 * 3 * (w + taps8)
                    + ow * (2 * MemoryLayout<Int>.size + 2 * taps8 + 3) + 3 + 40 * open
                #expect(ledger.peakBytes <= bound, "\(filter) h=\(h): \(ledger.peakBytes) > \(bound)")
                if let heap {
                    #expect(heap <= ledger.peakBytes + 16_384, "\(filter) h=\(h): heap \(heap), ledger \(ledger.peakBytes)")
                }
                peaks.append(ledger.peakBytes)
            }
        }
        #expect(Array(peaks[0 ..< 3]) == Array(peaks[3 ..< 6]))
        // Lanczos3 at ~9.4:1 across: under 128 KiB (eight open rows of 600 pixels), for any height.
        #expect(peaks[0] < 128 * 1024)
    }

    /// Adam7 passes, accumulated straight into output cells, give the area filter over the
    /// whole picture: bit for bit when the ratio makes every weight a power of two, and within
    /// one level (Float summation order) otherwise.
    @Test func interlacedEqualsAreaFilter() throws {
        var noise = Noise(state: 2024)
        for (format, w, h, ow, oh, exact) in [
            (PixelFormat.rgba8, 16, 16, 4, 4, true), (.rgb8, 32, 24, 8, 6, true), (.gray8, 16, 8, 16, 8, true),
            (.rgba8, 37, 29, 10, 7, false), (.grayAlpha8, 23, 41, 6, 11, false), (.rgb8, 5, 3, 12, 7, false),
        ] {
            var pixels = (0 ..< w * h * format.bytesPerPixel).map { _ in noise.next() }
            if format == .rgba8 { for i in stride(from: 3, to: pixels.count, by: 8) { pixels[i] = 0 } }
            let sequential = try resample(pixels, width: w, height: h, format: format, to: ow, oh, filter: .area)
            let interlaced = try resampleInterlaced(pixels, width: w, height: h, format: format, to: ow, oh)
            #expect(interlaced.width == ow && interlaced.height == oh && interlaced.format == format)
            let a = sequential.pixels, b = interlaced.pixels
            let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
            if exact {
                #expect(a == b, "\(format) \(w)×\(h)→\(ow)×\(oh)")
            } else {
                #expect(worst <= 1, "\(format) \(w)×\(h)→\(ow)×\(oh): differs by \(worst)")
            }
        }
    }

    /// A stream that stops early still yields every output row (the last row repeated), and
    /// `finish()` twice is harmless.
    @Test func finishCompletesATruncatedStream() throws {
        let ledger = MemoryLedger()
        var resampler = Resampler(outputWidth: 4, outputHeight: 5, filter: .lanczos3, ledger: ledger,
                                  downstream: CountingSink())
        try resampler.begin(RowStreamHeader(width: 20, height: 25, format: .gray8))
        let row = [UInt8](repeating: 60, count: 20)
        for y in 0 ..< 18 {
            try row.withUnsafeBufferPointer { (row) throws(CoreError) in try resampler.consume(row, at: RowPlacement(y: y, width: 20)) }
        }
        // Output row 0 (centre 2.5, reach ±15) needs input rows up to 17.
        #expect(resampler.downstream.rows == 1)
        try resampler.finish()
        try resampler.finish()
        #expect(resampler.downstream.rows == 5)
        #expect(resampler.downstream.checksum == 60 * (1 + 2 + 3 + 4 + 5))
    }

    /// Rows are emitted as soon as their input has arrived, not at the end.
    @Test func rowsStreamOut() throws {
        let ledger = MemoryLedger()
        var resampler = Resampler(outputWidth: 10, outputHeight: 10, filter: .triangle, ledger: ledger,
                                  downstream: CountingSink())
        try resampler.begin(RowStreamHeader(width: 100, height: 100, format: .rgb8))
        let row = [UInt8](repeating: 1, count: 300)
        for y in 0 ..< 50 {
            try row.withUnsafeBufferPointer { (row) throws(CoreError) in try resampler.consume(row, at: RowPlacement(y: y, width: 100)) }
        }
        // Output row j (centre 10j + 5, reach ±10) is complete once input row 10j + 14 is in.
        #expect(resampler.downstream.rows == 4)
    }

    @Test func sixteenBitInputComesOutEightBit() throws {
        let pixels: [UInt8] = [0xFF, 0xFF, 0x80, 0x00, 0xFF, 0xFF, 0x80, 0x00]
        let image = try resample(pixels, width: 2, height: 1, format: .gray16, to: 1, 1, filter: .area)
        #expect(image.format == .gray8)
        #expect(image.pixels == [191])   // (255 + 32768/257) / 2 = 191.25
    }

    @Test func emptySizesAreRefused() {
        let ledger = MemoryLedger()
        var resampler = Resampler(outputWidth: 0, outputHeight: 5, filter: .area, ledger: ledger,
                                  downstream: CountingSink())
        #expect(throws: CoreError.sizeOverflow) {
            try resampler.begin(RowStreamHeader(width: 10, height: 10, format: .rgb8))
        }
        var limited = Resampler(outputWidth: 100, outputHeight: 100, filter: .area, ledger: MemoryLedger(limit: 1000),
                                downstream: CountingSink())
        #expect(throws: CoreError.self) {
            try limited.begin(RowStreamHeader(width: 1000, height: 1000, format: .rgb8))
        }
    }
}

/// The box before the filter on large reductions (`BoxShrink`).
@Suite struct BoxShrinkTests {
    /// Each output sample is its box's mean, rounded; the last box of a row and of a column
    /// is partial and averages the pixels it has.
    @Test func boxesAreMeans() throws {
        let width = 7, height = 5
        let pixels = (0 ..< width * height).map { UInt8(($0 * 37) % 251) }
        var shrink = try BoxShrink(input: RowStreamHeader(width: width, height: height, format: .gray8),
                                   factorX: 3, factorY: 2, ledger: MemoryLedger())
        #expect(shrink.outputWidth == 3 && shrink.outputHeight == 3)
        #expect(shrink.span == BoxShrink.Span(width: 7.0 / 3, height: 2.5))
        var out: [[UInt8]] = []
        var ys: [Int] = []
        try pixels.withUnsafeBufferPointer { (all) throws(CoreError) in
            for y in 0 ..< height {
                try shrink.add(UnsafeBufferPointer(rebasing: all[y * width ..< (y + 1) * width]),
                               at: RowPlacement(y: y, width: width)) { (y, row) throws(CoreError) in
                    ys.append(y)
                    out.append(Array(row))
                }
            }
            try shrink.finish { (_, _) throws(CoreError) in Issue.record("a complete stream left a box row open") }
        }
        #expect(ys == [0, 1, 2])
        for by in 0 ..< 3 {
            for bx in 0 ..< 3 {
                var total = 0, n = 0
                for y in 2 * by ..< min(height, 2 * by + 2) {
                    for x in 3 * bx ..< min(width, 3 * bx + 3) {
                        total += Int(pixels[y * width + x])
                        n += 1
                    }
                }
                let mean = (Double(total) / Double(n)).rounded()
                #expect(Double(out[by][bx]) == mean, "box \(bx), \(by)")
            }
        }
    }

    /// Only reductions by 4 or more each way, or on one axis, of 8-bit pictures without
    /// alpha get a box, whose factors leave the filter a factor of at least two.
    @Test func factors() {
        func factors(_ w: Int, _ h: Int, _ ow: Int, _ oh: Int, _ format: PixelFormat = .rgb8,
                     _ filter: ResamplingFilter = .lanczos3) -> [Int]? {
            BoxShrink.factors(for: RowStreamHeader(width: w, height: h, format: format), outputWidth: ow,
                              outputHeight: oh, filter: filter).map { [$0.x, $0.y] }
        }
        #expect(factors(4000, 3000, 256, 192) == [7, 7])
        #expect(factors(4000, 3000, 1024, 768) == nil)
        #expect(factors(4000, 3000, 1000, 750) == [2, 2])
        #expect(factors(4000, 300, 256, 192) == [7, 1])
        // At most 257 rows a box, so that 16-bit column sums hold them.
        #expect(factors(100, 100_000, 10, 10) == [5, 257])
        #expect(factors(4000, 3000, 256, 192, .rgba8) == nil)
        #expect(factors(4000, 3000, 256, 192, .rgb16) == nil)
        #expect(factors(4000, 3000, 256, 192, .rgb8, .area) == nil)
    }

    /// The box and the filter against the filter alone: a photo-like picture (smooth
    /// gradients with a little grain) reduced 10× with boxes that do not divide it agrees
    /// within a few levels everywhere, edges included (the span keeps the output pixels
    /// where the filter alone puts them).
    @Test(arguments: [ResamplingFilter.lanczos3, .triangle])
    func agreesWithTheFilterAlone(filter: ResamplingFilter) throws {
        let width = 1003, height = 707
        var noise = Noise(state: 7)
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 3)
        for y in 0 ..< height {
            for x in 0 ..< width {
                let grain = Int(noise.next() % 9) - 4
                pixels.append(UInt8(clamping: x * 255 / width + grain))
                pixels.append(UInt8(clamping: y * 255 / height + grain))
                pixels.append(UInt8(clamping: 68 + 3 * abs((x + y) % 80 - 40) + grain))
            }
        }
        let boxed = try resample(pixels, width: width, height: height, format: .rgb8, to: 100, 70, filter: filter)
        let alone = try resample(pixels, width: width, height: height, format: .rgb8, to: 100, 70, filter: filter, box: false)
        var largest = 0, total = 0
        for y in 0 ..< 70 {
            let a = boxed.withRow(y) { Array($0) }, b = alone.withRow(y) { Array($0) }
            for i in 0 ..< a.count {
                let d = abs(Int(a[i]) - Int(b[i]))
                largest = max(largest, d)
                total += d
            }
        }
        #expect(largest <= 3)
        #expect(Double(total) / Double(100 * 70 * 3) < 0.5)
    }

    /// A stream cut short still gives every output row: the last box row has the rows that
    /// came, and the engine repeats the last row it has below it (each engine, with and
    /// without the box).
    @Test(arguments: [(false, true), (true, true), (false, false), (true, false)])
    func truncatedStream(plain: Bool, box: Bool) throws {
        let width = 900, height = 600
        let pixels = [UInt8](repeating: 90, count: width * height)
        let image = try resample(pixels, width: width, height: height, format: .gray8, to: 90, 60, filter: .lanczos3,
                                 plain: plain, box: box, rows: 333)
        #expect(image.height == 60)
        for y in [0, 33, 34, 59] {
            #expect(image.withRow(y) { Array($0) } == [UInt8](repeating: 90, count: 90), "row \(y)")
        }
    }

    /// Rows skipped in the middle (a damaged stream) are the row before them, repeated, in
    /// every output row they feed, however long the gap.
    @Test(arguments: [(false, true), (true, true), (false, false), (true, false)])
    func gapInTheStream(plain: Bool, box: Bool) throws {
        let width = 900, height = 600
        let row = [UInt8](repeating: 90, count: width)
        let ledger = MemoryLedger()
        var resampler = Resampler(outputWidth: 90, outputHeight: 60, filter: .lanczos3, ledger: ledger,
                                  downstream: ImageBuilder(ledger: ledger))
        resampler.usesPlainEngine = plain
        resampler.usesBoxShrink = box
        try resampler.begin(RowStreamHeader(width: width, height: height, format: .gray8))
        try row.withUnsafeBufferPointer { (row) throws(CoreError) in
            for y in Array(0 ..< 100) + Array(500 ..< 600) {
                try resampler.consume(row, at: RowPlacement(y: y, width: width))
            }
        }
        try resampler.finish()
        let image = try #require(resampler.downstream.image)
        for y in 0 ..< 60 {
            #expect(image.withRow(y) { Array($0) } == [UInt8](repeating: 90, count: 90), "row \(y)")
        }
    }
}
