import Testing
import PareCore

@Suite struct ByteReaderTests {
    @Test func readsBothEndiannesses() throws {
        var reader = ByteReader([0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0, 0x01])
        #expect(try reader.readUInt16() == 0x1234)
        #expect(try reader.readUInt16(.littleEndian) == 0x7856)
        #expect(try reader.readUInt32(.littleEndian) == 0xF0DE_BC9A)
        #expect(try reader.readUInt8() == 0x01)
        #expect(reader.remaining == 0)
        #expect(try reader.peekUInt32(at: 0) == 0x1234_5678)
        #expect(try reader.peekUInt32(at: 4, .littleEndian) == 0xF0DE_BC9A)
    }

    @Test func failuresNameTheAbsoluteOffset() throws {
        var reader = ByteReader([1, 2, 3], baseOffset: 100)
        try reader.skip(2)
        #expect(throws: CoreError.outOfBounds(offset: 102, needed: 2, available: 1)) {
            _ = try reader.readUInt16()
        }
        #expect(reader.position == 2, "a failed read does not move the cursor")
        #expect(throws: CoreError.outOfBounds(offset: 101, needed: 4, available: 2)) {
            _ = try reader.peekUInt32(at: 1)
        }
        #expect(throws: CoreError.self) { try reader.seek(to: 4) }
        #expect(throws: CoreError.self) { _ = try reader.peekBytes(at: -1, count: 1) }
        #expect(throws: CoreError.self) { _ = try reader.readBytes(Int.max) }
    }

    @Test func streamReadsAcrossWindowRefills() throws {
        let bytes = (0 ..< 1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let ledger = MemoryLedger()
        var stream = try ByteStream(source: MemoryByteSource(bytes), ledger: ledger, windowSize: 16)
        var seen: [UInt8] = []
        while let byte = try stream.nextByte() { seen.append(byte) }
        #expect(seen == bytes)
        try stream.seek(to: 998)
        #expect(try stream.readUInt16() == UInt16(bytes[998]) << 8 | UInt16(bytes[999]))
        #expect(throws: CoreError.outOfBounds(offset: 1000, needed: 1, available: 0)) {
            _ = try stream.readUInt8()
        }
        try stream.seek(to: 10)
        #expect(try stream.readBytes(40) == Array(bytes[10 ..< 50]))
        #expect(try stream.readUInt32(.littleEndian) ==
            UInt32(bytes[50]) | UInt32(bytes[51]) << 8 | UInt32(bytes[52]) << 16 | UInt32(bytes[53]) << 24)
        #expect(ledger.peakBytes == 16)
    }

    @Test func imageBuilderPlacesInterlacedRows() throws {
        let ledger = MemoryLedger()
        var builder = ImageBuilder(ledger: ledger)
        try builder.begin(RowStreamHeader(width: 5, height: 2, format: .gray8, interlaced: true))
        ([1, 2, 3] as [UInt8]).withUnsafeBufferPointer { builder.consume($0, at: RowPlacement(y: 1, xOrigin: 0, xStep: 2, width: 3)) }
        ([9, 8] as [UInt8]).withUnsafeBufferPointer { builder.consume($0, at: RowPlacement(y: 1, xOrigin: 1, xStep: 2, width: 2)) }
        let image = try #require(builder.image)
        #expect(image.bytes == [0, 0, 0, 0, 0, 1, 9, 2, 8, 3])
    }
}
