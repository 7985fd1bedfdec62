import PareCore

/// The dequantisation factors of one segment (RFC 6386 §14.1, §9.6): DC and AC for luma, the
/// second-order luma block (Y2) and chroma.
struct SegmentQuantizer {
    var y1 = (dc: Int32(0), ac: Int32(0))
    var y2 = (dc: Int32(0), ac: Int32(0))
    var uv = (dc: Int32(0), ac: Int32(0))
}

/// The loop filter's parameters for a segment and prediction kind (RFC 6386 §15.1–15.2):
/// edge limit, interior limit and high-edge-variance threshold; `limit` 0 is no filtering.
struct FilterStrength {
    var limit = 0
    var interior = 0
    var hevThreshold = 0
    var inner = false
}

/// A lossy key frame's headers (RFC 6386 §9 and §19.2): the frame tag and start code, the
/// dimensions, then from the first partition the colour space, segmentation, loop filter,
/// token partitions, quantisers, coefficient probability updates and the skip probability.
/// `init` reads the frame tag and the first partition's header through a window
/// (`PartitionWindow`), and the partition sizes: never the whole chunk.
struct VP8FrameHeader {
    /// The file offset of the payload's first byte.
    var fileOffset: Int
    var complete: Bool
    var width = 0, height = 0
    var info: VP8FrameInfo
    /// The first partition's decoder, positioned after the header (the macroblock headers
    /// follow), with its window's buffer, the next payload offset to read into it and the
    /// partition's end.
    var modes: BooleanDecoder
    var modesBuffer: LedgerBuffer<UInt8>
    var modesNextRead: Int
    var modesEnd: Int
    /// The token partitions: start and end offsets in the payload.
    var partitions: [(start: Int, end: Int)] = []
    var segmentMapUpdated = false
    var segmentProbabilities: [UInt8] = [255, 255, 255]
    var quantizers: [SegmentQuantizer] = []
    /// Indexed `segment * 2 + (is4x4 ? 1 : 0)`.
    var filterStrengths: [FilterStrength] = []
    /// 0 none, 1 simple, 2 normal.
    var filterType = 0
    /// [block type][band][context][node], flattened.
    var coefficientProbabilities: [UInt8]
    var skipProbability: UInt8?

