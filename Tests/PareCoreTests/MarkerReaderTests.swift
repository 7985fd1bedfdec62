@_spi(Codec) import PareCore
import Testing

/// The marker reader (T.81 B.1.1.2–B.1.1.4) over the windowed byte stream.
@Suite struct MarkerReaderTests {
    static func stream(_ bytes: [UInt8], window: Int = ByteStream.defaultWindowSize) throws -> ByteStream {
        try ByteStream(source: MemoryByteSource(bytes), ledger: MemoryLedger(), windowSize: window)
    }

    /// Every marker of `bytes` after SOI with its segment, as (code, offset, discarded,
    /// length or nil).
    static func walk(_ bytes: [UInt8], window: Int = ByteStream.defaultWindowSize,
                     reader: MarkerReader = MarkerReader()) throws -> [(UInt8, Int, Int, Int?)] {
        var stream = try stream(bytes, window: window)
        var reader = reader
        #expect(try MarkerReader.readSOI(&stream))
        var found: [(UInt8, Int, Int, Int?)] = []
        while let marker = try reader.next(&stream) {
            if JPEGMarker.isStandalone(marker.code) {
                found.append((marker.code, marker.offset, marker.discarded, nil))
                if marker.code == JPEGMarker.eoi { break }
            } else {
                found.append((marker.code, marker.offset, marker.discarded,
                              try MarkerReader.segment(&stream, of: marker).length))
            }
        }
        return found
    }

    @Test func findsMarkersAfterFillBytesAndReadsTheirSegments() throws {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFF, 0xFF, 0xE1, 0x00, 0x04, 0xAA, 0xBB, 0xFF, 0xD0, 0xFF, 0xD9]
        var stream = try Self.stream(bytes)
        var reader = MarkerReader()
        #expect(try MarkerReader.readSOI(&stream))
        let app1 = try #require(try reader.next(&stream))
        // The marker's offset is that of the 0xFF just before its code; fill bytes are not discarded.
        #expect(app1 == FoundMarker(code: 0xE1, offset: 4, discarded: 0))
        let segment = try MarkerReader.segment(&stream, of: app1)
        #expect(segment.marker == app1 && segment.length == 4 && segment.payloadOffset == 8 && segment.payloadLength == 2)
        #expect(segment.bytes == [0xAA, 0xBB])
        #expect(try reader.next(&stream) == FoundMarker(code: 0xD0, offset: 10, discarded: 0))
        #expect(try reader.next(&stream) == FoundMarker(code: 0xD9, offset: 12, discarded: 0))
        #expect(try reader.next(&stream) == nil)
        // RST0 counted, the closing EOI not; the fill bytes were skipped.
        #expect(reader.markers == 2 && reader.skippedBytes == 2)
    }

    @Test func countsStrayBytesAsLibjpegDoes() throws {
        // Two stray bytes, a 0xFF 0x00 pair (two more), one more, then SOF0.
        let bytes: [UInt8] = [0xFF, 0xD8, 0x00, 0x11, 0xFF, 0x00, 0x22, 0xFF, 0xC0, 0x00, 0x02]
        let found = try Self.walk(bytes)
        #expect(found.count == 1)
        #expect(found[0].0 == 0xC0 && found[0].1 == 7 && found[0].2 == 5 && found[0].3 == 2)
    }

    @Test func notSOI() throws {
        var stream = try Self.stream([0xFF, 0xD9, 0xFF, 0xD8])
        #expect(try !MarkerReader.readSOI(&stream))
        #expect(stream.position == 0)
        var short = try Self.stream([0xFF])
        #expect(try !MarkerReader.readSOI(&short))
    }

    @Test func classifiesMarkers() {
        let standalone = (0 ... 255).filter { JPEGMarker.isStandalone(UInt8($0)) }
        #expect(standalone == [0x01] + Array(0xD0 ... 0xD9))
        let frames = (0 ... 255).filter { JPEGMarker.isFrame(UInt8($0)) }
        #expect(frames == [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF])
        #expect((0 ... 255).filter { JPEGMarker.isRestart(UInt8($0)) } == Array(0xD0 ... 0xD7))
    }

    @Test func segmentLengthsAreChecked() throws {
        var stream = try Self.stream([0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x01])
        var reader = MarkerReader()
        _ = try MarkerReader.readSOI(&stream)
        var marker = try #require(try reader.next(&stream))
        #expect(throws: MarkerError.lengthTooSmall(marker: 0xFE, offset: 2, length: 1)) {
            try MarkerReader.segment(&stream, of: marker)
        }

        stream = try Self.stream([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x10, 0xAA])
        _ = try MarkerReader.readSOI(&stream)
        marker = try #require(try reader.next(&stream))
        #expect(throws: MarkerError.truncatedSegment(marker: 0xE1, offset: 2, needed: 14, available: 1)) {
            try MarkerReader.segment(&stream, of: marker)
        }
        #expect(MarkerError.truncatedSegment(marker: 0xE1, offset: 2, needed: 14, available: 1).description
            == "marker 0xE1 segment needs 14 byte(s), 1 available, at byte 2")

        stream = try Self.stream([0xFF, 0xD8, 0xFF, 0xE1, 0x00])
        _ = try MarkerReader.readSOI(&stream)
        marker = try #require(try reader.next(&stream))
        #expect(throws: MarkerError.truncatedLength(marker: 0xE1, offset: 2, available: 1)) {
            try MarkerReader.segment(&stream, of: marker)
        }
    }

    @Test func keepsOnlyTheBytesAskedFor() throws {
        var stream = try Self.stream([0xFF, 0xD8, 0xFF, 0xE2, 0x00, 0x06, 1, 2, 3, 4, 0xFF, 0xD9])
        var reader = MarkerReader()
        _ = try MarkerReader.readSOI(&stream)
        let marker = try #require(try reader.next(&stream))
        let segment = try MarkerReader.segment(&stream, of: marker, keep: 2)
        #expect(segment.bytes == [1, 2] && segment.payloadLength == 4)
        #expect(try reader.next(&stream)?.code == 0xD9)
    }

    @Test func markerLimit() throws {
        let com: [UInt8] = [0xFF, 0xFE, 0x00, 0x02]
        let bytes = [0xFF, 0xD8] + com + com + com + [0xFF, 0xD9]
        #expect(throws: MarkerError.tooManyMarkers(offset: 10, count: 3, limit: 2)) {
            try Self.walk(bytes, reader: MarkerReader(maxMarkers: 2))
        }
        // Three segments and the EOI, which is not counted.
        #expect(try Self.walk(bytes, reader: MarkerReader(maxMarkers: 3)).count == 4)
        // A walk that goes on from another counts on from its count.
        #expect(throws: MarkerError.tooManyMarkers(offset: 2, count: 4, limit: 3)) {
            try Self.walk(bytes, reader: MarkerReader(maxMarkers: 3, markersSoFar: 3))
        }
    }

    @Test func skippedBytesAreBudgetedOverTheWalk() throws {
        let stray = [UInt8](repeating: 0x20, count: 6)
        let bytes = [0xFF, 0xD8] + stray + [0xFF, 0x01] + stray + [0xFF, 0xFF, 0xD9]
        // 6 + 7 (six stray bytes and a fill byte) skipped in all.
        #expect(try Self.walk(bytes, reader: MarkerReader(maxSkippedBytes: 13)).map { $0.2 } == [6, 6])
        #expect(throws: MarkerError.tooManySkippedBytes(offset: 10, limit: 6)) {
            try Self.walk(bytes, reader: MarkerReader(maxSkippedBytes: 12))
        }
        #expect(throws: MarkerError.tooManySkippedBytes(offset: 2, limit: 5)) {
            try Self.walk(bytes, reader: MarkerReader(maxSkippedBytes: 5))
        }
    }

    /// Segments longer than the window, and markers and length fields across its edge, read
    /// through the smallest window as through the default one.
    @Test func readsThroughAnyWindow() throws {
        var bytes: [UInt8] = [0xFF, 0xD8]
        var expected: [(UInt8, Int, Int, Int?)] = []
        var state: UInt64 = 5
        for i in 0 ..< 60 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let length = 2 + Int(state >> 58) * (i % 3 == 0 ? 9 : 1)
            let fill = Int(state >> 62)
            bytes += [UInt8](repeating: 0xFF, count: fill)
            let offset = bytes.count
            bytes += [0xE0 + UInt8(i % 16), UInt8(length >> 8), UInt8(length & 0xFF)]
            bytes.insert(0xFF, at: offset)
            bytes += (0 ..< length - 2).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            expected.append((0xE0 + UInt8(i % 16), offset, 0, length))
        }
        bytes += [0xFF, 0xD9]
        expected.append((0xD9, bytes.count - 2, 0, nil))
        for window in [ByteStream.minimumWindowSize, 100, 1024, ByteStream.defaultWindowSize] {
            let found = try Self.walk(bytes, window: window)
            #expect(found.count == expected.count, "window \(window)")
            for (a, b) in zip(found, expected) {
                #expect(a.0 == b.0 && a.1 == b.1 && a.2 == b.2 && a.3 == b.3, "window \(window), marker at \(b.1)")
            }
        }
    }
}

