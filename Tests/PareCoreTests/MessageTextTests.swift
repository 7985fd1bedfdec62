@_spi(Codec) import PareCore
import Testing

/// `MessageText` is `String` on the host; its hex digits are the ones the Embedded build's
/// `StaticMessage` writes (the messages name markers and tags with them).
@Suite struct MessageTextTests {
    @Test func hexIsUpperCaseAndZeroPadded() {
        #expect(MessageText.hex(UInt8(0x0A), digits: 2) == "0A")
        #expect(MessageText.hex(UInt16(0x8769), digits: 4) == "8769")
        #expect(MessageText.hex(UInt16(0x12), digits: 4) == "0012")
        #expect(MessageText.hex(UInt32(0x25A7_1793), digits: 8) == "25A71793")
    }

    @Test func markerMessagesNameTheMarkerInHex() {
        let error = MarkerError.lengthTooSmall(marker: 0xE1, offset: 2, length: 1)
        #expect(error.description == "marker 0xE1 has segment length 1, less than 2, at byte 2")
    }
}
