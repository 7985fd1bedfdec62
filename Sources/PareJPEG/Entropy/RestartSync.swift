@_spi(Codec) import PareCore

/// The marker at the end of a restart interval (T.81 E.2.4), shared by the sequential and
/// progressive scan decoders.
enum RestartSync {
    /// Drops the padding bits and expects RSTn with n = `next` (the modulo-8 sequence). A
    /// wrong marker is handled as libjpeg's jpeg_resync_to_restart does: a restart one or two
    /// ahead, or any other marker, is left for later (the interval decodes as flat blocks);
    /// one or two behind means stray data, so scan on to the next marker; anything else is
    /// taken as the expected one.
    static func expect(_ next: Int, reader: inout BitReader, log: inout WarningLog) throws(JPEGError) {
        reader.discardBits()
        let expected = Marker.rst0 + UInt8(next)
        var found: UInt8, offset: Int
        if let marker = reader.marker {
            found = marker
            offset = reader.markerOffset
        } else {
            (found, offset) = try nextMarker(&reader, log: &log)
        }
        if found == expected {
            reader.marker = nil
            return
        }
        try log.add(.restartResync(expected: expected, found: found, offset: offset))
        while true {
            let ahead1 = Marker.rst0 + UInt8((next + 1) & 7), ahead2 = Marker.rst0 + UInt8((next + 2) & 7)
            let behind1 = Marker.rst0 + UInt8((next + 7) & 7), behind2 = Marker.rst0 + UInt8((next + 6) & 7)
            if found < 0xC0 || found == behind1 || found == behind2 {
                (found, offset) = try nextMarker(&reader, log: &log)
            } else if !Marker.isRestart(found) || found == ahead1 || found == ahead2 {
                reader.marker = found
                reader.markerOffset = offset
                return
            } else {
                reader.marker = nil
                return
            }
        }
    }

    /// The next marker in the stream (after the bit reader's position), EOI at the end.
    static func nextMarker(_ reader: inout BitReader, log: inout WarningLog) throws(JPEGError) -> (UInt8, Int) {
        var markers = MarkerReader()
        guard let marker = try markers.nextMarker(&reader.stream) else {
            return (Marker.eoi, reader.stream.position)
        }
        if marker.discarded > 0 {
            try log.add(.extraneousBytes(count: marker.discarded, marker: marker.code, offset: marker.offset))
        }
        return (marker.code, marker.offset)
    }
}