@Suite struct ByteStreamTests {
    @Test func readsAcrossWindowsInBothByteOrders() throws {
        let bytes = (0 ..< 300).map { UInt8(truncatingIfNeeded: $0) }
        var stream = try ByteStream(source: MemoryByteSource(bytes), ledger: MemoryLedger(), windowSize: 64)
        #expect(stream.capacity == 64)
        try stream.skip(62)
        #expect(try stream.readUInt16() == 0x3E3F)
        #expect(try stream.readUInt32(.littleEndian) == 0x4342_4140)
        #expect(try stream.readBytes(100) == Array(bytes[68 ..< 168]))
        stream.seek(to: 10)
        #expect(try stream.readUInt8() == 10)
        stream.seek(to: 299)
        #expect(try stream.nextByte() == 43)
        #expect(try stream.nextByte() == nil)
        #expect(throws: CoreError.outOfBounds(offset: 300, needed: 1, available: 0)) { try stream.readUInt8() }
        stream.seek(to: 298)
        #expect(throws: CoreError.outOfBounds(offset: 298, needed: 4, available: 2)) { try stream.readUInt32() }
        #expect(stream.position == 298)
    }

    @Test func windowIsCountedByTheLedger() throws {
        let ledger = MemoryLedger()
        let stream = try ByteStream(source: MemoryByteSource([1, 2, 3]), ledger: ledger, windowSize: 1024)
        #expect(ledger.peakBytes >= 1024)
        #expect(stream.count == 3 && stream.remaining == 3)
        let tiny = try ByteStream(source: MemoryByteSource([1]), ledger: ledger, windowSize: 1)
        #expect(tiny.capacity == ByteStream.minimumWindowSize)
    }
}