    init<Source: ByteSource>(source: Source, chunk: ChunkHeader, ledger: MemoryLedger) throws(WebPError) {
        fileOffset = chunk.payloadOffset
        complete = chunk.isComplete
        let count = chunk.available
        guard count >= 10 else { throw .truncated(what: "VP8 frame header", offset: fileOffset, needed: 10 - count) }
        let p: [UInt8]
        do { p = try source.bytes(at: fileOffset, count: 10) } catch { throw .core(error) }
        // §9.1: the frame tag.
        let tag = Int(p[0]) | Int(p[1]) << 8 | Int(p[2]) << 16
        guard tag & 1 == 0 else { throw .unsupported(feature: "VP8 inter frame", offset: fileOffset) }
        let version = (tag >> 1) & 7
        guard version <= 3 else { throw .invalidVP8(offset: fileOffset, reason: "version \(version)") }
        guard (tag >> 4) & 1 == 1 else { throw .invalidVP8(offset: fileOffset, reason: "frame is not shown") }
        let firstSize = tag >> 5
        guard p[3] == 0x9D, p[4] == 0x01, p[5] == 0x2A else {
            throw .invalidVP8(offset: fileOffset + 3, reason: "missing start code 9D 01 2A")
        }
        let w = Int(p[6]) | Int(p[7]) << 8
        let h = Int(p[8]) | Int(p[9]) << 8
        width = w & 0x3FFF
        height = h & 0x3FFF
        guard width > 0, height > 0 else {
            throw .invalidVP8(offset: fileOffset + 6, reason: "zero width or height (\(width)x\(height))")
        }
        guard firstSize <= count - 10 else {
            if chunk.isComplete {
                throw .invalidVP8(offset: fileOffset, reason: "first partition size \(firstSize) past the chunk's \(count - 10) bytes")
            }
            throw .truncated(what: "VP8 first partition", offset: fileOffset + count, needed: firstSize - (count - 10))
        }
        info = VP8FrameInfo(width: width, height: height, horizontalScale: w >> 14, verticalScale: h >> 14,
                            firstPartitionSize: firstSize, partitionCount: 1, segmentationEnabled: false,
                            segmentMapUpdated: false, segmentDeltas: false, segmentQuantizers: [0, 0, 0, 0],
                            segmentFilterLevels: [0, 0, 0, 0], simpleFilter: false, filterLevel: 0, sharpness: 0,
                            baseQuantizer: 0, colorSpace: 0, clampingRequired: false)
        let (window, opened) = try PartitionWindow.open(source: source, payloadOffset: fileOffset, start: 10,
                                                        end: 10 + firstSize, ledger: ledger)
        var br = opened
        info.colorSpace = br.bit(128) ? 1 : 0
        info.clampingRequired = !br.bit(128)
        // §9.3 segmentation.
        info.segmentationEnabled = br.bit(128)
        if info.segmentationEnabled {
            segmentMapUpdated = br.bit(128)
            let updateData = br.bit(128)
            if updateData {
                info.segmentDeltas = !br.bit(128)
                for s in 0 ..< 4 { info.segmentQuantizers[s] = br.optionalSigned(7) }
                for s in 0 ..< 4 { info.segmentFilterLevels[s] = br.optionalSigned(6) }
            }
            if segmentMapUpdated {
                for i in 0 ..< 3 { segmentProbabilities[i] = br.bit(128) ? UInt8(br.literal(8)) : 255 }
            }
        }
        info.segmentMapUpdated = segmentMapUpdated
        // §9.6 loop filter type, level, sharpness and §9.7 the per-reference and per-mode deltas.
        info.simpleFilter = br.bit(128)
        info.filterLevel = br.literal(6)
        info.sharpness = br.literal(3)
        var referenceDelta = 0, modeDelta = 0
        let useDeltas = br.bit(128)
        if useDeltas && br.bit(128) {
            var ref = [0, 0, 0, 0], mode = [0, 0, 0, 0]
            for i in 0 ..< 4 { ref[i] = br.optionalSigned(6) }
            for i in 0 ..< 4 { mode[i] = br.optionalSigned(6) }
            referenceDelta = ref[0]
            modeDelta = mode[0]
        }
        // §9.5 token partitions.
        let partitionCount = 1 << br.literal(2)
        info.partitionCount = partitionCount
        // §9.6 quantiser indices.
        let base = br.literal(7)
        info.baseQuantizer = base
        let y1dc = br.optionalSigned(4), y2dc = br.optionalSigned(4), y2ac = br.optionalSigned(4)
        let uvdc = br.optionalSigned(4), uvac = br.optionalSigned(4)
        // §9.8: refresh_entropy_probs, of no consequence for a single key frame.
        _ = br.bit(128)
        // §13.4 coefficient probability updates.
        var probabilities = VP8Tables.defaultCoefficientProbabilities
        let updates = VP8Tables.coefficientUpdateProbabilities
        for i in 0 ..< updates.count where br.bit(updates[i]) {
            probabilities[i] = UInt8(br.literal(8))
        }
        coefficientProbabilities = probabilities
        // §9.11 the skip flag's probability.
        if br.bit(128) { skipProbability = UInt8(br.literal(8)) }
        if br.exhausted {
            throw .truncated(what: "VP8 frame header", offset: fileOffset + 10 + firstSize, needed: 1)
        }
        modes = br
        modesBuffer = window.buffer
        modesNextRead = window.nextRead
        modesEnd = window.end
        filterType = info.filterLevel == 0 ? 0 : info.simpleFilter ? 1 : 2
        quantizers = Self.quantizers(info: info, base: base, y1dc: y1dc, y2dc: y2dc, y2ac: y2ac, uvdc: uvdc, uvac: uvac)
        filterStrengths = Self.filterStrengths(info: info, useDeltas: useDeltas, referenceDelta: referenceDelta,
                                               modeDelta: modeDelta)
        // §9.5: the partition sizes, 3 bytes each but for the last, follow the first partition.
        let sizesStart = 10 + firstSize
        let dataStart = sizesStart + 3 * (partitionCount - 1)
        guard dataStart <= count else {
            throw .truncated(what: "VP8 partition sizes", offset: fileOffset + count, needed: dataStart - count)
        }
        let sizes: [UInt8]
        do { sizes = try source.bytes(at: fileOffset + sizesStart, count: dataStart - sizesStart) } catch { throw .core(error) }
        var start = dataStart
        for i in 0 ..< partitionCount {
            var end = count
            if i < partitionCount - 1 {
                let s = 3 * i
                end = min(count, start + (Int(sizes[s]) | Int(sizes[s + 1]) << 8 | Int(sizes[s + 2]) << 16))
            }
            partitions.append((start, end))
            start = end
        }
    }

