/// One case of an error or a warning as data: the case's name, the text it carries (a reason,
/// an IFD's or a limit's name, a marker), its numbers in the order the case declares them,
/// and the byte offset where it was found. Every error and warning enum of the codecs gives
/// its cases' fields from one switch (`caseFields`) and `line(stage:)` is the one writer of
/// the short form, "JPEG: invalidHuffmanTable over-subscribed at code length 16 at byte 5726":
/// under Embedded Swift that line is the type's `description`, since the host's sentences are
/// several KB of a firmware's flash. A case that wraps another error or a warning gives the
/// wrapped one's fields.
public struct CaseFields: Sendable {
    /// The case's name as declared ("limitExceeded").
    public let name: StaticString
    /// The case's text value, when it has one (a case with two, such as a marker and a
    /// reason, gives them as one text).
    public let text: MessageText?
    @usableFromInline let first: Int, second: Int, third: Int
    @usableFromInline let offsetValue: Int
    /// How many of `first`, `second`, `third` are the case's (the low two bits), and
    /// whether it has an offset (bit 2).
    @usableFromInline let shape: UInt8

    /// The byte offset in the input; nil for a case that belongs to no place in it.
    public var offset: Int? { shape & 4 != 0 ? offsetValue : nil }

    @inlinable
    public init(_ name: StaticString, text: borrowing MessageText? = nil, _ first: Int? = nil, _ second: Int? = nil,
                _ third: Int? = nil, at offset: Int? = nil) {
        let count = first == nil ? 0 : second == nil ? 1 : third == nil ? 2 : 3
        self.init(name, text, shape: UInt8(count) | (offset == nil ? 0 : 4), first ?? 0, second ?? 0, third ?? 0,
                  offset ?? 0)
    }

    // One call at each case, its text borrowed: the switches that give the fields stay a
    // few instructions a case.
    @usableFromInline @inline(never)
    init(_ name: StaticString, _ text: borrowing MessageText?, shape: UInt8, _ first: Int, _ second: Int, _ third: Int,
         _ offset: Int) {
        self.name = name
        self.text = copy text
        self.shape = shape
        self.first = first
        self.second = second
        self.third = third
        offsetValue = offset
    }

    /// The case's numbers, in the order it declares them.
    public var numbers: [Int] {
        Array([first, second, third].prefix(Int(shape & 3)))
    }

    /// `stage`, the name, the text, the numbers, then "at byte N" where there is an offset,
    /// separated by spaces ("EXIF: " and "tooManyEntries IFD0 70000 4096 at byte 26").
    public func line(stage: StaticString) -> MessageText {
        var line = MessageText.StringInterpolation(literalCapacity: 32, interpolationCount: 6)
        line.appendInterpolation(stage)
        line.appendInterpolation(name)
        if let text {
            line.appendLiteral(" ")
            line.appendInterpolation(text)
        }
        let count = shape & 3
        func add(_ number: Int) {
            line.appendLiteral(" ")
            line.appendInterpolation(number)
        }
        if count > 0 { add(first) }
        if count > 1 { add(second) }
        if count > 2 { add(third) }
        if shape & 4 != 0 {
            line.appendLiteral(" at byte ")
            line.appendInterpolation(offsetValue)
        }
        return MessageText(stringInterpolation: line)
    }
}
