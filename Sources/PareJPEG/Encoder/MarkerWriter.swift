import PareCore

extension Marker {
    /// Start of frame, baseline DCT (T.81 Table B.1).
    static let sof0: UInt8 = 0xC0
    /// Start of frame, extended sequential DCT: needed when a quantisation table has 16-bit values.
    static let sof1: UInt8 = 0xC1
    /// Start of frame, progressive DCT.
    static let sof2: UInt8 = 0xC2
    /// APP2, where ICC.1 Annex B.4 puts an embedded profile.
    static let app2: UInt8 = 0xE2
}

/// One component as the frame header names it (T.81 B.2.2) and the tables its scans use.
struct EncoderComponent {
    /// Ci: 1, 2, 3 for Y, Cb, Cr as JFIF numbers them.
    var id: UInt8
    var h: Int
    var v: Int
    /// Tq, and the Huffman table destinations Td / Ta of T.81 B.2.3.
    var quantTable: Int
    var huffmanTable: Int
}

/// Writes the marker segments of T.81 Annex B (and JFIF's APP0, ICC.1's APP2) in the order
/// libjpeg's cjpeg writes them, so that files can be compared whole: SOI, APP0, APP2…,
/// DQT per table, SOFn, then per scan DHT per table, DRI when the interval changes, SOS;
/// RSTn between restart intervals; EOI.
enum MarkerWriter {
    static func marker<S>(_ code: UInt8, to out: inout BitWriter<S>) {
        out.writeByte(0xFF)
        out.writeByte(code)
    }

    /// A segment: marker, Lp (which counts itself, T.81 B.1.1.4), parameters.
    static func segment<S>(_ code: UInt8, _ parameters: [UInt8], to out: inout BitWriter<S>) {
        marker(code, to: &out)
        out.writeUInt16(parameters.count + 2)
        out.writeBytes(parameters)
    }

    /// JFIF 1.02 §"JPEG File Interchange Format": "JFIF\0", version 1.01 (what libjpeg
    /// writes), density unit 0 with a 1:1 aspect ratio, no thumbnail.
    static func jfif<S>(to out: inout BitWriter<S>) {
        segment(Marker.app0, [0x4A, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0], to: &out)
    }

    /// Most profile bytes one APP2 segment carries: 65,535 − Lp (2) − "ICC_PROFILE\0" (12)
    /// − sequence number and count (2) (ICC.1 Annex B.4).
    static var iccChunkSize: Int { 65519 }

    /// ICC.1 Annex B.4: the profile split into APP2 segments, each "ICC_PROFILE\0", its
    /// 1-based sequence number and the number of segments. At most 255 segments.
    static func iccProfile<S>(_ profile: [UInt8], to out: inout BitWriter<S>) {
        let count = (profile.count + iccChunkSize - 1) / iccChunkSize
        for index in 0 ..< count {
            let start = index * iccChunkSize, end = min(profile.count, start + iccChunkSize)
            marker(Marker.app2, to: &out)
            out.writeUInt16(2 + 14 + end - start)
            out.writeBytes(Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(count)])
            for i in start ..< end { out.writeByte(profile[i]) }
        }
    }

    /// DQT with one table (T.81 B.2.4.1): Pq = 1 (16-bit values) only when a value needs it;
    /// values in zig-zag order.
    static func quantizationTable<S>(id: Int, naturalValues: [UInt16], to out: inout BitWriter<S>) {
        let wide = naturalValues.contains { $0 > 255 }
        var parameters: [UInt8] = [UInt8((wide ? 0x10 : 0) | id)]
        for k in 0 ..< 64 {
            let value = naturalValues[ZigZag.naturalOrder[k]]
            if wide { parameters.append(UInt8(value >> 8)) }
            parameters.append(UInt8(truncatingIfNeeded: value))
        }
        segment(Marker.dqt, parameters, to: &out)
    }

    /// SOFn (T.81 B.2.2): P = 8, Y, X, Nf, then Ci, Hi|Vi, Tqi per component.
    static func frame<S>(marker code: UInt8, width: Int, height: Int, components: [EncoderComponent],
                         to out: inout BitWriter<S>) {
        var parameters: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8),
                                   UInt8(width & 0xFF), UInt8(components.count)]
        for c in components {
            parameters += [c.id, UInt8(c.h << 4 | c.v), UInt8(c.quantTable)]
        }
        segment(code, parameters, to: &out)
    }

    /// DHT with one table (T.81 B.2.4.2): Tc|Th, BITS, HUFFVAL.
    static func huffmanTable<S>(tableClass: Int, id: Int, _ table: HuffmanTable, to out: inout BitWriter<S>) {
        segment(Marker.dht, [UInt8(tableClass << 4 | id)] + table.counts + table.symbols, to: &out)
    }

    /// DRI (T.81 B.2.4.4): Ri, the MCUs per restart interval.
    static func restartInterval<S>(_ interval: Int, to out: inout BitWriter<S>) {
        segment(Marker.dri, [UInt8(interval >> 8), UInt8(interval & 0xFF)], to: &out)
    }

    /// SOS (T.81 B.2.3): Ns, Csj|Tdj Taj, Ss, Se, Ah|Al. A progressive scan uses only DC or
    /// only AC tables (a DC refinement none); the unused selectors are written as 0.
    static func scan<S>(components: [EncoderComponent], ss: Int, se: Int, ah: Int, al: Int, progressive: Bool,
                        to out: inout BitWriter<S>) {
        var parameters: [UInt8] = [UInt8(components.count)]
        for c in components {
            var td = c.huffmanTable, ta = c.huffmanTable
            if progressive {
                if ss == 0 {
                    ta = 0
                    if ah != 0 { td = 0 }
                } else {
                    td = 0
                }
            }
            parameters += [c.id, UInt8(td << 4 | ta)]
        }
        parameters += [UInt8(ss), UInt8(se), UInt8(ah << 4 | al)]
        segment(Marker.sos, parameters, to: &out)
    }
}