    /// §9.6, §14.1: each segment's quantiser index (absolute or a delta from the base), each
    /// block kind's index offset by its delta and clamped, looked up. Y2 DC is doubled and Y2
    /// AC scaled by 155/100 with a floor of 8; chroma DC stops at index 117 (a step of 132).
    static func quantizers(info: VP8FrameInfo, base: Int, y1dc: Int, y2dc: Int, y2ac: Int, uvdc: Int,
                           uvac: Int) -> [SegmentQuantizer] {
        func dc(_ q: Int, _ top: Int = 127) -> Int32 { Int32(VP8Tables.dcQuantizerSteps[min(max(q, 0), top)]) }
        func ac(_ q: Int) -> Int32 { Int32(VP8Tables.acQuantizerSteps[min(max(q, 0), 127)]) }
        var result: [SegmentQuantizer] = []
        for s in 0 ..< 4 {
            var q = base
            if info.segmentationEnabled {
                q = info.segmentQuantizers[s] + (info.segmentDeltas ? base : 0)
            }
            var m = SegmentQuantizer()
            m.y1 = (dc(q + y1dc), ac(q))
            m.y2 = (dc(q + y2dc) * 2, max(ac(q + y2ac) * 155 / 100, 8))
            m.uv = (dc(q + uvdc, 117), ac(q + uvac))
            result.append(m)
        }
        return result
    }

    /// §9.6, §15.1–15.2: per segment and per kind of luma prediction, the filter level (the
    /// segment's, plus the intra-frame reference delta, plus the B_PRED mode delta for 4×4
    /// prediction), the interior limit reduced by sharpness, the edge limit and the
    /// high-edge-variance threshold of a key frame.
    static func filterStrengths(info: VP8FrameInfo, useDeltas: Bool, referenceDelta: Int,
                                modeDelta: Int) -> [FilterStrength] {
        var result: [FilterStrength] = []
        for s in 0 ..< 4 {
            var baseLevel = info.filterLevel
            if info.segmentationEnabled {
                baseLevel = info.segmentFilterLevels[s] + (info.segmentDeltas ? info.filterLevel : 0)
            }
            for is4x4 in [false, true] {
                var level = baseLevel
                if useDeltas {
                    level += referenceDelta
                    if is4x4 { level += modeDelta }
                }
                level = min(max(level, 0), 63)
                var strength = FilterStrength()
                strength.inner = is4x4
                if level > 0 {
                    var interior = level
                    if info.sharpness > 0 {
                        interior >>= info.sharpness > 4 ? 2 : 1
                        interior = min(interior, 9 - info.sharpness)
                    }
                    interior = max(interior, 1)
                    strength.interior = interior
                    strength.limit = 2 * level + interior
                    strength.hevThreshold = level >= 40 ? 2 : level >= 15 ? 1 : 0
                }
                result.append(strength)
            }
        }
        return result
    }
}
