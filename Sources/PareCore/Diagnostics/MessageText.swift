/// The text of an error, a warning or a name in one: `String` on every platform with the
/// full standard library, and under Embedded Swift a `StaticMessage`, the same interpolated
/// literal kept as its pieces (static texts and numbers) and turned into bytes only when
/// printed. The messages are written once, as string interpolations, and read the same on
/// both; an Embedded program that prints them links no `String` code (the text storage,
/// its Unicode tables and the integer formatting it brings are most of a firmware's
/// standard library).
#if hasFeature(Embedded)
public typealias MessageText = StaticMessage

/// A message as its pieces: the literal parts of an interpolation (static strings, in
/// flash) and the values interpolated between them. Two messages are equal when their
/// bytes are.
public struct StaticMessage: Sendable, Equatable, ExpressibleByStringInterpolation {
    enum Piece: Sendable {
        case text(StaticString)
        /// A decimal integer: its sign and magnitude. A word wide: the numbers in messages
        /// are sizes, counts, offsets and values of small fields, and a 32-bit target then
        /// prints them without the C library's 64-bit division.
        case number(negative: Bool, magnitude: UInt)
        /// Upper-case hexadecimal, at least `digits` wide (leading zeros; at most a word's digits).
        case hex(UInt, digits: Int)
    }

    var pieces: [Piece]

    @inline(never)
    public init(stringLiteral text: StaticString) {
        pieces = [.text(text)]
    }

    public init(stringInterpolation: Interpolation) {
        pieces = stringInterpolation.pieces
    }

    /// `value` in upper-case hexadecimal, `digits` wide.
    @_spi(Codec)
    public static func hex(_ value: some BinaryInteger, digits: Int) -> StaticMessage {
        var message = StaticMessage(stringLiteral: "")
        message.pieces = [.hex(UInt(truncatingIfNeeded: value), digits: digits)]
        return message
    }

    public struct Interpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        // Each message is a chain of these calls: kept out of line, so that a message costs
        // a call per piece where it is built rather than the array's growth code each time.
        @inline(never)
        public mutating func appendLiteral(_ text: StaticString) {
            if text.utf8CodeUnitCount > 0 { pieces.append(.text(text)) }
        }

        public mutating func appendInterpolation(_ value: some BinaryInteger) {
            appendNumber(negative: value < 0, magnitude: UInt(truncatingIfNeeded: value.magnitude))
        }

        @inline(never)
        mutating func appendNumber(negative: Bool, magnitude: UInt) {
            pieces.append(.number(negative: negative, magnitude: magnitude))
        }

        @inline(never)
        public mutating func appendInterpolation(_ message: StaticMessage) {
            pieces.append(contentsOf: message.pieces)
        }

        /// A static text between the pieces (`CaseFields.line` writes names this way).
        public mutating func appendInterpolation(_ text: StaticString) {
            appendLiteral(text)
        }
    }

    /// Appends the message's bytes (ASCII) to `bytes`.
    public func append(to bytes: inout [UInt8]) {
        for piece in pieces {
            let value: UInt, base: UInt, width: Int
            switch piece {
            case let .text(text):
                text.withUTF8Buffer { bytes.append(contentsOf: $0) }
                continue
            case let .number(negative, magnitude):
                if negative { bytes.append(UInt8(ascii: "-")) }
                (value, base, width) = (magnitude, 10, 1)
            case let .hex(hexValue, digits):
                (value, base, width) = (hexValue, 16, digits)
            }
            // From the highest digit down: the power of the base just below the number (or
            // the width's, for leading zeros) first.
            var divisor: UInt = 1, count = 1
            while value / divisor >= base || count < width {
                divisor *= base
                count += 1
            }
            let alphabet: StaticString = "0123456789ABCDEF"
            repeat {
                bytes.append(alphabet.utf8Start[Int(value / divisor % base)])
                divisor /= base
            } while divisor > 0
        }
    }

    /// The message's bytes.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        append(to: &bytes)
        return bytes
    }

    public static func == (a: StaticMessage, b: StaticMessage) -> Bool {
        a.bytes == b.bytes
    }
}

extension DefaultStringInterpolation {
    /// A message inside a `String` (for code that builds `String`s, which the message types
    /// themselves do not).
    public mutating func appendInterpolation(_ message: StaticMessage) {
        appendInterpolation(String(decoding: message.bytes, as: UTF8.self))
    }
}
#else
public typealias MessageText = String

extension String {
    /// `value` in upper-case hexadecimal, `digits` wide (as `StaticMessage.hex` under Embedded).
    @_spi(Codec)
    public static func hex(_ value: some BinaryInteger, digits: Int) -> String {
        let alphabet: StaticString = "0123456789ABCDEF"
        var text = ""
        for digit in stride(from: digits - 1, through: 0, by: -1) {
            let nibble = Int((UInt64(truncatingIfNeeded: value) >> UInt64(4 * digit)) & 0xF)
            text.unicodeScalars.append(Unicode.Scalar(alphabet.utf8Start[nibble]))
        }
        return text
    }
}
#endif
